import { addressWords } from '../../../src-shared/search/message-query';
import type { Db } from './database';

/** A stored copy the search indexes do not hold yet, with what its index rows are made of. */
export interface PendingCopy {
  rowid: number;
  content_id: string;
  patch: Buffer | null;
  subject: string;
  from_email: string;
  from_name: string;
  recipient_email: string;
  recipient_name: string;
}

/** The start of a stored content: its raw bytes, or (raw empty) the recipe they are composed from (services/email/compose-later.ts). */
export interface StoredContentStart {
  raw: Buffer;
  recipe: Buffer | null;
}

/** What the indexer derived from a copy's message: its body's words, its header lines, the addresses of both. */
export interface DerivedText {
  body: string;
  headers: string;
  /** The addresses found in the header lines and the body, as the address index's words (space-separated). */
  addresses: string;
  /** Mailpit's list summary of the copy (services/search/stored-summary.ts), as JSON; absent: made when it is first listed. */
  mailpit?: string;
}

/**
 * The search indexes' writes: which copies wait to be indexed (search_pending, migration 0025) and
 * their index rows. SearchIndexer (services/search) decides when; this only reads and writes.
 */
export class SearchIndexRepo {
  private readonly stmts;
  private readonly writeBatch: (rows: Array<{ copy: PendingCopy; text: DerivedText }>) => number;

  constructor(db: Db) {
    this.stmts = {
      pending: db.prepare<[number, number], PendingCopy>(
        `SELECT m.rowid AS rowid, m.content_id, m.patch, m.subject, m.from_email, m.from_name, m.recipient_email, m.recipient_name
         FROM search_pending p JOIN messages m ON m.rowid = p.message_rowid
         WHERE p.message_rowid > ? ORDER BY p.message_rowid LIMIT ?`,
      ),
      orphans: db.prepare('DELETE FROM search_pending WHERE message_rowid NOT IN (SELECT rowid FROM messages)'),
      waiting: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM search_pending'),
      newest: db.prepare<[], { n: number | null }>('SELECT MAX(message_rowid) AS n FROM search_pending'),
      stillPending: db.prepare<[number], { n: number }>('SELECT 1 AS n FROM search_pending WHERE message_rowid = ?'),
      done: db.prepare<[number]>('DELETE FROM search_pending WHERE message_rowid = ?'),
      content: db.prepare<[number, string], { raw: Buffer | null; recipe: Buffer | null }>(
        'SELECT substr(raw, 1, ?) AS raw, recipe FROM message_contents WHERE content_id = ?',
      ),
      insertSearch: db.prepare<[{ rowid: number; subject: string; sender: string; recipient: string; body: string; headers: string }]>(
        'INSERT INTO message_search (rowid, subject, sender, recipient, body, headers) VALUES (@rowid, @subject, @sender, @recipient, @body, @headers)',
      ),
      insertSummary: db.prepare<[number, string]>('INSERT OR REPLACE INTO mailpit_summaries (message_key, summary) VALUES (?, ?)'),
      insertAddresses: db.prepare<[{ rowid: number; sender: string; recipient: string; other: string }]>(
        'INSERT INTO message_addresses (rowid, sender, recipient, other) VALUES (@rowid, @sender, @recipient, @other)',
      ),
    };
    this.writeBatch = db.transaction((rows: Array<{ copy: PendingCopy; text: DerivedText }>) => {
      let written = 0;
      for (const { copy, text } of rows) {
        // A copy deleted while its text was being read has left the queue with its row: nothing to index.
        if (this.stmts.stillPending.get(copy.rowid) === undefined) continue;
        this.stmts.insertSearch.run({
          rowid: copy.rowid,
          subject: copy.subject,
          sender: `${copy.from_email} ${copy.from_name}`,
          recipient: `${copy.recipient_email} ${copy.recipient_name}`,
          body: text.body,
          headers: text.headers,
        });
        this.stmts.insertAddresses.run({
          rowid: copy.rowid,
          sender: addressWords(copy.from_email).join(' '),
          recipient: addressWords(copy.recipient_email).join(' '),
          other: text.addresses,
        });
        if (text.mailpit !== undefined) this.stmts.insertSummary.run(copy.rowid, text.mailpit);
        this.stmts.done.run(copy.rowid);
        written++;
      }
      return written;
    });
  }

  /** Up to `limit` copies waiting, oldest first, after `afterRowid`. */
  pending(afterRowid: number, limit: number): PendingCopy[] {
    return this.stmts.pending.all(afterRowid, limit);
  }

  /** How many copies wait to be indexed. */
  waiting(): number {
    return this.stmts.waiting.get()!.n;
  }

  /** The newest copy waiting (its rowid), or 0 when none does. */
  newestWaiting(): number {
    return this.stmts.newest.get()!.n ?? 0;
  }

  /** Drops queue entries whose copy is gone (a store written before the delete trigger of migration 0025). */
  dropOrphans(): void {
    this.stmts.orphans.run();
  }

  /** The first `bytes` of a send's stored content (the raw message its copies are made of), or its recipe while it is not composed. */
  contentStart(contentId: string, bytes: number): StoredContentStart | undefined {
    const row = this.stmts.content.get(bytes, contentId);
    // substr() of an empty blob (a content not composed yet) is NULL.
    return row && { raw: row.raw ?? Buffer.alloc(0), recipe: row.recipe };
  }

  /** Writes these copies' index rows and takes them off the queue, in one transaction. Answers how many were still there. */
  write(rows: Array<{ copy: PendingCopy; text: DerivedText }>): number {
    return this.writeBatch(rows);
  }
}
