import { z } from 'zod';
import { PAYLOAD_FORMATS } from '../payload-format';
import { EmailEventKindSchema } from './events';
import { WebhookHeaders, WebhookMethod, WebhookUrl } from './webhooks';

/**
 * The bounds of a receiver check (docs/limits.md). "Acknowledge quickly" (spec 6.4) is graded against
 * `ackWithinMs`: 5 s by default, a third of the dispatcher's 15 s attempt time-out, so an endpoint that
 * passes has room to spare under load.
 */
export const RECEIVER_CHECK_LIMITS = {
  defaultAckWithinMs: 5_000,
  minAckWithinMs: 50,
  maxAckWithinMs: 15_000,
  /** Of each answer's body, the report keeps this many bytes. */
  responseBodyKeptBytes: 2_048,
} as const;

/** What to check: the receiver's URL and what its webhook is configured with. */
export const ReceiverCheckBody = z
  .object({
    url: WebhookUrl,
    method: WebhookMethod.default('POST'),
    /** The webhook's custom headers, sent with every request but those of the secret-header checks. */
    headers: WebhookHeaders.default({}),
    /** Which of `headers` is the shared secret; default: the first whose name looks like one (secret, token, auth, key, signature), else the first. */
    secret_header: z.string().min(1).max(256).optional(),
    /** The subscription's event kinds (default: every kind). */
    events: z.array(EmailEventKindSchema).min(1, 'must name at least one event kind').optional(),
    payload_format: z.enum(PAYLOAD_FORMATS, { error: `must be one of ${PAYLOAD_FORMATS.join(', ')}` }).default('spec'),
    /** The account's Standard Webhooks secret (`whsec_...`): requests are signed, and the signing checks run. */
    signing_secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'must be a Standard Webhooks secret: whsec_ and base64')
      .optional(),
    ack_within_ms: z
      .number()
      .int()
      .min(RECEIVER_CHECK_LIMITS.minAckWithinMs)
      .max(RECEIVER_CHECK_LIMITS.maxAckWithinMs)
      .default(RECEIVER_CHECK_LIMITS.defaultAckWithinMs),
    /**
     * A URL the receiver answers a GET at with JSON `{"processed": N}`: the number of events it has acted
     * on so far. Read before and after the checks that judge processing (a duplicate acted on once, two
     * different events both acted on); without it, those checks grade the answers only and say so.
     */
    effects_url: WebhookUrl.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    const name = body.secret_header;
    if (name !== undefined && !Object.keys(body.headers).some((h) => h.toLowerCase() === name.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: ['secret_header'], message: 'must name one of headers' });
    }
  });
export type ReceiverCheckBody = z.input<typeof ReceiverCheckBody>;
export type ReceiverCheckOptions = z.output<typeof ReceiverCheckBody>;

/** One request a check sent and what came back. */
export const ReceiverExchange = z.object({
  /** What this request is, in words (e.g. `delivery event`, `secret header X-Secret wrong`). */
  label: z.string(),
  request: z.object({ method: z.string(), url: z.string(), headers: z.record(z.string(), z.string()), body: z.string() }),
  /** Null when no answer came (refused, timed out, ...: `error` says). */
  response: z.object({ status: z.number().int(), body: z.string(), truncated: z.boolean() }).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  duration_ms: z.number().int(),
});
export type ReceiverExchange = z.infer<typeof ReceiverExchange>;

export const RECEIVER_CHECK_STATUSES = ['passed', 'failed', 'skipped'] as const;

export const ReceiverCheckResult = z.object({
  /** Stable name: `event:delivery`, `quick-ack`, `duplicate`, `out-of-order`, `secret-missing`, ... */
  id: z.string(),
  title: z.string(),
  /** What a correct receiver does. */
  expected: z.string(),
  status: z.enum(RECEIVER_CHECK_STATUSES),
  /** Why it failed or was skipped, naming the request and answer; empty when it passed. */
  detail: z.string(),
  exchanges: z.array(ReceiverExchange),
  /**
   * For a check that judges processing (`duplicate`, `out-of-order`, `same-kind-twice`): how many of its
   * events a correct receiver acts on, and how much the effects URL's `processed` grew while it ran
   * (null: not observed, with no effects URL or when it could not be read). Null for the other checks.
   */
  processed: z.object({ expected: z.number().int(), observed: z.number().int().nullable() }).nullable(),
});
export type ReceiverCheckResult = z.infer<typeof ReceiverCheckResult>;

export const ReceiverCheckReport = z.object({
  url: z.string(),
  method: z.string(),
  payload_format: z.enum(PAYLOAD_FORMATS),
  events: z.array(EmailEventKindSchema),
  secret_header: z.string().nullable(),
  signed: z.boolean(),
  /** Where the receiver's effects count was read (see the body's `effects_url`); null: processing was not observed. */
  effects_url: z.string().nullable(),
  ack_within_ms: z.number().int(),
  /** Each request's time-out: the dispatcher's attempt time-out. */
  timeout_ms: z.number().int(),
  started_at: z.string(),
  duration_ms: z.number().int(),
  passed: z.boolean(),
  counts: z.object({ passed: z.number().int(), failed: z.number().int(), skipped: z.number().int() }),
  checks: z.array(ReceiverCheckResult),
});
export type ReceiverCheckReport = z.infer<typeof ReceiverCheckReport>;
