import { z } from 'zod';
import { pageSizeParam, Timestamp } from './common';
import { DomainName } from './domains';
import { EmailAddress, EmailAttachment, EmailRecipient } from './email';
import { WebhookHeaders, WebhookMethod, WebhookUrl } from './webhooks';

/** Explicit limits of inbound routing (docs/limits.md). */
export const INBOUND_LIMITS = {
  /** A local part (RFC 5321: 64 octets). */
  usernameLength: 64,
  /** Recipients of one simulated inbound email. */
  recipients: 100,
} as const;

/** A local part: printable ASCII or UTF-8 without spaces, `@`, angle brackets or quotes. */
export const InboundUsername = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(INBOUND_LIMITS.usernameLength, `must be at most ${INBOUND_LIMITS.usernameLength} characters`)
  .regex(/^[^\s@<>"(),;:\\[\]]+$/, 'must be the part of an address before the @, without spaces or @')
  .meta({ example: 'support' });

export const InboundDomainParams = z.strictObject({ domain: DomainName });
export const InboundUsernameParams = z.strictObject({ domain: DomainName, username: InboundUsername });

/** The inbound guide's `wildcard`: the domain accepts mail for every username (no username lookup). */
const Wildcard = z.boolean({ error: 'must be true or false' });
/** The inbound guide's strict reply mode: only replies (In-Reply-To/References) to a message the account sent are accepted. */
const StrictReplies = z.boolean({ error: 'must be true or false' });

/**
 * The inbound guide's acceptance rules (guides/inbound-email), highest first: the first that applies
 * decides whether a recipient's mail is accepted and posted (docs/inbound.md).
 */
export const INBOUND_RULES = ['Wildcard Domain', 'Strict Reply Mode', 'Username Match', 'Reject'] as const;
export const InboundRule = z.enum(INBOUND_RULES).meta({ id: 'InboundRule' });
export type InboundRule = z.infer<typeof InboundRule>;

/** configureInboundRouting (spec part 2.8, with the inbound guide's `wildcard` and `strict_replies`). */
export const ConfigureInboundDomainBody = z
  .strictObject({
    domain: DomainName,
    url: WebhookUrl,
    method: WebhookMethod,
    headers: WebhookHeaders.optional(),
    wildcard: Wildcard.optional(),
    strict_replies: StrictReplies.optional(),
  })
  .meta({ id: 'ConfigureInboundDomainBody' });
export type ConfigureInboundDomainBody = z.infer<typeof ConfigureInboundDomainBody>;

/** updateInboundDomain: the fields given replace the stored ones (`headers` wholesale). */
export const UpdateInboundDomainBody = z
  .strictObject({
    url: WebhookUrl.optional(),
    method: WebhookMethod.optional(),
    headers: WebhookHeaders.optional(),
    wildcard: Wildcard.optional(),
    strict_replies: StrictReplies.optional(),
  })
  .meta({ id: 'UpdateInboundDomainBody' });
export type UpdateInboundDomainBody = z.infer<typeof UpdateInboundDomainBody>;

/** createInboundUsername: without `url`, mail for the username goes to the domain's URL. */
export const CreateInboundUsernameBody = z
  .strictObject({
    domain: DomainName,
    username: InboundUsername,
    url: WebhookUrl.optional(),
    method: WebhookMethod.optional(),
    headers: WebhookHeaders.optional(),
  })
  .meta({ id: 'CreateInboundUsernameBody' });
export type CreateInboundUsernameBody = z.infer<typeof CreateInboundUsernameBody>;

/** updateInboundUsername: `url: null` goes back to the domain's URL, method and headers. */
export const UpdateInboundUsernameBody = z
  .strictObject({
    url: WebhookUrl.nullable().optional(),
    method: WebhookMethod.optional(),
    headers: WebhookHeaders.optional(),
  })
  .meta({ id: 'UpdateInboundUsernameBody' });
export type UpdateInboundUsernameBody = z.infer<typeof UpdateInboundUsernameBody>;

export const InboundDomainRecord = z
  .object({
    domain: z.string(),
    url: z.string(),
    method: WebhookMethod,
    headers: z.record(z.string(), z.string()),
    /** Accepts mail for every username of the domain (the guide's first rule); subdomains are not included. */
    wildcard: z.boolean(),
    /** Strict reply mode (the guide's second rule): only replies to a message the account sent are accepted. */
    strict_replies: z.boolean(),
    usernames: z.array(z.string()),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'InboundDomainRecord' });
export type InboundDomainRecord = z.infer<typeof InboundDomainRecord>;

export const InboundUsernameRecord = z
  .object({
    domain: z.string(),
    username: z.string(),
    /** Its own URL, or null when mail goes to the domain's. */
    url: z.string().nullable(),
    method: WebhookMethod.nullable(),
    headers: z.record(z.string(), z.string()).nullable(),
    /** Where its mail is posted now: its own settings, else the domain's. */
    effective: z.object({ url: z.string(), method: WebhookMethod, headers: z.record(z.string(), z.string()) }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'InboundUsernameRecord' });
export type InboundUsernameRecord = z.infer<typeof InboundUsernameRecord>;

const Address = z.object({ email: z.string(), name: z.string() });

/** The body posted to an inbound route: one email, parsed. */
export const InboundPayload = z
  .strictObject({
    event: z.literal('inbound'),
    timestamp: Timestamp,
    ref_id: z.string(),
    domain: z.string(),
    username: z.string(),
    /** The envelope recipient this post is for. */
    recipient: z.string(),
    from: Address,
    to: z.array(Address),
    cc: z.array(Address),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    headers: z.record(z.string(), z.string()),
    attachments: z.array(
      z.strictObject({
        filename: z.string(),
        content_type: z.string(),
        size: z.number().int().nonnegative(),
        content_id: z.string(),
        content: z.string(),
      }),
    ),
  })
  .meta({ id: 'InboundPayload' });
export type InboundPayload = z.infer<typeof InboundPayload>;

/**
 * `POST /emulator/inbound`: an inbound email without SMTP, either as fields (composed into MIME) or
 * as a raw RFC 5322 message. It is routed exactly as if the SMTP sink had received it.
 */
export const SimulateInboundBody = z
  .strictObject({
    account_id: z.string().optional(),
    from: EmailRecipient.optional(),
    to: z
      .array(EmailAddress)
      .min(1, 'must list at least one recipient')
      .max(INBOUND_LIMITS.recipients, `must list at most ${INBOUND_LIMITS.recipients} recipients`),
    subject: z.string().max(998, 'must be at most 998 characters').optional(),
    text: z.string().optional(),
    html: z.string().optional(),
    attachments: z.array(EmailAttachment).max(20, 'must have at most 20 attachments').optional(),
    /** A whole message as it would come over SMTP; the other content fields must then be absent. */
    raw: z.string().min(1, 'must not be empty').optional(),
  })
  .superRefine((body, ctx) => {
    const fields = (['from', 'subject', 'text', 'html', 'attachments'] as const).filter((f) => body[f] !== undefined);
    if (body.raw !== undefined && fields.length > 0) {
      ctx.addIssue({ code: 'custom', path: [fields[0]!], message: 'may not be given with raw (the raw message carries it)' });
    }
    if (body.raw === undefined && body.from === undefined) ctx.addIssue({ code: 'custom', path: ['from'], message: 'is required unless raw is given' });
  })
  .meta({ id: 'SimulateInboundBody' });
export type SimulateInboundBody = z.infer<typeof SimulateInboundBody>;

export const SimulateInboundResult = z.object({
  /** Each recipient: routed (with the delivery that posts it) or why not. */
  recipients: z.array(
    z.object({
      email: z.string(),
      routed: z.boolean(),
      ref_id: z.string().nullable(),
      delivery_id: z.string().nullable(),
      /** The inbound guide's rule that decided, by its name; null when no route has the recipient's domain. */
      rule: InboundRule.nullable(),
      /** Why it was not routed (starting with the rule's name); null when it was. */
      reason: z.string().nullable(),
    }),
  ),
});
export type SimulateInboundResult = z.infer<typeof SimulateInboundResult>;

/**
 * An inbound email for one recipient of a routed domain, as the control API lists it: accepted (and
 * posted by `delivery_id`) or refused, with the inbound guide's rule that decided (docs/inbound.md).
 */
export const InboundMessageRecord = z
  .object({
    ref_id: z.string(),
    account_id: z.string(),
    /** The recipient, as its route reads it: the registered username (or the local part) at the routed domain. */
    recipient: z.string(),
    domain: z.string(),
    username: z.string(),
    source: z.enum(['smtp', 'api']),
    from_email: z.string(),
    subject: z.string(),
    accepted: z.boolean(),
    /** The inbound guide's rule that decided, by its name; null for mail stored before Mailyard recorded it. */
    rule: InboundRule.nullable(),
    /** Why it was refused (starting with the rule's name); null when it was accepted. */
    reason: z.string().nullable(),
    /** The delivery that posts it to its route; null when refused. */
    delivery_id: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'InboundMessageRecord' });
export type InboundMessageRecord = z.infer<typeof InboundMessageRecord>;

export const ListInboundMessagesQuery = z.strictObject({
  /** One inbound email by its ref_id (an INBOUND delivery's). */
  ref_id: z.string().max(64).optional(),
  account_id: z.string().max(64).optional(),
  limit: pageSizeParam(500, 50),
});

export const InboundMessageList = z.object({ messages: z.array(InboundMessageRecord) });
