import { randomBytes } from 'node:crypto';
import type { EmailEventKind } from '../../../../src-shared/events';
import { webhookBody } from '../../../../src-shared/payload-format';
import type { ReceiverCheckOptions, ReceiverExchange } from '../../../../src-shared/schemas/receiver-check';
import { generateSigningSecret } from '../../dispatch/sign';
import { monotonicUlids } from '../../ids';
import { bounceDefaults, defaultPayload } from '../events/synthetic-events';

/** One request of a check: a delivery's id and body, the headers the webhook is configured with, how it is signed. */
export interface PlannedRequest {
  label: string;
  /** `webhook-id`: a delivery's id (the same for a retry of it). */
  id: string;
  body: string;
  headers: Record<string, string>;
  /** Signed with this secret (a wrong one on purpose for the bad-signature check); null: unsigned. */
  secret: string | null;
  /** Unix seconds; absent: now, as the dispatcher sends. */
  timestamp?: number;
}

/** How a check grades its answers: null when they pass, else why not, in words. */
export type Grade = (exchanges: ReceiverExchange[]) => string | null;

export interface PlannedCheck {
  id: string;
  title: string;
  expected: string;
  requests: PlannedRequest[];
  grade: Grade;
  /**
   * How many of its requests a correct receiver acts on (a duplicate: 1 of 2; two different events: 2),
   * for the checks that judge processing. Graded against the receiver's effects count when it has an
   * effects URL; without one, it is said not to be observed.
   */
  acts?: number;
  /** Why the check does not apply to this configuration (it then sends nothing). */
  skipped?: string;
}

/** Header names that say "this is the shared secret". */
const SECRET_NAME = /secret|token|auth|key|signature|password/i;

/** Whom every event of a check is about. */
const RECIPIENT = 'receiver-check@example.com';

/** Standard Webhooks receivers refuse timestamps older than 5 minutes; this is twice that. */
export const STALE_TIMESTAMP_S = 10 * 60;

/** The configured header that carries the shared secret: the one named, else the first that looks like one, else the first. */
export function secretHeaderOf(headers: Record<string, string>, named?: string): string | null {
  const names = Object.keys(headers);
  if (named !== undefined) return names.find((n) => n.toLowerCase() === named.toLowerCase()) ?? null;
  return names.find((n) => SECRET_NAME.test(n)) ?? names[0] ?? null;
}

/** A value unlike `value`, keeping an auth scheme (`Bearer `) so only the secret itself is wrong. */
export function wrongValue(value: string): string {
  const cut = value.lastIndexOf(' ') + 1;
  const secret = value.slice(cut);
  let wrong: string;
  do wrong = randomBytes(Math.max(8, secret.length)).toString('hex').slice(0, Math.max(8, secret.length));
  while (wrong === secret);
  return value.slice(0, cut) + wrong;
}

/** One answer in words: `POST http://... answered 200 {"ok":true} in 12 ms`, or why none came. */
export function describeExchange(e: ReceiverExchange): string {
  const head = `${e.label}: ${e.request.method} ${e.request.url}`;
  if (!e.response) return `${head} got no answer (${e.error?.message ?? 'unknown error'}) after ${e.duration_ms} ms`;
  const body = e.response.body.replace(/\s+/g, ' ').trim().slice(0, 120);
  return `${head} answered ${e.response.status}${body ? ` ${body}` : ''} in ${e.duration_ms} ms`;
}

const is2xx = (e: ReceiverExchange) => e.response !== null && e.response.status >= 200 && e.response.status < 300;

/** Every answer 2xx. */
const acknowledged: Grade = (exchanges) => {
  const bad = exchanges.filter((e) => !is2xx(e));
  return bad.length === 0 ? null : `${bad.map(describeExchange).join('; ')} (expected 2xx)`;
};

/** Every answer one of `statuses`. */
const rejectedWith =
  (statuses: (status: number) => boolean, words: string): Grade =>
  (exchanges) => {
    const bad = exchanges.filter((e) => e.response === null || !statuses(e.response.status));
    return bad.length === 0 ? null : `${bad.map(describeExchange).join('; ')} (expected ${words})`;
  };

/**
 * The checks of a receiver configured as `options`, each with the requests it sends, in the order they
 * are sent. The quick-ack check sends nothing: `run.ts` grades it over the event checks' answers.
 */
export function planChecks(options: ReceiverCheckOptions, kinds: readonly EmailEventKind[]): PlannedCheck[] {
  const newId = monotonicUlids();
  const secret = options.signing_secret ?? null;
  const headers = options.headers;
  const body = (kind: EmailEventKind, refId: string, extra: Record<string, unknown> = {}) => {
    const payload = { ...defaultPayload(kind, { timestamp: new Date().toISOString(), refId, recipient: RECIPIENT }), ...extra };
    return JSON.stringify(webhookBody(options.payload_format, payload as { event: EmailEventKind }));
  };
  const request = (label: string, kind: EmailEventKind, more: Partial<PlannedRequest> = {}): PlannedRequest => ({
    label,
    id: newId(),
    body: body(kind, newId()),
    headers,
    secret,
    ...more,
  });

  const checks: PlannedCheck[] = kinds.map((kind) => ({
    id: `event:${kind}`,
    title: `${/^[aeiou]/.test(kind) ? 'An' : 'A'} ${kind} event`,
    expected: 'answered 2xx',
    requests: [request(`${kind} event`, kind)],
    grade: acknowledged,
  }));

  const first = kinds[0]!;
  const dup = request(`${first} event`, first);
  checks.push({
    id: 'duplicate',
    title: 'The same event twice (one webhook-id and body, as a retry sends it)',
    expected: 'both answered 2xx, and acted on once',
    requests: [
      { ...dup, label: `${first} event, first time` },
      { ...dup, label: `${first} event, again` },
    ],
    grade: acknowledged,
    acts: 1,
  });

  const later = kinds.find((k) => k === 'click') ?? kinds.find((k) => k !== 'delivery');
  const refId = newId();
  checks.push({
    id: 'out-of-order',
    title: later ? `Events out of order (a ${later} before its delivery)` : 'Events out of order',
    expected: 'both answered 2xx, and both acted on',
    requests:
      later && kinds.includes('delivery')
        ? [
            request(`${later} event, before its delivery`, later, { body: body(later, refId) }),
            request('its delivery event, after', 'delivery', { body: body('delivery', refId) }),
          ]
        : [],
    grade: acknowledged,
    acts: 2,
    ...(later && kinds.includes('delivery') ? {} : { skipped: 'needs delivery and one other kind in the subscription' }),
  });

  // One kind twice for one recipient of one send, two events: what soft-bounce-gives-up@ sends (soft,
  // then hard), or a message opened twice. A receiver keyed on ref_id, event and recipient drops one.
  const twice = (['bounce', 'open', 'click'] as const).find((k) => kinds.includes(k));
  const message = newId();
  // A minute later, as the simulator's soft-bounce addresses give up.
  const second = { timestamp: new Date(Date.now() + 60_000).toISOString() };
  checks.push({
    id: 'same-kind-twice',
    title:
      twice === 'bounce'
        ? 'Two bounces of one message (soft, then hard: one ref_id and recipient, two webhook-ids)'
        : `Two ${twice ?? 'event'}s of one message (one ref_id and recipient, two webhook-ids)`,
    expected: 'both answered 2xx, and both acted on',
    requests:
      twice === 'bounce'
        ? [
            request('soft bounce', 'bounce', { body: body('bounce', message, bounceDefaults(RECIPIENT, { bounce_type: 'soft' })) }),
            request('then its hard bounce', 'bounce', { body: body('bounce', message, second) }),
          ]
        : twice
          ? [request(`${twice} event`, twice, { body: body(twice, message) }), request(`another ${twice} event`, twice, { body: body(twice, message, second) })]
          : [],
    grade: acknowledged,
    acts: 2,
    ...(twice ? {} : { skipped: 'needs bounce, open or click in the subscription' }),
  });

  checks.push({
    id: 'extra-fields',
    title: 'Unknown extra fields in a payload (a later version of the service adds fields)',
    expected: 'answered 2xx',
    requests: [
      request(`${first} event with unknown fields`, first, {
        body: body(first, newId(), { mailyard_future_field: 'x', mailyard_future_object: { a: 1, b: [true] } }),
      }),
    ],
    grade: acknowledged,
  });

  const secretName = secretHeaderOf(headers, options.secret_header);
  const rejects401or403 = rejectedWith((s) => s === 401 || s === 403, '401 or 403');
  const noSecret =
    'no secret header configured (give the one your receiver checks, e.g. --header "X-Webhook-Secret: ..."): the spec expects a receiver to check one';
  const without = secretName ? Object.fromEntries(Object.entries(headers).filter(([n]) => n !== secretName)) : headers;
  checks.push({
    id: 'secret-missing',
    title: secretName ? `The secret header ${secretName} missing` : 'The secret header missing',
    expected: 'rejected with 401 or 403',
    requests: secretName ? [request(`${first} event without ${secretName}`, first, { headers: without })] : [],
    grade: rejects401or403,
    ...(secretName ? {} : { skipped: noSecret }),
  });
  checks.push({
    id: 'secret-wrong',
    title: secretName ? `The secret header ${secretName} wrong` : 'The secret header wrong',
    expected: 'rejected with 401 or 403',
    requests: secretName
      ? [request(`${first} event with a wrong ${secretName}`, first, { headers: { ...without, [secretName]: wrongValue(headers[secretName]!) } })]
      : [],
    grade: rejects401or403,
    ...(secretName ? {} : { skipped: noSecret }),
  });

  const rejects4xx = rejectedWith((s) => s >= 400 && s < 500, 'a 4xx rejection');
  const unsigned = "signing is off (give the account's signing secret, whsec_..., to check signatures)";
  checks.push({
    id: 'signature-bad',
    title: 'A bad webhook-signature (signed with another secret)',
    expected: 'rejected with a 4xx',
    requests: secret ? [request(`${first} event with a bad signature`, first, { secret: generateSigningSecret() })] : [],
    grade: rejects4xx,
    ...(secret ? {} : { skipped: unsigned }),
  });
  checks.push({
    id: 'timestamp-stale',
    title: `A stale webhook-timestamp (${STALE_TIMESTAMP_S / 60} minutes old, correctly signed)`,
    expected: 'rejected with a 4xx (Standard Webhooks tolerates 5 minutes)',
    requests: secret ? [request(`${first} event with a stale timestamp`, first, { timestamp: Math.floor(Date.now() / 1000) - STALE_TIMESTAMP_S })] : [],
    grade: rejects4xx,
    ...(secret ? {} : { skipped: unsigned }),
  });
  return checks;
}
