import { EMAIL_EVENT_KINDS } from '../../../../src-shared/events';
import {
  RECEIVER_CHECK_LIMITS,
  type ReceiverCheckOptions,
  type ReceiverCheckReport,
  type ReceiverCheckResult,
  type ReceiverExchange,
} from '../../../../src-shared/schemas/receiver-check';
import { attemptRequest, type HttpAttemptRequest, type HttpAttemptResult } from '../../dispatch/attempt';
import { utf8Excerpt } from '../../dispatch/body-excerpt';
import { describeExchange, planChecks, secretHeaderOf, type PlannedRequest } from './plan';

/** Sends one request as the dispatcher sends an attempt (its undici agent, time-out and body limit). */
export type SendRequest = (request: HttpAttemptRequest) => Promise<HttpAttemptResult>;

export interface ReceiverCheckRunner {
  send: SendRequest;
  /** Each request's time-out (the dispatcher's attempt time-out), for the report. */
  timeoutMs: number;
  userAgent: string;
}

function exchangeOf(label: string, request: HttpAttemptRequest, result: HttpAttemptResult): ReceiverExchange {
  const body = result.response ? utf8Excerpt(result.response.body, RECEIVER_CHECK_LIMITS.responseBodyKeptBytes) : null;
  return {
    label,
    request: { method: request.method, url: request.url, headers: request.headers, body: request.body },
    response: result.response && body ? { status: result.response.status, body: body.text, truncated: result.response.truncated || body.truncated } : null,
    // A redirect has an answer and an error; the answer says it.
    error: result.response ? null : result.error,
    duration_ms: result.durationMs,
  };
}

/** The quick-ack check over the event checks' answers: each answered within the bound. */
function quickAck(events: ReceiverCheckResult[], ackWithinMs: number): ReceiverCheckResult {
  const answered = events.flatMap((c) => c.exchanges).filter((e) => e.response !== null);
  const slow = answered.filter((e) => e.duration_ms > ackWithinMs);
  const slowest = [...answered].sort((a, b) => b.duration_ms - a.duration_ms)[0];
  return {
    id: 'quick-ack',
    title: `Each event acknowledged within ${ackWithinMs} ms`,
    expected: `every event's answer within ${ackWithinMs} ms (the spec: acknowledge quickly; do slow work after answering)`,
    status: slow.length > 0 ? 'failed' : answered.length > 0 ? 'passed' : 'skipped',
    detail:
      slow.length > 0
        ? `${slow.map(describeExchange).join('; ')} (over ${ackWithinMs} ms)`
        : answered.length > 0
          ? ''
          : 'no event was answered, so there is no time to grade',
    exchanges: slow.length > 0 ? slow : slowest ? [slowest] : [],
  };
}

/**
 * Checks the receiver at `options.url`: sends each planned request in turn, one at a time (the order is
 * part of some checks), and grades each check on its answers. Resolves with the whole report; a
 * receiver that fails, hangs or refuses fails checks, never the run.
 */
export async function runReceiverCheck(options: ReceiverCheckOptions, runner: ReceiverCheckRunner): Promise<ReceiverCheckReport> {
  const startedAt = new Date();
  const started = performance.now();
  const kinds = options.events ?? [...EMAIL_EVENT_KINDS];
  const target = { url: options.url, method: options.method };
  const send = async (p: PlannedRequest) => {
    const request = attemptRequest(
      { id: p.id, payload: p.body },
      { ...target, headers: p.headers },
      runner.userAgent,
      p.secret === null ? [] : [p.secret],
      p.timestamp,
    );
    return exchangeOf(p.label, request, await runner.send(request));
  };
  const checks: ReceiverCheckResult[] = [];
  for (const planned of planChecks(options, kinds)) {
    const { grade, requests, skipped, ...described } = planned;
    if (skipped !== undefined) {
      checks.push({ ...described, status: 'skipped', detail: skipped, exchanges: [] });
      continue;
    }
    const exchanges: ReceiverExchange[] = [];
    for (const p of requests) exchanges.push(await send(p));
    const failure = grade(exchanges);
    checks.push({ ...described, status: failure === null ? 'passed' : 'failed', detail: failure ?? '', exchanges });
  }
  // Graded right after the events it reads, before the other checks.
  checks.splice(kinds.length, 0, quickAck(checks.slice(0, kinds.length), options.ack_within_ms));
  const count = (status: ReceiverCheckResult['status']) => checks.filter((c) => c.status === status).length;
  return {
    url: options.url,
    method: options.method,
    payload_format: options.payload_format,
    events: kinds,
    secret_header: secretHeaderOf(options.headers, options.secret_header),
    signed: options.signing_secret !== undefined,
    ack_within_ms: options.ack_within_ms,
    timeout_ms: runner.timeoutMs,
    started_at: startedAt.toISOString(),
    duration_ms: Math.round(performance.now() - started),
    passed: count('failed') === 0,
    counts: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    checks,
  };
}
