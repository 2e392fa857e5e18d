import { z } from 'zod';
import { pageSizeParam, Timestamp } from './common';

/** The bounds of catchers (docs/limits.md): what one may be told, and what is kept of what it receives. */
export const CATCHER_LIMITS = {
  /** Catchers an account may have at once. */
  perAccount: 20,
  /** Requests kept per catcher; the oldest are dropped past it. */
  requestsKept: 200,
  /** Bytes of a request's body that are stored; the rest is counted but dropped (`body_truncated`). */
  bodyKeptBytes: 64 * 1024,
  /** Bytes a catcher keeps of all its requests' bodies and headers; the oldest requests are dropped past it. */
  storedBytes: 4 * 1024 * 1024,
  /** The largest request body a catcher reads (a larger one is answered 413 and not recorded). */
  bodyReadBytes: 1024 * 1024,
  /** The longest delay an answer may be told to wait. */
  maxDelayMs: 120_000,
  /**
   * How long a hanging catcher holds a request before it closes the connection: past any webhook
   * attempt's time-out (15 s unless changed), and the listener's idle time-out (`httpIdleTimeoutMs`,
   * 120 s) would close a silent connection then anyway.
   */
  hangMs: 120_000,
  /** Requests one catcher holds at once (hanging, or waiting out a delay); one more is answered 503 at once. */
  heldPerCatcher: 100,
  /** Requests all catchers together hold at once; one more is answered 503 at once. */
  heldInAll: 200,
} as const;

const headerName = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');

/**
 * How a catcher answers. Taken in this order: a `require_header` it lacks (401); `hang` (no answer at
 * all, until the sender gives up); `delay_ms`; a failure of the `fail_percent` share (`fail_status`);
 * else `status`.
 */
export const CatcherMode = z.strictObject({
  status: z.number().int().min(200, 'must be from 200 to 599').max(599, 'must be from 200 to 599').default(200),
  delay_ms: z.number().int().min(0).max(CATCHER_LIMITS.maxDelayMs, `must be at most ${CATCHER_LIMITS.maxDelayMs}`).default(0),
  hang: z.boolean().default(false),
  /**
   * The share of requests answered `fail_status`, in percent. Deterministic: the n-th request fails when
   * the count of failures due by n (n × percent / 100, rounded down) grows at n, so 30 fails the 4th,
   * 7th and 10th of every ten, and exactly that share of any run.
   */
  fail_percent: z.number().int().min(0).max(100, 'must be from 0 to 100').default(0),
  fail_status: z.number().int().min(400, 'must be from 400 to 599').max(599, 'must be from 400 to 599').default(500),
  /** Answer 401 unless the request has this header with this value (a receiver checking its shared secret). */
  require_header: z
    .strictObject({ name: headerName, value: z.string().max(1000, 'must be at most 1000 characters') })
    .nullable()
    .default(null),
});
export type CatcherMode = z.infer<typeof CatcherMode>;
export type CatcherModeInput = z.input<typeof CatcherMode>;

export const Catcher = z
  .object({
    id: z.string(),
    account_id: z.string(),
    name: z.string(),
    /** Where to send requests: Mailyard's own listener, `/catch/{id}`. */
    url: z.string(),
    mode: CatcherMode,
    /** Requests received since it was created (the kept ones are the newest `requests_kept`). */
    requests_received: z.number().int(),
    requests_kept: z.number().int(),
    created_at: Timestamp,
  })
  .meta({ id: 'Catcher' });
export type Catcher = z.infer<typeof Catcher>;

export const SIGNATURE_VERDICTS = ['valid', 'invalid', 'stale', 'unsigned', 'no_secret'] as const;

export const CatcherRequest = z
  .object({
    id: z.string(),
    catcher_id: z.string(),
    /** The catcher's number for it: 1 for the first request it received. */
    number: z.number().int(),
    method: z.string(),
    /** Path and query as received. */
    path: z.string(),
    headers: z.record(z.string(), z.string()),
    /** The body as UTF-8 text (its first `bodyKeptBytes`). */
    body: z.string(),
    body_bytes: z.number().int(),
    body_truncated: z.boolean(),
    received_at: Timestamp,
    /** The emulator's clock when it arrived (differs from received_at once the clock is moved). */
    emulator_at: Timestamp,
    /** What it was answered (0: nothing, it hung until the sender gave up). */
    answered_status: z.number().int(),
    /**
     * What decided the answer: `status`, `delay`, `hang`, `fail_share`, `missing_header`, `too_large`,
     * `held_limit` (a hang or delay refused with 503: the catcher, or all catchers, held their most at once).
     */
    answered_because: z.string(),
    /**
     * Whether `webhook-signature` verifies with the account's signing secret: `stale` (it does, but its
     * `webhook-timestamp` is more than 5 minutes from wall time, which Standard Webhooks receivers
     * reject), `unsigned` (no signature header), `no_secret` (the account has no secret to check it with).
     */
    signature: z.enum(SIGNATURE_VERDICTS),
    /**
     * The delivery whose request it is (found by its `webhook-id` header), when it is one of this
     * emulator's: the one that sent it, or the one it is a copy of.
     */
    delivery_id: z.string().nullable(),
    /**
     * Which attempt of that delivery it is, numbered as the delivery's attempt log numbers them (1 the
     * first, 2 the first retry or replay...); null when the dispatcher did not send it: a copy of the
     * delivery's request sent by someone else (Copy as curl), not an attempt.
     */
    attempt: z.number().int().nullable(),
  })
  .meta({ id: 'CatcherRequest' });
export type CatcherRequest = z.infer<typeof CatcherRequest>;

const accountId = z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters');

export const CatcherIdParams = z.strictObject({ id: z.string().min(1).max(64) });
export const CatcherAccountQuery = z.strictObject({ account_id: accountId.optional() });
export const CreateCatcherBody = z
  .strictObject({
    account_id: accountId.optional(),
    name: z.string().max(100, 'must be at most 100 characters').optional(),
    mode: CatcherMode.optional(),
  })
  .optional();
export const UpdateCatcherBody = z.strictObject({
  name: z.string().max(100, 'must be at most 100 characters').optional(),
  mode: CatcherMode.optional(),
});
export const CatcherList = z.object({ catchers: z.array(Catcher) });
export const CatcherRequestsQuery = z.strictObject({ limit: pageSizeParam(200, 50), cursor: z.string().max(200).optional() });
export const CatcherRequestPage = z.object({ requests: z.array(CatcherRequest), next_cursor: z.string().nullable() });
export const DeleteCatcherResult = z.object({ id: z.string(), deleted: z.literal(true) });
export const UseCatcherResult = z.object({
  catcher_id: z.string(),
  account_id: z.string(),
  webhook_url: z.string(),
  /** Whether the account's EMAIL_EVENT webhook was created (else an existing one was pointed here). */
  created: z.boolean(),
});
