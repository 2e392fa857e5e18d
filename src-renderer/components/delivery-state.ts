import type { DeliveryStatus, DeliverySummary } from '../../src-shared/schemas/dispatch';

/**
 * The names the UI gives a delivery's states, one word each, the same on every screen. The API's
 * statuses stay as they are; `failing` is the API's list filter of that name: pending (or being sent)
 * after at least one failed attempt, so retrying.
 */
export type DeliveryStateName = 'pending' | 'failing' | 'sending' | 'succeeded' | 'failed' | 'cancelled';

/** What each name means, for a tooltip or a legend. */
export const DELIVERY_STATE_MEANING: Record<DeliveryStateName, string> = {
  pending: 'waiting for its first attempt',
  failing: 'retrying: an attempt failed and the next one is scheduled',
  sending: 'an attempt is in flight: the request is on its way or the receiver has not answered yet',
  succeeded: 'the receiver answered 2xx',
  failed: 'every scheduled attempt failed: no more are made unless retried by hand',
  cancelled: 'its target was deleted before it could be sent',
};

/** The list filter's labels: the badges' own words (what each means is DELIVERY_STATE_MEANING). */
export const DELIVERY_FILTER_LABEL: Record<DeliveryStatus | 'failing', string> = {
  pending: 'pending or failing',
  sending: 'sending',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
  failing: 'failing',
};

/** A count of webhook deliveries still to be sent in the badges' words: "1 webhook delivery pending or failing". */
export function waitingDeliveries(n: number): string {
  return `${n.toLocaleString()} webhook ${n === 1 ? 'delivery' : 'deliveries'} pending or failing`;
}

/**
 * Within this much of the UI's estimate of the emulator's now, a scheduled attempt reads as due now:
 * the estimate may lag the emulator by a moment.
 */
export const DUE_NOW_MARGIN_MS = 1500;

export interface DeliveryStateView {
  name: DeliveryStateName;
  /** The badge's colour: `live` for an attempt in flight. */
  tone: 'wait' | 'live' | 'warn' | 'ok' | 'bad' | 'muted';
  /** An attempt is in flight (the API says `sending`). */
  inFlight: boolean;
  /** The number of the attempt in flight, or of the next one when one is scheduled. */
  attempt: number | null;
  /**
   * When a next attempt is scheduled: `due` once its time has come (it is about to be made, however
   * long ago that time is: never "1 h ago"), else `scheduled` at `at`.
   */
  next: { kind: 'due' } | { kind: 'scheduled'; at: string } | null;
  /** The state in words beside the badge: "attempt 2 in flight", "retry 2 due now"; null when a scheduled time says it. */
  note: string | null;
}

type StateInput = Pick<DeliverySummary, 'status' | 'attempts' | 'next_attempt_at'>;

/** A delivery's state as every screen shows it, at the emulator's now (ms). */
export function deliveryState(d: StateInput, nowMs: number): DeliveryStateView {
  const attempt = d.attempts + 1;
  switch (d.status) {
    case 'sending':
      return { name: 'sending', tone: 'live', inFlight: true, attempt, next: null, note: `attempt ${attempt} in flight` };
    case 'pending': {
      const failing = d.attempts > 0;
      const name = failing ? 'failing' : 'pending';
      const tone = failing ? 'warn' : 'wait';
      const what = failing ? `retry ${attempt}` : 'first attempt';
      if (d.next_attempt_at === null) return { name, tone, inFlight: false, attempt, next: { kind: 'due' }, note: `${what} due now` };
      const at = Date.parse(d.next_attempt_at);
      if (Number.isNaN(at) || at - nowMs <= DUE_NOW_MARGIN_MS) return { name, tone, inFlight: false, attempt, next: { kind: 'due' }, note: `${what} due now` };
      return { name, tone, inFlight: false, attempt, next: { kind: 'scheduled', at: d.next_attempt_at }, note: null };
    }
    case 'succeeded':
      return { name: 'succeeded', tone: 'ok', inFlight: false, attempt: null, next: null, note: null };
    case 'failed':
      return { name: 'failed', tone: 'bad', inFlight: false, attempt: null, next: null, note: null };
    default:
      return { name: 'cancelled', tone: 'muted', inFlight: false, attempt: null, next: null, note: null };
  }
}

/** Whether a delivery is in flight or about to be: the screens showing it look again soon. */
export function isInFlightOrDue(d: StateInput, nowMs: number): boolean {
  const s = deliveryState(d, nowMs);
  return s.inFlight || s.next?.kind === 'due';
}

/** The clock answer's attempts still in flight in words ("2 attempts still in flight"), or null when none or not said. */
export function inFlightNote(answer: unknown): string | null {
  const n = (answer as { in_flight?: unknown } | null)?.in_flight;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) return null;
  return `${n} attempt${n === 1 ? '' : 's'} still in flight`;
}
