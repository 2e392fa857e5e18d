import { z } from 'zod';
import { withThousands } from '../format';
import { pageSizeParam, Timestamp } from './common';
import { EmailEventKindSchema } from './events';

/** Explicit limits of a send (docs/limits.md). */
export const SEND_LIMITS = {
  recipients: 1000,
  attachments: 100,
  subjectLength: 998,
  nameLength: 256,
  headerCount: 100,
  customArgs: 50,
  customArgLength: 1000,
  campaignIdLength: 256,
  /** `{{name}}` placeholders filled in a send's (or a template's) subject and content together. */
  placeholders: 10_000,
  /** Characters of one recipient's subject and content once its placeholders are filled. */
  filledLength: 25 * 1024 * 1024,
} as const;

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Headers the composed message sets itself; a send may not set them. Compared case-insensitively. */
export const RESERVED_EMAIL_HEADERS = [
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'reply-to',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'list-unsubscribe',
  'list-unsubscribe-post',
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

export const EmailAttachment = z
  .strictObject({
    filename: z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
    content: Base64,
    type: z
      .string()
      .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as application/pdf')
      .optional(),
    disposition: z.enum(['attachment', 'inline'], { error: 'must be attachment or inline' }).optional(),
    content_id: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^<>\s]+$/, 'may not contain spaces or angle brackets')
      .optional(),
  })
  // The docs require `type` in each attachment, and the OpenAPI document says so; the emulator still takes
  // one without it (the type then follows the filename's extension), so a browser's file of unknown type can be sent.
  .meta({
    required: ['filename', 'content', 'type'],
    description: 'An attachment: content (base64), filename and type (MIME type) are required, as the docs say',
  });

/**
 * A switch of `settings`, as the real service takes it: an object `{"enable": boolean}`. `enable` is
 * optional there (REAL-SERVICE.md): `{}` is a switch left off. A bare boolean is refused with an error
 * that shows the object form (the real service refuses it too).
 */
const Switch = z
  .strictObject(
    { enable: z.boolean({ error: 'must be true or false' }).optional() },
    {
      error: (issue) =>
        typeof issue.input === 'boolean'
          ? `must be an object {"enable": ${issue.input}}, not a bare boolean`
          : 'must be an object {"enable": true} or {"enable": false}',
    },
  )
  .optional();

export const SendSettings = z.strictObject({
  open_tracking: Switch,
  click_tracking: Switch,
  unsubscribe: Switch,
  validate: Switch,
  phishing_protection: Switch,
  ip_pool: z.string().max(256, 'must be at most 256 characters').optional(),
});
export type SendSettings = z.infer<typeof SendSettings>;

/** Whether a switch of `settings` is on (`{}` and a missing switch are off). */
export const enabled = (s: { enable?: boolean } | undefined): boolean => s?.enable === true;

/** `{{name}}` placeholders of templates and substitutions: a name of letters, digits, `_`, `.` and `-`. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/**
 * How many placeholders these texts hold, counted only up to `atMost + 1`: a text of millions is not
 * read to its end to be refused.
 */
export function countPlaceholders(texts: ReadonlyArray<string | undefined>, atMost: number = SEND_LIMITS.placeholders): number {
  let count = 0;
  for (const text of texts) {
    if (!text) continue;
    for (const _ of text.matchAll(PLACEHOLDER)) if (++count > atMost) return count;
  }
  return count;
}

/** A refusal of more placeholders than a send fills, said of `content`. */
export const TOO_MANY_PLACEHOLDERS = `must hold at most ${withThousands(SEND_LIMITS.placeholders)} {{placeholders}}, the subject's counted in`;

/** A key longer than `max`, quoted (shortened) for a message. */
function longKey(keys: string[], max: number): string | undefined {
  const key = keys.find((k) => k.length > max);
  return key === undefined ? undefined : `“${key.length > 40 ? `${key.slice(0, 40)}…` : key}”`;
}

/**
 * A record whose keys are at most `max` characters, said of the record itself ("has a key longer than
 * 100 characters: “…”"): zod words a refused key only as "Invalid key in record".
 */
function boundedKeys<V extends z.ZodType>(max: number, noun: string, value: V) {
  return z.record(z.string(), value).superRefine((record, ctx) => {
    const key = longKey(Object.keys(record), max);
    if (key) ctx.addIssue({ code: 'custom', message: `has ${noun} longer than ${max} characters: ${key}` });
  });
}

/** Per-recipient values of placeholders: `{"<address>": {"name": "Ann"}, "*": {...}}` (`*` for every recipient). */
export const Substitutions = boundedKeys(
  320,
  'an address',
  boundedKeys(100, 'a variable name', z.union([z.string(), z.number(), z.boolean()], { error: 'must be a string, a number or true or false' })),
);

const Content = z.strictObject({
  type: z.enum(['text/html', 'text/plain'], { error: 'must be text/html or text/plain' }),
  value: z.string(),
});

/** A message's parts: one text/html and/or one text/plain (a send's and a template's content). */
export const Contents = z
  .array(Content)
  .min(1, 'must have a text/html or text/plain part')
  .max(2, 'may have one text/html and one text/plain part')
  .refine((parts) => new Set(parts.map((p) => p.type)).size === parts.length, 'may have each type once');

// A value's problem is at its key's path (`custom_args.order`: "must be at most 1000 characters").
const CustomArgs = boundedKeys(
  100,
  'a key',
  z.string({ error: 'must be a string' }).max(SEND_LIMITS.customArgLength, `must be at most ${SEND_LIMITS.customArgLength} characters`),
).refine((args) => Object.keys(args).length <= SEND_LIMITS.customArgs, `must have at most ${SEND_LIMITS.customArgs} keys`);

const Headers = z.record(z.string(), z.string({ error: 'header values must be strings' })).superRefine((headers, ctx) => {
  const names = Object.keys(headers);
  if (names.length > SEND_LIMITS.headerCount) ctx.addIssue({ code: 'custom', message: `must have at most ${SEND_LIMITS.headerCount} headers` });
  for (const name of names) {
    if (!HTTP_TOKEN.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' });
    else if ((RESERVED_EMAIL_HEADERS as readonly string[]).includes(name.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'may not be set: use the field of the send payload instead' });
    }
    if (/[\r\n]/.test(headers[name] ?? '')) ctx.addIssue({ code: 'custom', path: [name], message: 'value may not contain line breaks' });
  }
});

/**
 * The send request of the real service (`POST /v1/email/send`), every documented field. `subject` and
 * `content` may be left out when `template_id` names a template (whose own are used); an empty string
 * for `mailer_id`, `template_id` or `ip_pool` means none, as the docs' own example sends them.
 */
export const SendEmailBody = z
  .strictObject({
    from: EmailRecipient,
    to: z.array(EmailRecipient).min(1, 'must list at least one recipient'),
    cc: z.array(EmailRecipient).optional(),
    bcc: z.array(EmailRecipient).optional(),
    subject: z.string().max(SEND_LIMITS.subjectLength, `must be at most ${SEND_LIMITS.subjectLength} characters`).optional(),
    content: Contents.optional(),
    replyTo: EmailAddress.optional(),
    headers: Headers.optional(),
    attachments: z.array(EmailAttachment).max(SEND_LIMITS.attachments, `must have at most ${SEND_LIMITS.attachments} attachments`).optional(),
    settings: SendSettings.optional(),
    campaign_id: z.string().max(SEND_LIMITS.campaignIdLength, `must be at most ${SEND_LIMITS.campaignIdLength} characters`).optional(),
    custom_args: CustomArgs.optional(),
    mailer_id: z.string().max(64, 'must be at most 64 characters').optional(),
    template_id: z.string().max(64, 'must be at most 64 characters').optional(),
    substitutions: Substitutions.optional(),
    priority: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(-1_000_000, 'must be at least -1000000')
      .max(1_000_000, 'must be at most 1000000')
      .optional(),
    process_email_inbulk: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .superRefine((body, ctx) => {
    const total = body.to.length + (body.cc?.length ?? 0) + (body.bcc?.length ?? 0);
    if (total > SEND_LIMITS.recipients) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `must have at most ${SEND_LIMITS.recipients} recipients together with cc and bcc (got ${total})` });
    }
    if (!body.template_id) {
      if (body.subject === undefined) ctx.addIssue({ code: 'custom', path: ['subject'], message: 'is required (unless template_id names a template)' });
      if (body.content === undefined) ctx.addIssue({ code: 'custom', path: ['content'], message: 'is required (unless template_id names a template)' });
    }
  })
  .meta({
    id: 'SendEmailBody',
    description: 'subject and content are required unless template_id names a template, whose own subject and content are then used',
    // The two shapes, each what it adds to the fields above; the OpenAPI document makes each a complete
    // object (src-shared/openapi.ts), which is what client generators can type.
    anyOf: [
      { title: 'SendEmailWithContent', description: 'A send with its own subject and content', required: ['subject', 'content'] },
      {
        title: 'SendEmailWithTemplate',
        description: "A send of a template: the template's subject and content are used unless given",
        required: ['template_id'],
        properties: { template_id: { minLength: 1 } },
      },
    ],
  });
export type SendEmailBody = z.infer<typeof SendEmailBody>;

export const RECIPIENT_TYPES = ['to', 'cc', 'bcc'] as const;

/** The real service's answer: one ref_id for the whole request (every recipient's log entry and event carries it). */
export const SendEmailResponse = z.object({ success: z.literal(true), ref_id: z.string() }).meta({ id: 'SendEmailResponse' });

/** The real service's statuses of a log entry (one per recipient). */
export const EMAIL_STATUSES = ['queued', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'failed', 'spam', 'unsubscribed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** RFC 3339 (a date-time with Z or an offset), or a plain date (2026-11-22, the start of that day in UTC). */
const IsoDate = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d([Tt ]\d\d:\d\d(:\d\d(\.\d{1,9})?)?([Zz]|[+-]\d\d:?\d\d))?$/, 'must be an RFC 3339 date-time such as 2026-11-22T10:00:00Z')
  .refine((v) => !Number.isNaN(Date.parse(v.replace(' ', 'T'))), 'is not a real date');

/** The longest created-at window of one logs query (the real service's rule). */
export const LOGS_MAX_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const LOGS_WINDOW_TOO_LONG = 'date range cannot exceed 7 days';

/** The query of `GET /v1/email/logs`: every filter an exact match (addresses case-insensitive). */
export const EmailLogsQuery = z.strictObject({
  email: z.string().max(320, 'must be at most 320 characters').optional(),
  recipientDomain: z.string().max(255, 'must be at most 255 characters').optional(),
  refId: z.string().max(64, 'must be at most 64 characters').optional(),
  startCreatedAt: IsoDate.optional(),
  endCreatedAt: IsoDate.optional(),
  status: z.enum(EMAIL_STATUSES, { error: `must be one of ${EMAIL_STATUSES.join(', ')}` }).optional(),
  fromAddress: z.string().max(320, 'must be at most 320 characters').optional(),
  failedReason: z.string().max(1000, 'must be at most 1000 characters').optional(),
  subject: z.string().max(998, 'must be at most 998 characters').optional(),
  campaignId: z.string().max(256, 'must be at most 256 characters').optional(),
  recipientType: z.enum(RECIPIENT_TYPES, { error: 'must be to, cc or bcc' }).optional(),
  startDeliveredDate: IsoDate.optional(),
  endDeliveredDate: IsoDate.optional(),
  pageSize: pageSizeParam(50, 20),
  pageToken: z.string().max(200, 'must be at most 200 characters').optional(),
});
export type EmailLogsQuery = z.output<typeof EmailLogsQuery>;

/** One entry of the email logs (one per recipient), under the real service's names. */
export const EmailLogEntry = z
  .object({
    refId: z.string(),
    recipientAddress: z.string(),
    recipientDomain: z.string(),
    recipientType: z.enum(RECIPIENT_TYPES),
    fromAddress: z.string(),
    subject: z.string(),
    status: z.enum(EMAIL_STATUSES),
    campaignId: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    /** When the recipient's server accepted it; "" until then. */
    deliveredDate: z.union([Timestamp, z.literal('')]),
    /** Why it failed, in words; "" unless it did. */
    failedReason: z.string(),
    opened: z.boolean(),
    clicked: z.boolean(),
    /** The send's priority, as text ("0" when none was given). */
    priority: z.string(),
    /** Each event kind that happened to this recipient's copy, with the times it happened, in order. */
    track: z.record(z.string(), z.array(Timestamp)),
    accountId: z.number().int(),
    tenantId: z.number().int(),
  })
  .meta({ id: 'EmailLogEntry' });
export type EmailLogEntry = z.infer<typeof EmailLogEntry>;

export const EmailLogsResponse = z
  .object({
    success: z.literal(true),
    emailLogs: z.array(EmailLogEntry),
    /** Opaque; "" on the last page. */
    nextPageToken: z.string(),
    /** How many entries match the query in all (every page). */
    totalCount: z.number().int(),
  })
  .meta({ id: 'EmailLogsResponse' });
export type EmailLogsResponse = z.infer<typeof EmailLogsResponse>;

export const SubscriptionBody = z.strictObject({ email: EmailAddress }).meta({ id: 'SubscriptionBody' });

/** A simulation rule: recipients matching `pattern` get these events, each `delay_ms` after the previous. */
export const SimulationRule = z.strictObject({
  pattern: z.string().min(1, 'must not be empty').max(320, 'must be at most 320 characters'),
  events: z
    .array(
      z.strictObject({
        event: EmailEventKindSchema,
        delay_ms: z
          .number()
          .int('must be a whole number')
          .min(0, 'must be at least 0')
          .max(30 * 24 * 3600 * 1000, 'must be at most 30 days'),
        fields: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .max(20, 'must have at most 20 events'),
});
export type SimulationRule = z.infer<typeof SimulationRule>;

export const SimulationRules = z.strictObject({ rules: z.array(SimulationRule).max(100, 'must have at most 100 rules') }).meta({ id: 'SimulationRules' });
