/**
 * `expect` matchers for vitest and jest (the subpath `mailyard/testing/matchers`):
 *
 *   import { mailyardMatchers } from 'mailyard/testing/matchers';
 *   expect.extend(mailyardMatchers);
 *   await expect(yard).toHaveReceivedEmail({ recipient: 'ann@example.com', subject: 'Welcome' });
 *   await expect(yard).toHaveDeliveredEvent('bounce', { recipient: 'bounce@simulator.mailyard.dev' });
 *
 * Both wait (up to `timeoutMs`, default 5000) for the emulator to record a match, filtered there. With
 * `.not` they check once, at once: nothing matches now.
 */
import type { EmailEventKind } from '../../src-shared/events';
import type { DeliveryFilter, MailyardHelpers, MessageFilter } from './types';
import { WaitTimeoutError } from './waiters';

/** The matchers' signatures, to add to vitest's `Assertion` or jest's `Matchers` (see the docs' recipe). */
export interface MailyardMatchers<R = unknown> {
  /** A captured message matches the filter (recipient, subject, ref_id, from, status, event, ...). */
  toHaveReceivedEmail(filter: MessageFilter, options?: { timeoutMs?: number }): R;
  /** A webhook delivery of this event kind matching the filter was answered 2xx by its receiver. */
  toHaveDeliveredEvent(kind: EmailEventKind | (string & {}), filter?: Omit<DeliveryFilter, 'event' | 'status'>, options?: { timeoutMs?: number }): R;
}

interface MatcherContext {
  isNot?: boolean;
}

interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function isHelpers(value: unknown): value is MailyardHelpers {
  return typeof value === 'object' && value !== null && typeof (value as MailyardHelpers).waitForMessage === 'function';
}

function notAHandle(name: string, received: unknown): MatcherResult {
  return { pass: false, message: () => `${name}: expect(...) must be given a Mailyard handle (startMailyard or connectMailyard), got ${typeof received}` };
}

/** Waits for a match (or, under `.not`, looks once) and says what happened either way. */
async function matchOnce<T>(
  context: MatcherContext,
  wait: (timeoutMs: number) => Promise<T>,
  timeoutMs: number,
  found: (match: T) => string,
  missing: (error: WaitTimeoutError) => string,
): Promise<MatcherResult> {
  try {
    const match = await wait(context.isNot ? 0 : timeoutMs);
    return { pass: true, message: () => found(match) };
  } catch (err) {
    if (!(err instanceof WaitTimeoutError)) throw err;
    return { pass: false, message: () => missing(err) };
  }
}

export const mailyardMatchers = {
  async toHaveReceivedEmail(this: MatcherContext, received: unknown, filter: MessageFilter, options: { timeoutMs?: number } = {}): Promise<MatcherResult> {
    if (!isHelpers(received)) return notAHandle('toHaveReceivedEmail', received);
    return matchOnce(
      this,
      (timeoutMs) => received.waitForMessage(filter, { timeoutMs }),
      options.timeoutMs ?? 5000,
      (m) => `expected no captured message to match ${JSON.stringify(filter)}, but ${m.id} (to ${m.recipient.email}, ${JSON.stringify(m.subject)}) does`,
      (e) => `expected a captured message to match ${JSON.stringify(filter)}.\n${e.message}`,
    );
  },

  async toHaveDeliveredEvent(
    this: MatcherContext,
    received: unknown,
    kind: string,
    filter: Omit<DeliveryFilter, 'event' | 'status'> = {},
    options: { timeoutMs?: number } = {},
  ): Promise<MatcherResult> {
    if (!isHelpers(received)) return notAHandle('toHaveDeliveredEvent', received);
    const full: DeliveryFilter = { ...filter, event: kind, status: 'succeeded' };
    return matchOnce(
      this,
      (timeoutMs) => received.waitForDelivery(full, { timeoutMs }),
      options.timeoutMs ?? 5000,
      (d) => `expected no ${kind} webhook delivered matching ${JSON.stringify(filter)}, but ${d.id} to ${d.target.url} was`,
      (e) => `expected a ${kind} webhook delivered (answered 2xx) matching ${JSON.stringify(filter)}.\n${e.message}`,
    );
  },
};
