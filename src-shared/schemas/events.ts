import { z } from 'zod';
import { Timestamp } from './common';
import { DomainDnsRecords } from './domains';

/**
 * One schema per webhook payload. The six of the service spec (part 6.3) are exact; the other six and
 * the domain notification follow the contract (API.md part 3). Objects are strict: a payload carries
 * exactly these fields.
 */
const common = {
  timestamp: Timestamp,
  ref_id: z.string().min(1),
  campaign_id: z.string(),
  custom_args: z.record(z.string(), z.string()),
};
const recipient = z.strictObject({ email: z.string() });

export const DeliveryPayload = z
  .strictObject({
    event: z.literal('delivery'),
    ...common,
    recipient: z.strictObject({ email: z.string(), name: z.string() }),
    sender: z.strictObject({ email: z.string(), name: z.string() }),
    subject: z.string(),
    mailer_id: z.string(),
  })
  .meta({ id: 'DeliveryEvent' });

export const OpenPayload = z
  .strictObject({
    event: z.literal('open'),
    ...common,
    recipient,
    user_agent: z.string(),
    ip_address: z.string(),
    geo_location: z.strictObject({ country: z.string(), city: z.string() }),
  })
  .meta({ id: 'OpenEvent' });

export const ClickPayload = z
  .strictObject({
    event: z.literal('click'),
    ...common,
    recipient,
    url: z.string(),
    link_name: z.string(),
    user_agent: z.string(),
    ip_address: z.string(),
  })
  .meta({ id: 'ClickEvent' });

export const BouncePayload = z
  .strictObject({
    event: z.literal('bounce'),
    ...common,
    recipient,
    bounce_type: z.enum(['hard', 'soft']),
    bounce_category: z.string(),
    bounce_reason: z.string(),
  })
  .meta({ id: 'BounceEvent' });

export const SpamPayload = z.strictObject({ event: z.literal('spam'), ...common, recipient }).meta({ id: 'SpamEvent' });

export const UnsubscribePayload = z.strictObject({ event: z.literal('unsubscribe'), ...common, recipient }).meta({ id: 'UnsubscribeEvent' });

export const PolicyRejectionPayload = z
  .strictObject({ event: z.literal('policy_rejection'), ...common, recipient, reason: z.string(), rule: z.string() })
  .meta({ id: 'PolicyRejectionEvent' });

export const GenerationFailurePayload = z
  .strictObject({ event: z.literal('generation_failure'), ...common, recipient, reason: z.string(), error_code: z.string() })
  .meta({ id: 'GenerationFailureEvent' });

export const GenerationRejectionPayload = z
  .strictObject({ event: z.literal('generation_rejection'), ...common, recipient, reason: z.string() })
  .meta({ id: 'GenerationRejectionEvent' });

export const SmtpErrorPayload = z
  .strictObject({
    event: z.literal('smtp_error'),
    ...common,
    recipient,
    mailer_id: z.string(),
    smtp_code: z.number().int(),
    smtp_response: z.string(),
  })
  .meta({ id: 'SmtpErrorEvent' });

export const PhishingPayload = z
  .strictObject({ event: z.literal('phishing'), ...common, recipient, reason: z.string(), urls: z.array(z.string()) })
  .meta({ id: 'PhishingEvent' });

export const ImapErrorPayload = z
  .strictObject({ event: z.literal('imap_error'), ...common, mailer_id: z.string(), host: z.string(), error: z.string() })
  .meta({ id: 'ImapErrorEvent' });

export const DomainVerificationPayload = z
  .strictObject({
    event: z.literal('domain_verification'),
    timestamp: Timestamp,
    domain: z.string(),
    status: z.enum(['pending', 'verified', 'failed']),
    previous_status: z.enum(['pending', 'verified', 'failed']),
    /** The domain's `mailer_id` (`domain_` + a ULID). */
    mailer_id: z.string(),
    /** Every record by name (`spf`, `dkim`, `return_path`, `mx` while inbound routing uses the domain), as verifyDomain gives them. */
    records: DomainDnsRecords,
    reason: z.string().optional(),
  })
  .meta({ id: 'DomainVerificationNotification' });

/**
 * The email event kinds of the service (spec part 2.2 / 6.2), in the spec's order, each with its
 * payload schema. The kinds are this table's keys (EMAIL_EVENT_KINDS): a new kind starts here, with
 * its payload, and every place that must say what a kind does is a table keyed by `EmailEventKind`,
 * so the compiler names each (docs/architecture.md, "Recipe: add an event kind").
 */
export const EMAIL_EVENT_PAYLOADS = {
  delivery: DeliveryPayload,
  open: OpenPayload,
  click: ClickPayload,
  bounce: BouncePayload,
  spam: SpamPayload,
  unsubscribe: UnsubscribePayload,
  policy_rejection: PolicyRejectionPayload,
  generation_failure: GenerationFailurePayload,
  generation_rejection: GenerationRejectionPayload,
  smtp_error: SmtpErrorPayload,
  phishing: PhishingPayload,
  imap_error: ImapErrorPayload,
} as const satisfies Record<string, z.ZodObject>;

export type EmailEventKind = keyof typeof EMAIL_EVENT_PAYLOADS;
/** The kinds, in the table's order. Everything that names the kinds or counts them reads this list. */
export const EMAIL_EVENT_KINDS = Object.keys(EMAIL_EVENT_PAYLOADS) as readonly EmailEventKind[] as readonly [EmailEventKind, ...EmailEventKind[]];

export const EmailEventPayload = z.discriminatedUnion('event', Object.values(EMAIL_EVENT_PAYLOADS) as never);
export type EmailEventPayload = { [K in EmailEventKind]: z.infer<(typeof EMAIL_EVENT_PAYLOADS)[K]> }[EmailEventKind];
export type DomainVerificationPayload = z.infer<typeof DomainVerificationPayload>;

/**
 * Whether events of `kind` are about a stored copy: their payload names its recipient. The others
 * (`imap_error`) are about a mailer's connection and link to no message.
 */
export function isCopyEvent(kind: string): boolean {
  return Object.hasOwn(EMAIL_EVENT_PAYLOADS, kind) && 'recipient' in EMAIL_EVENT_PAYLOADS[kind as EmailEventKind].shape;
}

export const EmailEventKindSchema = z.enum(EMAIL_EVENT_KINDS, { error: `must be one of ${EMAIL_EVENT_KINDS.join(', ')}` });
