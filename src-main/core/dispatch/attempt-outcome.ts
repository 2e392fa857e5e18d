import { DELIVERY_BODY_LIMITS } from '../../../src-shared/schemas/dispatch';
import type { Clock } from '../clock';
import type { AttemptRow, DeliveryRow, DeliveryUpdate } from '../store/deliveries.repo';
import type { HttpAttemptRequest, HttpAttemptResult } from './attempt';
import { utf8Excerpt } from './body-excerpt';
import { nextRetryDelay } from './retry-policy';

export type Trigger = AttemptRow['trigger'];

/** What one attempt leaves in the store: its own row, and the delivery's next state. */
export interface AttemptOutcome {
  attempt: AttemptRow;
  update: DeliveryUpdate;
}

/** The outcome of an attempt cut short by a process that stopped mid-attempt (a crash or kill -9). */
export const INTERRUPTED: HttpAttemptResult = {
  durationMs: 0,
  response: null,
  error: {
    code: 'interrupted',
    message: 'the emulator stopped (crash or kill) while this attempt was starting or in flight; its outcome is unknown, so it counts as failed',
  },
  succeeded: false,
};

/** Where a delivery stands after an attempt. */
export interface NextState {
  status: 'succeeded' | 'pending' | 'failed' | 'cancelled';
  nextAttemptAt: number | null;
  scheduledAttempts: number;
}

/** What decides the retries: the schedule (retry-policy.ts), the clock, and whether a target is gone. */
export interface RetryRules {
  schedule: readonly number[];
  clock: Clock;
  targetGone: (row: DeliveryRow) => boolean;
}

/**
 * After an attempt: a 2xx ends the delivery. A failed scheduled attempt waits for the next step of
 * the retry schedule, or fails the delivery when the schedule is spent, or cancels it when its
 * target is gone (`targetGone`, asked only then). A manual attempt never changes the schedule, and a
 * failed one never undoes a success: the event was acknowledged, and the replay's outcome is its own
 * attempt's.
 */
export function nextState(row: DeliveryRow, trigger: Trigger, previousStatus: DeliveryRow['status'], succeeded: boolean, retry: RetryRules): NextState {
  const counts = trigger !== 'manual';
  const scheduledAttempts = row.scheduled_attempts + (counts ? 1 : 0);
  if (succeeded) return { status: 'succeeded', nextAttemptAt: null, scheduledAttempts };
  if (!counts) {
    if (previousStatus === 'succeeded') return { status: 'succeeded', nextAttemptAt: null, scheduledAttempts };
    return previousStatus === 'pending'
      ? { status: 'pending', nextAttemptAt: row.next_attempt_at, scheduledAttempts }
      : { status: 'failed', nextAttemptAt: null, scheduledAttempts };
  }
  if (retry.targetGone(row)) return { status: 'cancelled', nextAttemptAt: null, scheduledAttempts };
  const delay = nextRetryDelay(retry.schedule, scheduledAttempts);
  return delay === null
    ? { status: 'failed', nextAttemptAt: null, scheduledAttempts }
    : { status: 'pending', nextAttemptAt: retry.clock.now() + delay, scheduledAttempts };
}

/**
 * The attempt's row as it was sent and answered. Of the response body, the first
 * `responseBodyKeptBytes` are kept (enough to read an error page); `response_truncated` says the
 * receiver sent more. (Earlier attempts are cut further once a later one is recorded: see
 * `DeliveriesRepo.writeAttempt`.)
 */
export function attemptRow(row: DeliveryRow, trigger: Trigger, request: HttpAttemptRequest, startedAt: string, result: HttpAttemptResult): AttemptRow {
  const kept = result.response ? utf8Excerpt(result.response.body, DELIVERY_BODY_LIMITS.responseBodyKeptBytes) : null;
  return {
    delivery_id: row.id,
    number: row.attempts + 1,
    trigger,
    outcome: result.succeeded ? 'succeeded' : 'failed',
    started_at: startedAt,
    duration_ms: result.durationMs,
    request_method: request.method,
    request_url: request.url,
    request_headers: JSON.stringify(request.headers),
    response_status: result.response?.status ?? null,
    response_headers: result.response ? JSON.stringify(result.response.headers) : null,
    response_body: kept?.text ?? null,
    response_truncated: result.response?.truncated || kept?.truncated ? 1 : 0,
    error_code: result.error?.code ?? null,
    error: result.error?.message ?? null,
  };
}

/**
 * The delivery's row after an attempt that leaves it in `next`. A failed replay of a delivery that had
 * succeeded keeps the answer that acknowledged it as the delivery's last status (its own is in its
 * attempt's record).
 */
export function updateAfterAttempt(
  row: DeliveryRow,
  request: HttpAttemptRequest,
  result: HttpAttemptResult,
  next: NextState,
  updatedAt: string,
): DeliveryUpdate {
  // A failed replay of an acknowledged delivery: the delivery's last answer stays the one that acknowledged it.
  const kept = next.status === 'succeeded' && !result.succeeded;
  return {
    id: row.id,
    status: next.status,
    attempts: row.attempts + 1,
    scheduled_attempts: next.scheduledAttempts,
    next_attempt_at: next.nextAttemptAt,
    target_url: request.url,
    last_status_code: kept ? row.last_status_code : (result.response?.status ?? null),
    last_error: kept ? row.last_error : result.succeeded ? null : (result.error?.message ?? `HTTP ${result.response?.status ?? '?'}`),
    updated_at: updatedAt,
  };
}

/** The row of a due delivery cancelled without an attempt: its target is gone. */
export function cancelledWithoutAttempt(row: DeliveryRow, updatedAt: string): DeliveryUpdate {
  return {
    id: row.id,
    status: 'cancelled',
    attempts: row.attempts,
    scheduled_attempts: row.scheduled_attempts,
    next_attempt_at: null,
    target_url: row.target_url,
    last_status_code: row.last_status_code,
    last_error: 'the target was deleted',
    updated_at: updatedAt,
  };
}
