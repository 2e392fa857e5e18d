import { z } from 'zod';
import { withThousands } from '../format';
import { pageSizeParam, Timestamp } from './common';
import { EmailEventKindSchema } from './events';
import { waitMsParam } from './messages';

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed', 'cancelled'] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const ATTEMPT_ERROR_CODES = ['refused', 'timeout', 'tls', 'dns', 'reset', 'network', 'redirect', 'interrupted'] as const;

/** How much of a delivery's bodies the control API answers and the store keeps (docs/limits.md). */
export const DELIVERY_BODY_LIMITS = {
  /** A payload up to this many bytes is answered whole in a delivery's detail; a larger one as its first this many bytes. */
  payloadShownBytes: 256 * 1024,
  /** An attempt's request body (the payload) when the payload is over `payloadShownBytes`: its first this many bytes. */
  requestBodyShownBytes: 8 * 1024,
  /** What the latest attempt of a delivery keeps of its response body. */
  responseBodyKeptBytes: 8 * 1024,
  /** What an earlier attempt keeps of its response body once a later attempt of its delivery is recorded. */
  earlierResponseBodyKeptChars: 1024,
} as const;

/** Where a delivery's whole payload is served (`GET`, application/json, as stored). */
export const deliveryPayloadPath = (id: string): string => `/emulator/deliveries/${encodeURIComponent(id)}/payload`;

export const DeliverySummary = z
  .object({
    id: z.string(),
    account_id: z.string(),
    category: z.string(),
    event: z.string(),
    ref_id: z.string().nullable(),
    /**
     * Whom the payload is about (`recipient.email`, or an inbound post's `recipient`) and its subject (the
     * payload's, else the send's); null when it has none. Left out of the live `delivery.updated`
     * announcements, which carry only what an attempt changes besides.
     */
    recipient: z.string().nullable().optional(),
    subject: z.string().nullable().optional(),
    target: z.object({ kind: z.string(), id: z.string(), url: z.string() }),
    status: DeliveryStatus,
    attempts: z.number().int(),
    next_attempt_at: Timestamp.nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'DeliverySummary' });
export type DeliverySummary = z.infer<typeof DeliverySummary>;

export const AttemptRecord = z
  .object({
    number: z.number().int(),
    trigger: z.enum(['scheduled', 'manual', 'recovered']),
    outcome: z.enum(['succeeded', 'failed']),
    started_at: Timestamp,
    duration_ms: z.number().int(),
    request: z.object({
      method: z.string(),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      /** The payload sent; its first `requestBodyShownBytes` when the payload is over `payloadShownBytes` (whole at the delivery's `payload_url`). */
      body: z.string(),
      body_truncated: z.boolean(),
      /** The size of the whole body sent, in bytes. */
      body_bytes: z.number().int(),
    }),
    response: z
      .object({
        status: z.number().int(),
        headers: z.record(z.string(), z.string()),
        /** The first `responseBodyKeptBytes` of the body (an earlier attempt's: its first `earlierResponseBodyKeptChars` characters). */
        body: z.string(),
        /** The receiver sent more than `body`. */
        truncated: z.boolean(),
      })
      .nullable(),
    error: z.object({ code: z.enum(ATTEMPT_ERROR_CODES), message: z.string() }).nullable(),
  })
  .meta({ id: 'DeliveryAttempt' });
export type AttemptRecord = z.infer<typeof AttemptRecord>;

export const DeliveryDetail = DeliverySummary.extend({
  /** The payload (JSON), or null when it is over `payloadShownBytes` (`payload_truncated`): then see `payload_preview` and `payload_url`. */
  payload: z.unknown(),
  /** The payload's size as sent, in bytes of JSON. */
  payload_bytes: z.number().int(),
  /** The payload is over `payloadShownBytes`: `payload` is null and `payload_preview` holds its first bytes. */
  payload_truncated: z.boolean(),
  /** When truncated, the first `payloadShownBytes` of the payload's JSON text (cut before a character that would not fit); else null. */
  payload_preview: z.string().nullable(),
  /** Where the whole payload is served as stored (application/json): `/emulator/deliveries/{id}/payload`. */
  payload_url: z.string(),
  /**
   * The `webhook-id` its requests carry: its `id`, or for a scenario's duplicate (the same event
   * delivered again) its original's.
   */
  webhook_id: z.string(),
  attempt_log: z.array(AttemptRecord),
}).meta({ id: 'DeliveryDetail' });
export type DeliveryDetail = z.infer<typeof DeliveryDetail>;

/** A list filter's statuses: the stored ones, and `failing` (pending or sending after at least one failed attempt, so retrying). */
export const DELIVERY_LIST_STATUSES = [...DELIVERY_STATUSES, 'failing'] as const;
export const DeliveryListStatus = z.enum(DELIVERY_LIST_STATUSES, { error: `must be one of ${DELIVERY_LIST_STATUSES.join(', ')}` });
export type DeliveryListStatus = z.infer<typeof DeliveryListStatus>;

const deliveryFilters = {
  status: DeliveryListStatus.optional(),
  event: z.string().max(64).optional(),
  ref_id: z.string().max(128).optional(),
  category: z.string().max(64).optional(),
  target_id: z.string().max(64).optional(),
  account_id: z.string().max(64).optional(),
  /**
   * Text in the recipient, the target URL or the payload (case-insensitive). An address (also pasted as
   * `Ann <ann@example.com>` or `mailto:ann@example.com`) matches deliveries to it, or whose payload names
   * it as a whole value.
   */
  q: z.string().max(320).optional(),
  /** The recipient's address, exactly (case-insensitive). */
  recipient: z.string().max(320).optional(),
};

export const ListDeliveriesQuery = z.strictObject({
  ...deliveryFilters,
  limit: pageSizeParam(500, 50),
  cursor: z.string().max(200).optional(),
});

export const CountDeliveriesQuery = z.strictObject(deliveryFilters);

/** A wait for webhook deliveries: the list's filters, answered as soon as one matches (or after wait_ms). */
export const WaitDeliveriesQuery = z.strictObject({
  ...deliveryFilters,
  wait_ms: waitMsParam,
  /** Matches answered at most (the oldest first). */
  limit: pageSizeParam(100, 10),
});

export const WaitDeliveriesResult = z.object({
  /** The matching deliveries, oldest first (at most `limit`); empty when the wait ran out. */
  deliveries: z.array(DeliverySummary),
  timed_out: z.boolean(),
  waited_ms: z.number().int().nonnegative(),
});
export const DeliveryCount = z.object({ count: z.number().int() }).meta({ id: 'DeliveryCount' });

export const DeliveryPage = z.object({ deliveries: z.array(DeliverySummary), next_cursor: z.string().nullable() });

export const ListEndpointsQuery = z.strictObject({ account_id: z.string().max(64).optional() });

/** One target deliveries go to (a webhook, an inbound route, an IMAP webhook), with its deliveries counted. */
export const EndpointStats = z
  .object({
    target: z.object({ kind: z.string(), id: z.string(), url: z.string() }),
    account_id: z.string(),
    deliveries: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    /** Waiting for an attempt (or being sent), failing ones included. */
    pending: z.number().int(),
    /** Pending or sending after at least one failed attempt: retrying. */
    failing: z.number().int(),
    cancelled: z.number().int(),
    attempts: z.number().int(),
    failed_attempts: z.number().int(),
    /** Failed attempts over attempts (0 to 1); null before the first attempt. */
    failure_rate: z.number().nullable(),
    last_attempt_at: Timestamp.nullable(),
  })
  .meta({ id: 'EndpointStats' });
export type EndpointStats = z.infer<typeof EndpointStats>;
export const EndpointList = z.object({ endpoints: z.array(EndpointStats) });

export const DeliveryIdParams = z.strictObject({ id: z.string().min(1).max(64) });

/** An edited resend: the body to send instead of the delivery's, sent and signed as given. */
export const ResendDeliveryBody = z
  .strictObject({
    payload: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }),
  })
  .meta({ id: 'ResendDeliveryBody' });

/** A delivery's request as an attempt would send it now, signed at this moment. */
export const SignedDeliveryRequest = z
  .object({
    method: z.string(),
    url: z.string(),
    /** The Standard Webhooks headers with a fresh `webhook-timestamp` and its signature(s), then the target's own. */
    headers: z.record(z.string(), z.string()),
    /** The payload as sent; null when it is over `payloadShownBytes` (the curl command then reads the file `payload_url` downloads). */
    body: z.string().nullable(),
    payload_url: z.string(),
    /** When it was signed (wall time, as `webhook-timestamp`): a receiver with the usual 5-minute tolerance accepts it until 5 minutes later. */
    signed_at: Timestamp,
    /** The request as a curl command (POSIX shell quoting). */
    curl: z.string(),
  })
  .meta({ id: 'SignedDeliveryRequest' });

/** One delivery target: its kind (`webhook`, an inbound route, an IMAP webhook) and id, as `EndpointStats.target` names it. */
export const EndpointParams = z.strictObject({ kind: z.string().min(1).max(64), id: z.string().min(1).max(320) });

/** Deliveries one "retry all failing" sends at most; a larger backlog takes several. */
export const MAX_RETRY_FAILING = 1000;

export const RetryFailingResult = z
  .object({
    /** The deliveries being retried, oldest first (manual attempts, at most the target's slot count at a time). */
    delivery_ids: z.array(z.string()),
    /** Failed or waiting for a retry beyond the MAX_RETRY_FAILING sent now. */
    left: z.number().int(),
  })
  .meta({ id: 'RetryFailingResult' });

export const ClockState = z
  .object({
    now: Timestamp,
    now_ms: z.number().int(),
    speed: z.number(),
    offset_ms: z.number().int(),
    /** When the next scheduled delivery attempt is due, if any. */
    next_due_at: Timestamp.nullable(),
    /** When the next simulated email event happens, if any is scheduled. */
    next_event_at: Timestamp.nullable(),
    /**
     * That event, so a person knows what a jump to it shows: its kind (`delivery`, `bounce`, ...), the
     * copy it happens to and that copy's recipient; null when none is scheduled.
     */
    next_event: z.object({ at: Timestamp, event: z.string(), message_id: z.string(), recipient: z.string() }).nullable().meta({ id: 'NextSimulatedEvent' }),
    pending_deliveries: z.number().int(),
    /**
     * Webhook attempts on the wire. After `POST /emulator/clock`, the attempts that fell due but whose
     * receiver had not answered when the move stopped waiting (see the clock move's settling).
     */
    in_flight: z.number().int(),
  })
  .meta({ id: 'ClockState' });
export type ClockState = z.infer<typeof ClockState>;

export const MAX_CLOCK_SPEED = 100_000;
export const MAX_CLOCK_ADVANCE_MS = 366 * 24 * 3600 * 1000;

export const ClockBody = z
  .strictObject({
    speed: z
      .number({ error: 'must be a number' })
      .min(0, 'must be at least 0 (0 pauses the clock)')
      .max(MAX_CLOCK_SPEED, `must be at most ${withThousands(MAX_CLOCK_SPEED)} times real time`)
      .optional(),
    // The bounds first, each ending the checks: a jump too large to be a safe integer is over the limit, not "not whole".
    advance_ms: z
      .number({ error: 'must be a number of milliseconds' })
      .min(0, { error: 'must be at least 0: the clock never goes back', abort: true })
      .max(MAX_CLOCK_ADVANCE_MS, { error: `must be at most 366 days (${withThousands(MAX_CLOCK_ADVANCE_MS)} ms)`, abort: true })
      .int('must be a whole number of milliseconds')
      .optional(),
  })
  .meta({ id: 'ClockBody' });

export const FireEventBody = z
  .strictObject({
    event: EmailEventKindSchema,
    /** Which account's webhook filter applies; the default account when absent. */
    account_id: z.string().max(64).optional(),
    /** A stored send the event is about (404 when there is none); leave it out for a free-standing event with a generated ref_id, or set `fields.ref_id`. */
    ref_id: z.string().min(1).max(128).optional(),
    recipient: z.string().min(3).max(320).optional(),
    /** Payload fields to set or override; the result must still match the event's payload schema. */
    fields: z.record(z.string(), z.unknown()).optional(),
    /** Build the payload and say whether the webhook filter would send it, without sending or recording anything. */
    dry_run: z.boolean().optional(),
  })
  .meta({ id: 'FireEventBody' });

export const FireEventResult = z
  .object({
    payload: z.record(z.string(), z.unknown()),
    /** The delivery that carries it, or null when the webhook filter did not send it. */
    delivery_id: z.string().nullable(),
    sent: z.boolean(),
    /** Why it was not sent, in words. */
    reason: z.string().nullable(),
    /** Present on a dry run: `sent` then says whether it would be sent. */
    dry_run: z.boolean().optional(),
  })
  .meta({ id: 'FireEventResult' });

export const SigningSecret = z.string().regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'must be whsec_ followed by at least 24 bytes of base64');

/** How long a replaced signing secret still signs by default: a day on the emulator clock. */
export const DEFAULT_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;
/** The longest grace period a rotation may ask for: 30 days. */
export const MAX_SECRET_GRACE_MS = 30 * DEFAULT_SECRET_GRACE_MS;

export const SetSigningSecretBody = z
  .strictObject({
    secret: SigningSecret.optional(),
    /**
     * When the account already signs: how long the secret replaced still signs too (a second
     * signature in the same header), in emulator-clock milliseconds; 0 ends it at once. Default a day.
     */
    grace_period_ms: z
      .number({ error: 'must be a number of milliseconds' })
      .int('must be a whole number of milliseconds')
      .min(0, 'must be at least 0 (0: the old secret stops signing at once)')
      .max(MAX_SECRET_GRACE_MS, `must be at most 30 days (${withThousands(MAX_SECRET_GRACE_MS)} ms)`)
      .optional(),
  })
  .meta({ id: 'SetSigningSecretBody' });
export const AccountIdParams = z.strictObject({ id: z.string().min(1).max(64) });
