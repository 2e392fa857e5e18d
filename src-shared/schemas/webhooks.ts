import { z } from 'zod';
import { EMAIL_EVENT_KINDS, WEBHOOK_EVENTS, WEBHOOK_METHODS } from '../events';
import { Timestamp } from './common';

/** Explicit limits on webhook configuration (docs/limits.md). */
export const WEBHOOK_LIMITS = {
  urlLength: 2048,
  headerCount: 50,
  headerNameLength: 256,
  headerValueLength: 4096,
} as const;

/** Header names the emulator owns; a webhook may not set them. Compared case-insensitively. */
export const RESERVED_WEBHOOK_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection'] as const;

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Visible ASCII, space, tab and obs-text; no CR, LF or other control characters.
const HTTP_FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const WebhookUrl = z
  .string()
  .max(WEBHOOK_LIMITS.urlLength, `must be at most ${WEBHOOK_LIMITS.urlLength} characters`)
  .refine(isHttpUrl, 'must be an absolute http or https URL')
  .meta({ example: 'https://example.com/webhooks/mail' });

export const WebhookEventType = z.enum(WEBHOOK_EVENTS, {
  error: `must be one of ${WEBHOOK_EVENTS.join(', ')}`,
});

export const WebhookMethod = z.enum(WEBHOOK_METHODS, {
  error: `must be one of ${WEBHOOK_METHODS.join(', ')}`,
});

export const WebhookHeaders = z
  .record(z.string(), z.string({ error: 'header values must be strings' }), {
    error: 'must be an object of header names to string values',
  })
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > WEBHOOK_LIMITS.headerCount) {
      ctx.addIssue({ code: 'custom', message: `must have at most ${WEBHOOK_LIMITS.headerCount} headers` });
    }
    for (const name of names) {
      const value = headers[name] ?? '';
      if (!HTTP_TOKEN.test(name) || name.length > WEBHOOK_LIMITS.headerNameLength) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `is not a valid header name (an HTTP token of at most ${WEBHOOK_LIMITS.headerNameLength} characters)`,
        });
      } else if ((RESERVED_WEBHOOK_HEADERS as readonly string[]).includes(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'may not be set: the emulator sets this header itself' });
      }
      if (value.length > WEBHOOK_LIMITS.headerValueLength) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `value must be at most ${WEBHOOK_LIMITS.headerValueLength} characters`,
        });
      } else if (!HTTP_FIELD_VALUE.test(value)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'value may not contain line breaks or control characters' });
      }
    }
  })
  .meta({ example: { 'X-Webhook-Secret': 's3cret' } });

const eventFlags = Object.fromEntries(EMAIL_EVENT_KINDS.map((kind) => [kind, z.boolean().optional()])) as {
  [K in (typeof EMAIL_EVENT_KINDS)[number]]: z.ZodOptional<z.ZodBoolean>;
};

/**
 * `webhook_options.events`: only the email event kinds, each a boolean defaulting to false. Another key is
 * refused even where `/v1` ignores unknown fields (API.md part 1, rule 1): `delivered: true` ignored
 * would be a webhook that never fires. Hence a failing catch-all, not `strictObject`, whose unknown
 * keys leniency drops.
 */
export const WebhookEventFlags = z
  .object(eventFlags)
  .catchall(z.unknown().refine(() => false, { error: 'is not a known field' }))
  .meta({ additionalProperties: false });

export const WebhookOptions = z.strictObject({ events: WebhookEventFlags.optional() });

export const RegisterWebhookBody = z
  .strictObject({
    webhook_url: WebhookUrl,
    event: WebhookEventType,
    method: WebhookMethod,
    headers: WebhookHeaders.optional(),
    webhook_options: WebhookOptions.optional(),
  })
  .meta({ id: 'RegisterWebhookBody' });
export type RegisterWebhookBody = z.infer<typeof RegisterWebhookBody>;

export const UpdateWebhookBody = z
  .strictObject({
    event: WebhookEventType,
    webhook_url: WebhookUrl.optional(),
    method: WebhookMethod.optional(),
    headers: WebhookHeaders.optional(),
    webhook_options: WebhookOptions.optional(),
  })
  .meta({ id: 'UpdateWebhookBody' });
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const DeleteWebhookBody = z.strictObject({ event: WebhookEventType }).meta({ id: 'DeleteWebhookBody' });
export type DeleteWebhookBody = z.infer<typeof DeleteWebhookBody>;

/** A flag per email event kind, resolved (missing keys are false). */
export const ResolvedEventFlags = z.object(
  Object.fromEntries(EMAIL_EVENT_KINDS.map((kind) => [kind, z.boolean()])) as {
    [K in (typeof EMAIL_EVENT_KINDS)[number]]: z.ZodBoolean;
  },
);
export type ResolvedEventFlags = z.infer<typeof ResolvedEventFlags>;

export const WebhookRecord = z
  .object({
    event: WebhookEventType,
    webhook_url: z.string(),
    method: WebhookMethod,
    headers: z.record(z.string(), z.string()),
    /** Present for EMAIL_EVENT webhooks only. */
    webhook_options: z.object({ events: ResolvedEventFlags }).optional(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Webhook' });
export type WebhookRecord = z.infer<typeof WebhookRecord>;
