import { z } from 'zod';
import { Timestamp } from './common';

/** What retention removed since the emulator started. */
export const PrunedTotals = z
  .object({
    copies: z.number().int(),
    deliveries: z.number().int(),
    catcher_requests: z.number().int(),
    /** Mail received: inbound routes' posts and messages the IMAP connector took. */
    inbound_messages: z.number().int(),
    /** When a sweep last removed anything (emulator clock), or null. */
    last_at: Timestamp.nullable(),
  })
  .meta({ id: 'PrunedTotals' });
export type PrunedTotals = z.infer<typeof PrunedTotals>;

/** The store's size, the retention limits in force, and what they pruned (`GET /emulator/store`). */
export const StoreUsage = z
  .object({
    messages: z.number().int(),
    /** The database file's bytes (in memory: its pages). */
    database_bytes: z.number().int(),
    /** The write-ahead log's bytes (0 in memory). */
    wal_bytes: z.number().int(),
    /** Bytes of the database no row uses (reused by new rows, or given back by compaction). */
    free_bytes: z.number().int(),
    /** The newest copies kept; 0: no limit. */
    max_messages: z.number().int(),
    /** Copies older than this (ms, emulator clock) are pruned; 0: no limit. */
    max_age_ms: z.number().int(),
    pruned: PrunedTotals,
  })
  .meta({ id: 'StoreUsage' });
export type StoreUsage = z.infer<typeof StoreUsage>;

const MAX_AGE_MS = 10 * 365 * 86_400_000;

/** New retention limits (`PUT /emulator/store/retention`); a field left out keeps its value. */
export const SetRetentionBody = z
  .strictObject({
    max_messages: z.number().int().min(0, 'must be 0 (no limit) or more').max(100_000_000, 'must be at most 100,000,000').optional(),
    max_age_ms: z.number().int().min(0, 'must be 0 (no limit) or more').max(MAX_AGE_MS, 'must be at most ten years').optional(),
  })
  .meta({ id: 'SetRetentionBody' });
