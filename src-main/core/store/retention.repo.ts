import type { Db } from './database';

/** Where pruning stops: copies at or before this place in the oldest-first order go. */
export interface CopyBound {
  createdMs: number;
  key: number;
}

/** What one batch removed. */
export interface PrunedCounts {
  copies: number;
  deliveries: number;
  catcherRequests: number;
}

/**
 * Mail received rather than sent, each kept as it came in a table of its own, keyed by a ULID in the
 * order it was stored: posts of inbound routes (`inbound_messages`) and messages the IMAP connector
 * took (`imap_messages`; where a watch resumes is kept with its mailer, so none is taken again).
 */
const RECEIVED_TABLES = ['inbound_messages', 'imap_messages'] as const;

/** Deliveries still to be attempted or on the wire stay: pruning never cancels a retry or an attempt. */
const SETTLED = "status NOT IN ('pending', 'sending')";

/**
 * The SQL of retention: the oldest copies with everything that is theirs, the oldest deliveries and
 * catcher requests beyond the limits, a batch at a time (each batch one short transaction, so intake
 * waits at most one batch).
 */
export class RetentionRepo {
  private readonly stmts;
  private readonly removeCopies: (keys: readonly number[]) => number;

  constructor(private readonly db: Db) {
    this.stmts = {
      // The newest-first order of the lists (creation time, then key), read on the creation time's index.
      nthNewest: db.prepare<[number], { created_ms: number; key: number }>(
        'SELECT created_ms, key FROM messages INDEXED BY messages_created ORDER BY created_ms DESC, key DESC LIMIT 1 OFFSET ?',
      ),
      oldest: db.prepare<{ ms: number; key: number; limit: number }, { key: number }>(
        `SELECT key FROM messages INDEXED BY messages_created
         WHERE created_ms < @ms OR (created_ms = @ms AND key <= @key) ORDER BY created_ms, key LIMIT @limit`,
      ),
      sendsOf: db.prepare<[string], { content_id: string; ref_id: string }>(
        'SELECT DISTINCT content_id, ref_id FROM messages WHERE key IN (SELECT value FROM json_each(?))',
      ),
      deleteCopies: db.prepare<[string]>('DELETE FROM messages WHERE key IN (SELECT value FROM json_each(?))'),
      dropContents: db.prepare<[string]>(
        `DELETE FROM message_contents WHERE content_id IN (SELECT value FROM json_each(?))
         AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.content_id = message_contents.content_id)`,
      ),
      // A send's deliveries (its copies' events) go with its last copy.
      dropSendDeliveries: db.prepare<[string]>(
        `DELETE FROM deliveries WHERE ref_id IN (SELECT value FROM json_each(?)) AND ${SETTLED}
         AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.ref_id = deliveries.ref_id)`,
      ),
      nthNewestDelivery: db.prepare<[number], { id: string }>('SELECT id FROM deliveries ORDER BY id DESC LIMIT 1 OFFSET ?'),
      dropDeliveriesTo: db.prepare<{ id: string; limit: number }>(
        `DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE id <= @id AND ${SETTLED} ORDER BY id LIMIT @limit)`,
      ),
      dropDeliveriesBefore: db.prepare<{ ms: number; limit: number }>(
        `DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE created_ms < @ms AND ${SETTLED} ORDER BY id LIMIT @limit)`,
      ),
      nthNewestRequest: db.prepare<[number], { id: string }>('SELECT id FROM catcher_requests ORDER BY id DESC LIMIT 1 OFFSET ?'),
      dropRequestsTo: db.prepare<{ id: string; limit: number }>(
        'DELETE FROM catcher_requests WHERE id IN (SELECT id FROM catcher_requests WHERE id <= @id ORDER BY id LIMIT @limit)',
      ),
      dropRequestsBefore: db.prepare<{ at: string; limit: number }>(
        'DELETE FROM catcher_requests WHERE id IN (SELECT id FROM catcher_requests WHERE emulator_at < @at ORDER BY id LIMIT @limit)',
      ),
      copies: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM messages INDEXED BY messages_created'),
      received: RECEIVED_TABLES.map((table) => ({
        nthNewest: db.prepare<[number], { ref_id: string }>(`SELECT ref_id FROM ${table} ORDER BY ref_id DESC LIMIT 1 OFFSET ?`),
        dropTo: db.prepare<{ id: string; limit: number }>(
          `DELETE FROM ${table} WHERE ref_id IN (SELECT ref_id FROM ${table} WHERE ref_id <= @id ORDER BY ref_id LIMIT @limit)`,
        ),
        dropBefore: db.prepare<{ ms: number; limit: number }>(
          `DELETE FROM ${table} WHERE ref_id IN (SELECT ref_id FROM ${table} WHERE created_ms < @ms ORDER BY ref_id LIMIT @limit)`,
        ),
      })),
    };
    this.removeCopies = db.transaction((keys: readonly number[]) => {
      const list = JSON.stringify(keys);
      const sends = this.stmts.sendsOf.all(list);
      // Their events, scheduled events, tags, tracking tokens (and links no copy uses any more), relays
      // and search index rows go by the copies' foreign keys and triggers.
      this.stmts.deleteCopies.run(list);
      this.stmts.dropContents.run(JSON.stringify(sends.map((s) => s.content_id)));
      return this.stmts.dropSendDeliveries.run(JSON.stringify([...new Set(sends.map((s) => s.ref_id))])).changes;
    });
  }

  /**
   * The newest copy of those beyond the newest `keep` (it and every older one go), or undefined when
   * there are no more than `keep`. Reads `keep` entries of an index: a millisecond or two for 20,000.
   */
  copiesBeyond(keep: number): CopyBound | undefined {
    const row = this.stmts.nthNewest.get(keep);
    return row === undefined ? undefined : { createdMs: row.created_ms, key: row.key };
  }

  /** Removes up to `limit` of the oldest copies at or before `bound`, with what is theirs; answers what went. */
  pruneCopies(bound: CopyBound, limit: number): PrunedCounts {
    const keys = this.stmts.oldest.all({ ms: bound.createdMs, key: bound.key, limit }).map((r) => r.key);
    if (keys.length === 0) return { copies: 0, deliveries: 0, catcherRequests: 0 };
    return { copies: keys.length, deliveries: this.removeCopies(keys), catcherRequests: 0 };
  }

  /** Removes up to `limit` of the oldest settled deliveries beyond the newest `keep` (0: none) or created before `beforeMs` (0: none). */
  pruneDeliveries(keep: number, beforeMs: number, limit: number): number {
    let n = 0;
    if (keep > 0) {
      const cut = this.stmts.nthNewestDelivery.get(keep);
      if (cut !== undefined) n += this.stmts.dropDeliveriesTo.run({ id: cut.id, limit }).changes;
    }
    if (beforeMs > 0 && n < limit) n += this.stmts.dropDeliveriesBefore.run({ ms: beforeMs, limit: limit - n }).changes;
    return n;
  }

  /** Removes up to `limit` of the oldest catcher requests beyond the newest `keep` (0: none) or received before `beforeIso` on the emulator clock. */
  pruneCatcherRequests(keep: number, beforeIso: string | null, limit: number): number {
    let n = 0;
    if (keep > 0) {
      const cut = this.stmts.nthNewestRequest.get(keep);
      if (cut !== undefined) n += this.stmts.dropRequestsTo.run({ id: cut.id, limit }).changes;
    }
    if (beforeIso !== null && n < limit) n += this.stmts.dropRequestsBefore.run({ at: beforeIso, limit: limit - n }).changes;
    return n;
  }

  /**
   * Removes up to `limit` of the oldest received messages (inbound posts, IMAP messages) beyond the
   * newest `keep` of each table (0: none) or stored before `beforeMs` on the emulator clock (0: none).
   */
  pruneReceived(keep: number, beforeMs: number, limit: number): number {
    let n = 0;
    for (const table of this.stmts.received) {
      if (keep > 0 && n < limit) {
        const cut = table.nthNewest.get(keep);
        if (cut !== undefined) n += table.dropTo.run({ id: cut.ref_id, limit: limit - n }).changes;
      }
      if (beforeMs > 0 && n < limit) n += table.dropBefore.run({ ms: beforeMs, limit: limit - n }).changes;
    }
    return n;
  }

  /** How many copies the store holds (reads the creation time's index: tens of milliseconds at a million). */
  copyCount(): number {
    return this.stmts.copies.get()!.n;
  }

  /** The database's own size in bytes (its pages), and the pages free inside it. */
  size(): { bytes: number; freeBytes: number } {
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    return { bytes: pages * pageSize, freeBytes: free * pageSize };
  }
}
