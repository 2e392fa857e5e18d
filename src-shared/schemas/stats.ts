import { z } from 'zod';
import { Timestamp } from './common';
import { IndexPending, ListMessagesQuery } from './messages';

/** Whose figures: one account's (by id), or every account's when none is named. */
export const StatsQuery = z.strictObject({
  account_id: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
});

/** What the UI's dashboard strip shows: totals and events per minute over the last hour (emulated time). */
export const EmulatorStats = z
  .object({
    /** The account counted; null when the figures are every account's. */
    account_id: z.string().nullable(),
    messages: z.number().int(),
    events: z.number().int(),
    deliveries: z.object({
      total: z.number().int(),
      pending: z.number().int(),
      succeeded: z.number().int(),
      failed: z.number().int(),
      /** Of the pending ones, those retrying after at least one failed attempt. */
      failing: z.number().int(),
    }),
    /** Events per minute, oldest first; `from` is the start of the first minute. */
    timeline: z.object({ from: Timestamp, bucket_ms: z.number().int(), counts: z.array(z.number().int()) }),
  })
  .meta({ id: 'EmulatorStats' });
export type EmulatorStats = z.infer<typeof EmulatorStats>;

/** The filters of the messages list, without paging: how many messages match. */
export const CountMessagesQuery = ListMessagesQuery.omit({ limit: true, cursor: true, with_total: true });
export const MessageCount = z.object({ count: z.number().int(), index_pending: IndexPending });
