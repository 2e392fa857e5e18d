import type { Db } from './database';

/** A listed copy's stored Mailpit summary (JSON, null when it has none yet) and its size (null for copies stored before migration 0033). */
export interface StoredSummaryRow {
  key: number;
  summary: string | null;
  size: number | null;
}

/**
 * Mailpit's list summaries of copies (migration 0038): the search indexer writes them with a copy's
 * index rows (SearchIndexRepo.write); the Mailpit list reads them, and stores the one of a copy that
 * had none when it was listed.
 */
export class MailpitSummariesRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      of: db.prepare<[string], StoredSummaryRow>(
        `SELECT m.key AS key, s.summary AS summary, m.size AS size
         FROM messages m LEFT JOIN mailpit_summaries s ON s.message_key = m.key
         WHERE m.key IN (SELECT value FROM json_each(?))`,
      ),
      put: db.prepare<[{ key: number; summary: string }]>(
        'INSERT OR REPLACE INTO mailpit_summaries (message_key, summary) SELECT key, @summary FROM messages WHERE key = @key',
      ),
    };
  }

  /** The stored summaries and sizes of these copies (by key), one read. */
  of(keys: readonly number[]): Map<number, StoredSummaryRow> {
    return new Map(this.stmts.of.all(JSON.stringify(keys)).map((r) => [r.key, r]));
  }

  /** Stores a copy's summary, unless the copy is gone. */
  put(key: number, summary: string): void {
    this.stmts.put.run({ key, summary });
  }
}
