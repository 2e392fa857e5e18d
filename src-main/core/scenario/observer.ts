import type { Scenario } from '../../../src-shared/scenario/format';
import type { ScenarioViolation } from '../../../src-shared/scenario/report';
import type { AttemptRecord, DeliverySummary } from '../../../src-shared/schemas/dispatch';
import type { MessageSummary } from '../../../src-shared/schemas/messages';
import type { ScenarioEvent } from './plan';

export type Mark = NonNullable<ScenarioEvent['marks']>;
const MARK_EXPECTATION: Record<Mark, 'noSendAfterHardBounce' | 'noSendAfterComplaint' | 'noSendAfterUnsubscribe'> = {
  hardBounce: 'noSendAfterHardBounce',
  complaint: 'noSendAfterComplaint',
  unsubscribe: 'noSendAfterUnsubscribe',
};
const MARK_WORDS: Record<Mark, string> = { hardBounce: 'hard bounce', complaint: 'spam complaint', unsubscribe: 'unsubscribe' };

/** Kept per violation kind: enough to show, the count is exact. */
const MAX_VIOLATIONS_KEPT = 200;

/** What a mark rests on: the event the app was told of (its delivery), and when the app knew. */
interface MarkInfo {
  mark: Mark;
  knownAt: number;
  eventId?: string;
  deliveryId?: string;
  messageId: string;
}

/**
 * Watches one run's account: the app's sends (captured copies), the events fired, the webhook deliveries
 * and their attempts; turns them into the report's totals, series and the app's violations.
 */
export class ScenarioObserver {
  sends = 0;
  /** Events the run fired about the account's copies (whether or not a webhook took them). */
  events = 0;
  acknowledged = 0;
  failedAttempts = 0;
  attemptsMade = 0;
  retries = 0;
  gaveUp = 0;
  missingVariables = 0;
  readonly recipients = new Map<string, number>();
  /** The account's webhook deliveries (a duplicate is one of its own). */
  readonly deliveries = new Set<string>();
  readonly eventsByKind: Array<{ t: number; kind: string }> = [];
  /** Each send: when (ms since the start), its send's ref_id (the traffic's or the app's), whether it broke an expectation. */
  readonly sendTimes: Array<{ t: number; ref: string; violation: boolean }> = [];
  readonly attempts: Array<{ t: number; ms: number | null; status: number | null; ok: boolean; retry: boolean }> = [];
  readonly violations = new Map<string, { count: number; kept: ScenarioViolation[] }>();
  /** Deliveries that carry a marking event, until acknowledged. */
  private readonly pendingMarks = new Map<string, { recipient: string; info: MarkInfo }>();
  private readonly marks = new Map<string, MarkInfo[]>();
  private readonly acked = new Set<string>();
  /** Copies seen per send (ref_id). */
  private readonly copiesBySend = new Map<string, number>();

  /**
   * `reactions`: whether sends are judged against the events that reached the sender (the noSendAfter
   * expectations): only with an app, since the traffic sends what the file says whatever happens.
   */
  constructor(
    private readonly accountId: string,
    private readonly expect: Scenario['expect'],
    private readonly startMs: number,
    private readonly iso: (ms: number) => string,
    private readonly reactions = true,
  ) {}

  /** The emulator time at which the first event of `mark` reached the app, or null if none did. */
  firstKnown(mark: Mark): number | null {
    let first: number | null = null;
    for (const list of this.marks.values()) {
      for (const info of list) if (info.mark === mark && Number.isFinite(info.knownAt) && (first === null || info.knownAt < first)) first = info.knownAt;
    }
    return first;
  }

  /** How many events of `mark` reached the app (acknowledged by its receiver, or fired with no webhook to take them). */
  known(mark: Mark): number {
    let n = 0;
    for (const list of this.marks.values()) for (const info of list) if (info.mark === mark && Number.isFinite(info.knownAt)) n++;
    return n;
  }

  violationCount(): number {
    let n = 0;
    for (const v of this.violations.values()) n += v.count;
    return n;
  }

  /** Copies of sends whose ref_id is not in `refs` (the app's, when `refs` are the traffic's). */
  sendsOutside(refs: ReadonlySet<string>): number {
    let n = 0;
    for (const [ref, copies] of this.copiesBySend) if (!refs.has(ref)) n += copies;
    return n;
  }

  /** Copies sent at or after `at` (emulator time) whose ref_id is not in `refs`. */
  sendsOutsideSince(refs: ReadonlySet<string>, at: number): number {
    let n = 0;
    for (const s of this.sendTimes) if (s.t + this.startMs >= at && !refs.has(s.ref)) n++;
    return n;
  }

  /** How many events of `mark` the run fired. */
  fired(mark: Mark): number {
    let n = 0;
    for (const list of this.marks.values()) for (const info of list) if (info.mark === mark) n++;
    return n;
  }

  violate(expectation: string, v: Omit<ScenarioViolation, 'expectation'>): void {
    const entry = this.violations.get(expectation) ?? { count: 0, kept: [] };
    entry.count++;
    if (entry.kept.length < MAX_VIOLATIONS_KEPT) entry.kept.push({ expectation, ...v });
    this.violations.set(expectation, entry);
  }

  /** A copy the app (or the traffic) sent: checked against what the app had been told of this address. */
  onMessage(m: MessageSummary, now: number): boolean {
    if (m.account_id !== this.accountId) return false;
    this.sends++;
    this.copiesBySend.set(m.ref_id, (this.copiesBySend.get(m.ref_id) ?? 0) + 1);
    const email = m.recipient.email.toLowerCase();
    const count = (this.recipients.get(email) ?? 0) + 1;
    this.recipients.set(email, count);
    let violated = false;
    const app = this.expect.app ?? {};
    for (const info of this.reactions ? (this.marks.get(email) ?? []) : []) {
      const id = MARK_EXPECTATION[info.mark];
      if (app[id] !== true || info.knownAt > now) continue;
      violated = true;
      this.violate(id, {
        message: `sent to ${m.recipient.email} after its ${MARK_WORDS[info.mark]} reached the app (${this.iso(info.knownAt)})`,
        at: this.iso(now),
        recipient: m.recipient.email,
        messageId: m.id,
        ...(info.deliveryId ? { deliveryId: info.deliveryId } : {}),
      });
      break;
    }
    if (app.maxSendsPerRecipient !== undefined && count === app.maxSendsPerRecipient + 1) {
      violated = true;
      this.violate('maxSendsPerRecipient', {
        message: `${m.recipient.email} got a send number ${count}, over the limit of ${app.maxSendsPerRecipient}`,
        at: this.iso(now),
        recipient: m.recipient.email,
        messageId: m.id,
      });
    }
    this.sendTimes.push({ t: now - this.startMs, ref: m.ref_id, violation: violated });
    return true;
  }

  /** An event the run fired about a copy; a marking one counts once the app acknowledged it (or at once without a webhook). */
  onFired(e: ScenarioEvent, recipient: string, messageId: string, deliveryId: string | null, now: number): void {
    this.events++;
    this.eventsByKind.push({ t: now - this.startMs, kind: e.kind });
    if (e.kind === 'generation_failure' && this.expect.app?.noMissingVariables === true) {
      this.violate('noMissingVariables', {
        message: `the send to ${recipient} failed to render: a template variable is missing`,
        at: this.iso(now),
        recipient,
        messageId,
      });
    }
    if (!e.marks) return;
    const info: MarkInfo = { mark: e.marks, knownAt: now, messageId, ...(deliveryId ? { deliveryId } : {}) };
    if (deliveryId && !this.acked.has(deliveryId)) {
      info.knownAt = Number.POSITIVE_INFINITY;
      this.pendingMarks.set(deliveryId, { recipient: recipient.toLowerCase(), info });
    }
    const list = this.marks.get(recipient.toLowerCase()) ?? [];
    list.push(info);
    this.marks.set(recipient.toLowerCase(), list);
  }

  onDeliveryCreated(d: DeliverySummary): void {
    if (d.account_id !== this.accountId || this.deliveries.has(d.id)) return;
    this.deliveries.add(d.id);
  }

  onDeliveryUpdated(d: DeliverySummary): void {
    if (!this.deliveries.has(d.id)) return;
    if (d.status === 'failed') this.gaveUp++;
  }

  onAttempt(deliveryId: string, a: AttemptRecord, now: number): void {
    if (!this.deliveries.has(deliveryId)) return;
    this.attemptsMade++;
    const ok = a.outcome === 'succeeded';
    const retry = a.number > 1;
    if (retry) this.retries++;
    this.attempts.push({ t: now - this.startMs, ms: a.response ? a.duration_ms : null, status: a.response?.status ?? null, ok, retry });
    if (!ok) {
      this.failedAttempts++;
      return;
    }
    if (this.acked.has(deliveryId)) return;
    this.acked.add(deliveryId);
    this.acknowledged++;
    const pending = this.pendingMarks.get(deliveryId);
    if (pending) {
      pending.info.knownAt = now;
      this.pendingMarks.delete(deliveryId);
    }
  }
}
