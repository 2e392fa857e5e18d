import { z } from 'zod';

/** ISO 8601 UTC timestamp with milliseconds, e.g. 2026-11-22T10:15:30.123Z. */
export const Timestamp = z.iso.datetime({ precision: 3 }).meta({ example: '2026-11-22T10:15:30.123Z' });

/**
 * The error body of every operation, as the real service words it (its getting-started page:
 * `{"success": false, "error", "details"}`, `details` an optional string): `error` names the first
 * problem in words; `details` is a sentence naming every field with a problem; `fields` maps each
 * field path to its problem. The webhook calls' `details` is an object (WebhookErrorResponse), the
 * domain calls add `records`.
 */
export const ErrorResponse = z
  .object({
    success: z.literal(false),
    error: z.string(),
    details: z.string().optional().meta({ description: 'More context, in words: the fields with a problem, each with its problem' }),
    fields: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: "Each field's problem by its path (`body`: the body as a whole); a program reads this, not `details`" }),
    /** A scenario file's problems, each with its line and column. */
    errors: z.array(z.looseObject({ path: z.string(), message: z.string() })).optional(),
    records: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ErrorResponse' });

/**
 * The webhook calls' error body: their REST pages (register, update) show `details` as an object,
 * always present (`{"details": {}, "error": "string", "success": false}`); it holds `fields` when
 * fields have problems.
 */
export const WebhookErrorResponse = ErrorResponse.extend({
  details: z
    .object({ fields: z.record(z.string(), z.string()).optional() })
    .catchall(z.unknown())
    .meta({ description: "An object, as the webhook pages show it: `fields`, each field's problem by its path, when there are any" }),
}).meta({ id: 'ErrorResponseWithDetails' });

/** Any error body the API answers (what a client reads from a 4xx or 5xx). */
export const AnyErrorResponse = z.union([ErrorResponse, WebhookErrorResponse]);
export type ErrorResponse = z.infer<typeof ErrorResponse> | z.infer<typeof WebhookErrorResponse>;

/** `{success: true, message}` with no data. */
export const MessageResponse = z.object({ success: z.literal(true), message: z.string() });

/** `{success: true, message, data}`. */
export function dataResponse<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data });
}

/**
 * An API key: a bearer token (RFC 6750 token68 characters), 8 to 256 characters.
 * Used for `--api-key`, for accounts created through the control API, and for SMTP AUTH later.
 */
export const ApiKey = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(256, 'must be at most 256 characters')
  .regex(/^[A-Za-z0-9._~+/-]+=*$/, 'may contain only letters, digits and . _ ~ + / - (then = padding)');

/** A page size from a query string: a whole number from 1 to `max`, `fallback` when absent. */
export function pageSizeParam(max: number, fallback: number) {
  const message = `must be a whole number from 1 to ${max}`;
  return z
    .preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), z.number({ error: message }).int(message).min(1, message).max(max, message))
    .default(fallback);
}
