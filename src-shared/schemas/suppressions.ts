import { z } from 'zod';

/** The most addresses one account's suppression list answers at once (newest first). */
export const SUPPRESSIONS_LIMIT = 1000;

/** Which account's suppression list: the default account when none is named. */
export const SuppressionsQuery = z.strictObject({
  account_id: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
});
export type SuppressionsQuery = z.infer<typeof SuppressionsQuery>;

/** The most addresses one look-up of the list by `email` names (the Send form's recipients). */
export const SUPPRESSION_LOOKUP_MAX = 100;

/** The list, or only the entries of the addresses named (`email`: comma-separated, case-insensitive). */
export const ListSuppressionsQuery = SuppressionsQuery.extend({
  email: z
    .string()
    .max(SUPPRESSION_LOOKUP_MAX * 321, 'names too many addresses')
    .refine((v) => v.split(',').length <= SUPPRESSION_LOOKUP_MAX, `must name at most ${SUPPRESSION_LOOKUP_MAX} addresses`)
    .optional(),
});

/** One suppressed address of an account: what put it there, why, the copy that caused it, since when. */
export const Suppression = z.object({
  email: z.string(),
  /** `hard bounce`, `spam complaint`, `unsubscribe event` (an event of a copy) or `api` (`POST /v1/email/unsubscribe`). */
  source: z.string(),
  /** In words: the bounce's SMTP reply, "the recipient marked the message as spam", "unsubscribed"; "" for the API. */
  reason: z.string(),
  /** The copy whose event suppressed the address; null when the API did. */
  message_id: z.string().nullable(),
  /** RFC 3339, on the emulator clock. */
  since: z.string(),
});
export type Suppression = z.infer<typeof Suppression>;

export const SuppressionList = z.object({
  account_id: z.string(),
  suppressions: z.array(Suppression),
  /** True when the list holds more than SUPPRESSIONS_LIMIT addresses (the newest are answered). */
  truncated: z.boolean(),
});
export type SuppressionList = z.infer<typeof SuppressionList>;

export const RemoveSuppressionParams = z.strictObject({
  email: z.string().min(1, 'must not be empty').max(320, 'must be at most 320 characters'),
});

export const RemoveSuppressionResult = z.object({ account_id: z.string(), email: z.string(), removed: z.literal(true) });
