import { z } from 'zod';
import { Timestamp } from './common';
import { IndexPending, ListMessagesQuery } from './messages';

/** What the UI's dashboard strip shows: totals and events per minute over the last hour (emulated time). */
export const EmulatorStats = z
  .object({
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
