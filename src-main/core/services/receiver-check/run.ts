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
import { judgeProcessing, readEffects } from './effects';
import { describeExchange, type PlannedRequest, planChecks, secretHeaderOf } from './plan';

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

/**
 * The quick-ack check over the event checks' answers: each answered within the bound. Its exchanges are
 * every answer it graded (the evidence), the slow ones named in its detail.
 */
function quickAck(events: ReceiverCheckResult[], ackWithinMs: number): ReceiverCheckResult {
  const answered = events.flatMap((c) => c.exchanges).filter((e) => e.response !== null);
  const slow = answered.filter((e) => e.duration_ms > ackWithinMs);
  const slowest = Math.max(0, ...answered.map((e) => e.duration_ms));
  return {
    id: 'quick-ack',
    title: `Each event acknowledged within ${ackWithinMs} ms`,
    expected: `every event's answer within ${ackWithinMs} ms (the spec: acknowledge quickly; do slow work after answering)`,
    status: slow.length > 0 ? 'failed' : answered.length > 0 ? 'passed' : 'skipped',
    detail:
      slow.length > 0
        ? `${slow.map(describeExchange).join('; ')} (over ${ackWithinMs} ms; ${slow.length} of ${answered.length} answers)`
        : answered.length > 0
          ? `all ${answered.length} answers within ${ackWithinMs} ms, the slowest in ${slowest} ms`
          : 'no event was answered, so there is no time to grade',
    exchanges: answered,
    processed: null,
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
  const { effects_url: effectsUrl } = options;
  const effects = effectsUrl === undefined ? undefined : () => readEffects(effectsUrl, runner);
  const checks: ReceiverCheckResult[] = [];
  for (const planned of planChecks(options, kinds)) {
    const { grade, requests, skipped, acts, ...described } = planned;
    if (skipped !== undefined) {
      checks.push({ ...described, status: 'skipped', detail: skipped, exchanges: [], processed: null });
      continue;
    }
    // What the receiver had acted on before and after this check's requests, for a check that judges it.
    const observe = acts !== undefined ? effects : undefined;
    const before = await observe?.();
    const exchanges: ReceiverExchange[] = [];
    for (const p of requests) exchanges.push(await send(p));
    const after = await observe?.();
    const failure = grade(exchanges);
    const processing = acts === undefined ? undefined : judgeProcessing(acts, before && after && { before, after });
    const problems = [failure, processing?.problem].filter((p): p is string => p !== undefined && p !== null);
    checks.push({
      ...described,
      status: problems.length === 0 ? 'passed' : 'failed',
      detail: problems.length > 0 ? problems.join('; ') : (processing?.note ?? ''),
      exchanges,
      processed: processing?.processed ?? null,
    });
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
    effects_url: effectsUrl ?? null,
    ack_within_ms: options.ack_within_ms,
    timeout_ms: runner.timeoutMs,
    started_at: startedAt.toISOString(),
    duration_ms: Math.round(performance.now() - started),
    passed: count('failed') === 0,
    counts: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    checks,
  };
}
