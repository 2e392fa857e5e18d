import { z } from 'zod';
import { EmailEventKindSchema } from './events';
import { pageSizeParam, Timestamp } from './common';

/** Explicit limits of a send (documented in the README). */
export const SEND_LIMITS = {
  recipients: 1000,
  attachments: 100,
  subjectLength: 998,
  nameLength: 256,
  headerCount: 100,
  customArgs: 50,
  customArgLength: 1000,
  campaignIdLength: 256,
} as const;

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Headers the composed message sets itself; a send may not set them. Compared case-insensitively. */
export const RESERVED_EMAIL_HEADERS = [
  'from', 'to', 'cc', 'bcc', 'subject', 'reply-to', 'date', 'message-id', 'mime-version',
  'content-type', 'content-transfer-encoding', 'content-disposition', 'list-unsubscribe', 'list-unsubscribe-post',
] as const;

export const EmailAddress = z.email({ error: 'must be an email address' }).max(320, 'must be at most 320 characters');

export const EmailRecipient = z.strictObject({
  email: EmailAddress,
  name: z.string().max(SEND_LIMITS.nameLength, `must be at most ${SEND_LIMITS.nameLength} characters`).optional(),
});

const Base64 = z
  .string()
  .regex(/^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/, 'must be base64')
  .refine((v) => v.replace(/[\r\n]/g, '').length % 4 === 0, 'must be base64 (its length is not a multiple of 4)');

export const EmailAttachment = z.strictObject({
  filename: z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  content: Base64,
  type: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as application/pdf').optional(),
  disposition: z.enum(['attachment', 'inline'], { error: 'must be attachment or inline' }).optional(),
  content_id: z.string().min(1).max(255).regex(/^[^<>\s]+$/, 'may not contain spaces or angle brackets').optional(),
});

export const SendSettings = z.strictObject({
  open_tracking: z.boolean().optional(),
  click_tracking: z.boolean().optional(),
  unsubscribe_tracking: z.boolean().optional(),
  mailer_id: z.string().max(64).optional(),
});

const Content = z.strictObject({
  type: z.enum(['text/html', 'text/plain'], { error: 'must be text/html or text/plain' }),
  value: z.string(),
});

export const SendEmailBody = z
  .strictObject({
    from: EmailRecipient,
    to: z.array(EmailRecipient).min(1, 'must list at least one recipient'),
    cc: z.array(EmailRecipient).optional(),
    bcc: z.array(EmailRecipient).optional(),
    subject: z.string().max(SEND_LIMITS.subjectLength, `must be at most ${SEND_LIMITS.subjectLength} characters`),
    content: z
      .array(Content)
      .min(1, 'must have a text/html or text/plain part')
      .max(2, 'may have one text/html and one text/plain part')
      .refine((parts) => new Set(parts.map((p) => p.type)).size === parts.length, 'may have each type once'),
    replyTo: EmailAddress.optional(),
    headers: z
      .record(z.string(), z.string({ error: 'header values must be strings' }))
      .superRefine((headers, ctx) => {
        const names = Object.keys(headers);
        if (names.length > SEND_LIMITS.headerCount) ctx.addIssue({ code: 'custom', message: `must have at most ${SEND_LIMITS.headerCount} headers` });
        for (const name of names) {
          if (!HTTP_TOKEN.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' });
          else if ((RESERVED_EMAIL_HEADERS as readonly string[]).includes(name.toLowerCase())) {
            ctx.addIssue({ code: 'custom', path: [name], message: 'may not be set: use the field of the send payload instead' });
          }
          if (/[\r\n]/.test(headers[name] ?? '')) ctx.addIssue({ code: 'custom', path: [name], message: 'value may not contain line breaks' });
        }
      })
      .optional(),
    attachments: z.array(EmailAttachment).max(SEND_LIMITS.attachments, `must have at most ${SEND_LIMITS.attachments} attachments`).optional(),
    settings: SendSettings.optional(),
    campaign_id: z.string().max(SEND_LIMITS.campaignIdLength, `must be at most ${SEND_LIMITS.campaignIdLength} characters`).optional(),
    custom_args: z
      .record(z.string().max(100), z.string({ error: 'values must be strings' }).max(SEND_LIMITS.customArgLength))
      .refine((args) => Object.keys(args).length <= SEND_LIMITS.customArgs, `must have at most ${SEND_LIMITS.customArgs} keys`)
      .optional(),
  })
  .superRefine((body, ctx) => {
    const total = body.to.length + (body.cc?.length ?? 0) + (body.bcc?.length ?? 0);
    if (total > SEND_LIMITS.recipients) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `must have at most ${SEND_LIMITS.recipients} recipients together with cc and bcc (got ${total})` });
    }
  })
  .meta({ id: 'SendEmailBody' });
export type SendEmailBody = z.infer<typeof SendEmailBody>;

export const RECIPIENT_TYPES = ['to', 'cc', 'bcc'] as const;

export const SendEmailResult = z.object({
  messages: z.array(z.object({ email: z.string(), recipient_type: z.enum(RECIPIENT_TYPES), ref_id: z.string() })),
});

export const EMAIL_STATUSES = ['queued', 'delivered', 'deferred', 'bounced', 'rejected', 'failed', 'suppressed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** ISO 8601: a date (2026-11-22) or a date-time with Z or an offset. */
const IsoDate = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d))?$/, 'must be an ISO 8601 date or date-time (2026-11-22 or 2026-11-22T10:00:00Z)')
  .refine((v) => !Number.isNaN(Date.parse(v)), 'is not a real date');

export const EmailLogsQuery = z.strictObject({
  email: z.string().max(320).optional(),
  recipientDomain: z.string().max(255).optional(),
  refId: z.string().max(64).optional(),
  startCreatedAt: IsoDate.optional(),
  endCreatedAt: IsoDate.optional(),
  status: z.enum(EMAIL_STATUSES, { error: `must be one of ${EMAIL_STATUSES.join(', ')}` }).optional(),
  subject: z.string().max(998).optional(),
  campaignId: z.string().max(256).optional(),
  recipientType: z.enum(RECIPIENT_TYPES, { error: 'must be to, cc or bcc' }).optional(),
  startDeliveredDate: IsoDate.optional(),
  endDeliveredDate: IsoDate.optional(),
  pageSize: pageSizeParam(1000, 50),
  pageToken: z.string().max(200).optional(),
});
export type EmailLogsQuery = z.output<typeof EmailLogsQuery>;

export const EmailLogRecord = z
  .object({
    ref_id: z.string(),
    campaign_id: z.string(),
    mailer_id: z.string(),
    from: z.object({ email: z.string(), name: z.string() }),
    recipient: z.object({ email: z.string(), name: z.string() }),
    recipient_type: z.enum(RECIPIENT_TYPES),
    subject: z.string(),
    status: z.enum(EMAIL_STATUSES),
    created_at: Timestamp,
    delivered_at: Timestamp.nullable(),
    events: z.array(z.object({ event: z.string(), timestamp: Timestamp })),
    custom_args: z.record(z.string(), z.string()),
  })
  .meta({ id: 'EmailLog' });
export type EmailLogRecord = z.infer<typeof EmailLogRecord>;

export const EmailLogsPage = z.object({ logs: z.array(EmailLogRecord), nextPageToken: z.string().nullable() });

export const SubscriptionBody = z.strictObject({ email: EmailAddress }).meta({ id: 'SubscriptionBody' });

/** A simulation rule: recipients matching `pattern` get these events, each `delay_ms` after the previous. */
export const SimulationRule = z.strictObject({
  pattern: z.string().min(1).max(320),
  events: z
    .array(
      z.strictObject({
        event: EmailEventKindSchema,
        delay_ms: z.number().int('must be a whole number').min(0, 'must be at least 0').max(30 * 24 * 3600 * 1000, 'must be at most 30 days'),
        fields: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .max(20, 'must have at most 20 events'),
});
export type SimulationRule = z.infer<typeof SimulationRule>;

export const SimulationRules = z.strictObject({ rules: z.array(SimulationRule).max(100, 'must have at most 100 rules') }).meta({ id: 'SimulationRules' });
