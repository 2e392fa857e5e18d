import { applyPatch } from './byte-patch';
import type { Db } from './database';
import { ATTACHMENT_MATCH } from './fts-match';
import { accountNumberOf, defineSearchFunctions, type MessageSearch, searchTerms } from './message-search';
import { StatementCache } from './statement-cache';
import { isStoreFull } from './store-space';
import { type TrackedLink, type TrackingTokenRow, TrackingTokens } from './tracking-tokens';

export type { ComposeLater, CopyPosition, CopyStateRow, LogFilter, MessageContentRow, MessageEventRow, MessageListRow, MessageRow } from './message-rows';
export type { MessageSearch } from './message-search';

import type { ComposeLater, CopyPosition, CopyStateRow, LogFilter, MessageContentRow, MessageEventRow, MessageListRow, MessageRow } from './message-rows';

/**
 * A copy's account as its row names it (by number): its id, which the rest of the store and the API
 * name it by. One lookup of the accounts' key per row read.
 */
const ACCOUNT_ID = '(SELECT a.id FROM accounts a WHERE a.number = messages.account_number) AS account_id';
/** A whole copy as MessageRow has it. */
const ROW_COLUMNS = `messages.*, ${ACCOUNT_ID}`;
const LIST_COLUMNS = `key AS rowid, id, ref_id, ${ACCOUNT_ID}, source, from_email, from_name, recipient_email, recipient_name, recipient_type, subject, status, campaign_id, created_at, failed_reason, content_id, created_ms, read`;

/** Newest first: creation time, then the order copies were stored. */
const NEWEST_FIRST = 'ORDER BY created_ms DESC, key DESC';

export class MessagesRepo {
  private readonly stmts;
  private readonly tokens: TrackingTokens;
  /** The search's and the logs' prepared statements, by their SQL (a few dozen shapes at most: the terms vary, not their text). */
  private readonly searchStatements: StatementCache;

  /**
   * @param composeLater makes the raw message of a send stored as its recipe (the emulator gives
   * composeRecipe; the store itself composes nothing). Without it such a content cannot be read.
   */
  constructor(
    private readonly db: Db,
    private readonly composeLater?: ComposeLater,
  ) {
    this.tokens = new TrackingTokens(db);
    this.searchStatements = new StatementCache(db);
    defineSearchFunctions(db, (recipe) => (composeLater ? composeLater(recipe).length : null));
    this.stmts = {
      insertContent: db.prepare<[Required<MessageContentRow>]>('INSERT INTO message_contents (content_id, raw, recipe) VALUES (@content_id, @raw, @recipe)'),
      composed: db.prepare<[{ content_id: string; raw: Buffer }]>(
        'UPDATE message_contents SET raw = @raw, recipe = NULL WHERE content_id = @content_id AND recipe IS NOT NULL',
      ),
      composedSizes: db.prepare<[{ content_id: string; length: number }]>(
        'UPDATE messages SET size = mailyard_copy_size(content_id, @length, NULL, patch) WHERE content_id = @content_id AND size IS NULL',
      ),
      insertMessage: db.prepare<[MessageRow]>(
        `INSERT INTO messages (id, ref_id, account_number, content_id, source, from_email, from_name, recipient_email, recipient_lc, recipient_domain,
           recipient_name, recipient_type, subject, campaign_id, mailer_id, custom_args, status, created_ms, created_at, delivered_ms, delivered_at,
           failed_reason, priority, updated_at, patch, size)
         VALUES (@id, @ref_id, ${accountNumberOf('account_id')}, @content_id, @source, @from_email, @from_name, @recipient_email, @recipient_lc, @recipient_domain,
           @recipient_name, @recipient_type, @subject, @campaign_id, @mailer_id, @custom_args, @status, @created_ms, @created_at, @delivered_ms, @delivered_at,
           @failed_reason, @priority, @updated_at, @patch, @size)`,
      ),
      get: db.prepare<[string], MessageRow>(`SELECT ${ROW_COLUMNS} FROM messages WHERE id = ?`),
      getMany: db.prepare<[string], MessageRow>(`SELECT ${ROW_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))`),
      statesOf: db.prepare<[string], CopyStateRow>(
        `SELECT id, ref_id, ${ACCOUNT_ID}, status, failed_reason FROM messages WHERE id IN (SELECT value FROM json_each(?))`,
      ),
      ofSend: db.prepare<[string], MessageRow>(`SELECT ${ROW_COLUMNS} FROM messages WHERE ref_id = ? ORDER BY key`),
      setStatus: db.prepare<[{ id: string; status: string; failed_reason: string | null; updated_at: string }]>(
        'UPDATE messages SET status = @status, failed_reason = COALESCE(@failed_reason, failed_reason), updated_at = @updated_at WHERE id = @id',
      ),
      setDelivered: db.prepare<[{ id: string; status: string; delivered_ms: number; delivered_at: string }]>(
        "UPDATE messages SET status = @status, failed_reason = '', delivered_ms = @delivered_ms, delivered_at = @delivered_at, updated_at = @delivered_at WHERE id = @id",
      ),
      nextSeq: db.prepare<[string], { seq: number }>('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM message_events WHERE message_id = ?'),
      insertEvent: db.prepare<[MessageEventRow]>(
        'INSERT INTO message_events (message_id, seq, event, timestamp, delivery_id, details) VALUES (@message_id, @seq, @event, @timestamp, @delivery_id, @details)',
      ),
      // A batch's deliveries, each an [id, timestamp] pair of a distinct copy: each entry follows the copy's last.
      insertDeliveries: db.prepare<[string]>(
        `INSERT INTO message_events (message_id, seq, event, timestamp, delivery_id)
         SELECT d.value ->> 0, COALESCE((SELECT MAX(seq) FROM message_events WHERE message_id = d.value ->> 0), 0) + 1, 'delivery', d.value ->> 1, NULL
         FROM json_each(?) AS d`,
      ),
      setDeliveredMany: db.prepare<[string]>(
        `UPDATE messages SET status = 'delivered', failed_reason = '', delivered_ms = d.value ->> 2, delivered_at = d.value ->> 1, updated_at = d.value ->> 1
         FROM json_each(?) AS d WHERE messages.id = d.value ->> 0`,
      ),
      content: db.prepare<[string], MessageContentRow>('SELECT * FROM message_contents WHERE content_id = ?'),
      deleteOne: db.prepare<[string]>('DELETE FROM messages WHERE id = ?'),
      deleteAll: db.prepare('DELETE FROM message_contents'),
      dropOrphanContent: db.prepare<[{ content_id: string }]>(
        'DELETE FROM message_contents WHERE content_id = @content_id AND NOT EXISTS (SELECT 1 FROM messages WHERE content_id = @content_id)',
      ),
      // Each rowid looked up in the word's entries (FTS5 seeks to it): a range of rowids would read
      // every entry between them, 20 ms for ten copies spread over 100,000.
      withAttachment: db.prepare<[string], { rowid: number }>(
        `SELECT rowid FROM message_search WHERE message_search MATCH '${ATTACHMENT_MATCH}' AND rowid IN (SELECT value FROM json_each(?))`,
      ),
      pendingIn: db.prepare<[string], { rowid: number }>(
        'SELECT message_rowid AS rowid FROM search_pending WHERE message_rowid IN (SELECT value FROM json_each(?))',
      ),
      eventsOf: db.prepare<[string], MessageEventRow>(
        'SELECT * FROM message_events WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, seq',
      ),
    };
  }

  insertContent(row: MessageContentRow): void {
    this.stmts.insertContent.run({ content_id: row.content_id, raw: row.raw, recipe: row.recipe ?? null });
  }

  /** Stores a copy. Its search index rows follow (the trigger of migration 0025 queues it for SearchIndexer). */
  insertMessage(row: MessageRow): void {
    this.stmts.insertMessage.run(row);
  }

  get(id: string): MessageRow | undefined {
    return this.stmts.get.get(id);
  }

  /** The copies of these keys that exist, in no particular order (one read for a batch of events). */
  getMany(ids: readonly string[]): MessageRow[] {
    return ids.length === 0 ? [] : this.stmts.getMany.all(JSON.stringify(ids));
  }

  /** The key, send, account and status of the copies of these keys that exist: what a delivery needs of them, without the rest of their row. */
  statesOf(ids: readonly string[]): CopyStateRow[] {
    return ids.length === 0 ? [] : this.stmts.statesOf.all(JSON.stringify(ids));
  }

  /** Every copy of one send (its recipients), in the order they were made. */
  ofSend(refId: string): MessageRow[] {
    return this.stmts.ofSend.all(refId);
  }

  /** A new status; `failedReason` (when given) says why it failed. */
  setStatus(id: string, status: string, updatedAt: string, failedReason: string | null = null): void {
    this.stmts.setStatus.run({ id, status, failed_reason: failedReason, updated_at: updatedAt });
  }

  setDelivered(id: string, status: string, deliveredMs: number, deliveredAt: string): void {
    this.stmts.setDelivered.run({ id, status, delivered_ms: deliveredMs, delivered_at: deliveredAt });
  }

  /** An event at the end of the copy's events; `details` is what tells it from others of its kind (JSON), or null. */
  addEvent(messageId: string, event: string, timestamp: string, deliveryId: string | null, details: string | null = null): void {
    const seq = this.stmts.nextSeq.get(messageId)!.seq;
    this.stmts.insertEvent.run({ message_id: messageId, seq, event, timestamp, delivery_id: deliveryId, details });
  }

  /**
   * A delivery event, with no delivery of its own, at the end of each copy's events: one statement for
   * a batch. Each copy at most once (entries of one copy would all take the same place).
   */
  addDeliveries(entries: ReadonlyArray<{ messageId: string; timestamp: string }>): void {
    if (entries.length > 0) this.stmts.insertDeliveries.run(JSON.stringify(entries.map((e) => [e.messageId, e.timestamp])));
  }

  /** setDelivered for many copies in one statement, each delivered at its own time. */
  setDeliveredMany(entries: ReadonlyArray<{ messageId: string; deliveredMs: number; deliveredAt: string }>): void {
    if (entries.length > 0) this.stmts.setDeliveredMany.run(JSON.stringify(entries.map((e) => [e.messageId, e.deliveredAt, e.deliveredMs])));
  }

  /**
   * Runs `fn`'s writes to the log as one: all of them or none, inside the open transaction too (a
   * savepoint), so a caller that records a batch again one copy at a time after a failure never
   * records a copy twice.
   */
  allOrNone(fn: () => void): void {
    this.db.transaction(fn)();
  }

  /** The events of these copies, grouped by message id, in order. */
  eventsOf(messageIds: string[]): Map<string, MessageEventRow[]> {
    const out = new Map<string, MessageEventRow[]>();
    if (messageIds.length === 0) return out;
    for (const row of this.stmts.eventsOf.all(JSON.stringify(messageIds))) {
      const list = out.get(row.message_id) ?? [];
      list.push(row);
      out.set(row.message_id, list);
    }
    return out;
  }

  /** An open pixel's or unsubscribe link's token. */
  insertToken(row: TrackingTokenRow): void {
    this.tokens.insert(row);
  }

  /** A copy's click links: its key and their list (see TrackingTokens.insertLinks). */
  insertLinks(messageId: string, key: string, linksOf: string, list?: readonly TrackedLink[]): void {
    this.tokens.insertLinks(messageId, key, linksOf, list);
  }

  /** What a tracking token stands for (a copy's link included), or undefined. */
  token(token: string): TrackingTokenRow | undefined {
    return this.tokens.get(token);
  }

  /** A send's stored content as it is: its bytes, or its recipe while not composed yet (nothing is composed here). */
  content(sendId: string): MessageContentRow | undefined {
    return this.stmts.content.get(sendId);
  }

  /**
   * A copy's raw message, byte for byte as it was composed or received: every reader of a message's
   * bytes comes here. A send stored as its recipe is composed on its first read, and the bytes are
   * stored in its place, so that happens once; readers run on the one thread that holds the store, so
   * two never compose the same content at once (and a recipe makes the same bytes whenever it is made).
   */
  rawOf(row: MessageRow): Buffer | undefined {
    const content = this.stmts.content.get(row.content_id);
    if (!content) return undefined;
    const raw = content.recipe == null ? content.raw : this.composeStored(content.content_id, content.recipe);
    return row.patch ? applyPatch(raw, row.patch) : raw;
  }

  private composeStored(contentId: string, recipe: Buffer): Buffer {
    if (this.composeLater === undefined) throw new Error('this store cannot compose a send stored as its recipe');
    const raw = this.composeLater(recipe);
    try {
      this.db.transaction(() => {
        this.stmts.composed.run({ content_id: contentId, raw });
        this.stmts.composedSizes.run({ content_id: contentId, length: raw.length });
      })();
    } catch (err) {
      // A full disk: the bytes are made again on the next read, the same ones.
      if (!isStoreFull(err)) throw err;
    }
    return raw;
  }

  /**
   * Which of these copies (by rowid) the word index holds with an attachment (has:attachment finds
   * them), and which it does not hold yet (they wait to be indexed: the index cannot tell).
   */
  attachmentsOf(rowids: readonly number[]): { attached: Set<number>; pending: Set<number> } {
    if (rowids.length === 0) return { attached: new Set(), pending: new Set() };
    const list = JSON.stringify(rowids);
    const of = (rows: Array<{ rowid: number }>) => new Set(rows.map((r) => r.rowid));
    return { attached: of(this.stmts.withAttachment.all(list)), pending: of(this.stmts.pendingIn.all(list)) };
  }

  /** Deletes one copy (and its composed content once no recipient of that send is left). */
  deleteOne(id: string): boolean {
    return this.db.transaction(() => {
      const row = this.get(id);
      if (!row) return false;
      this.stmts.deleteOne.run(id);
      this.stmts.dropOrphanContent.run({ content_id: row.content_id });
      return true;
    })();
  }

  /** Deletes every message, its content, events and scheduled events. Returns how many messages. */
  deleteAll(): number {
    return this.db.transaction(() => {
      const n = (this.db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n;
      this.stmts.deleteAll.run();
      return n;
    })();
  }

  /**
   * Deletes the copies the search finds (with their events and scheduled events, and their sends'
   * content once no copy of it is left). Returns how many copies.
   */
  deleteMatching(filter: MessageSearch): number {
    const { where, params } = searchTerms(filter);
    const cond = where.length ? `WHERE ${where.join(' AND ')}` : '';
    return this.db.transaction(() => {
      const sends = this.db.prepare<[Record<string, unknown>], { content_id: string }>(`SELECT DISTINCT content_id FROM messages ${cond}`).all(params);
      const n = this.db.prepare<[Record<string, unknown>]>(`DELETE FROM messages ${cond}`).run(params).changes;
      this.db
        .prepare<[string]>(
          'DELETE FROM message_contents WHERE content_id IN (SELECT value FROM json_each(?)) AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.content_id = message_contents.content_id)',
        )
        .run(JSON.stringify(sends.map((r) => r.content_id)));
      return n;
    })();
  }

  /** Captured messages for the UI: newest first, searched and filtered (the columns of a summary). */
  search(filter: MessageSearch & { after?: CopyPosition; limit: number; offset?: number }): MessageListRow[] {
    const { where, params } = searchTerms(filter);
    if (filter.after !== undefined) pageAfter(where, params, filter.after);
    params.limit = filter.limit;
    params.offset = filter.offset ?? 0;
    const sql = `SELECT ${LIST_COLUMNS} FROM messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${NEWEST_FIRST} LIMIT @limit OFFSET @offset`;
    return this.searchStatements.get<MessageListRow>(sql).all(params);
  }

  /**
   * How many messages the same search finds (the UI's list shows it). Words alone are counted in the
   * search index, without reading the copies; without q, the messages' indexes count.
   */
  count(filter: MessageSearch): number {
    const { where, params, indexOnly } = searchTerms(filter);
    const sql = indexOnly
      ? `SELECT COUNT(*) AS n FROM (${indexOnly})`
      : `SELECT COUNT(*) AS n FROM messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
    return this.searchStatements.get<{ n: number }>(sql).get(params)!.n;
  }

  /** The email logs: newest first, filtered, `limit` copies after the position `after` (from the newest when absent). */
  logs(filter: LogFilter, page: { after?: CopyPosition; limit: number }): MessageRow[] {
    const after = page.after;
    // The page's start narrows the window's end: one upper bound on the creation time, which the
    // planner reads as a range of the filter's index (with two, it may take the account's instead).
    const { where, params } =
      after === undefined ? logTerms(filter) : logTerms({ ...filter, createdTo: Math.min(filter.createdTo ?? Infinity, after.createdMs + 1) });
    if (after !== undefined) pageAfter(where, params, after, false);
    params.limit = page.limit;
    const sql = `SELECT ${ROW_COLUMNS} FROM ${logSource(filter)} WHERE ${where.join(' AND ')} ${NEWEST_FIRST} LIMIT @limit`;
    return this.searchStatements.get<MessageRow>(sql).all(params);
  }

  /** How many copies the same filters find, on every page. */
  countLogs(filter: LogFilter): number {
    const { where, params } = logTerms(filter);
    const sql = `SELECT COUNT(*) AS n FROM ${logSource(filter)} WHERE ${where.join(' AND ')}`;
    return this.searchStatements.get<{ n: number }>(sql).get(params)!.n;
  }
}

/**
 * The copies after `after` in the newest-first order (creation time, then key). `bound`: with the
 * upper bound on the creation time that an index range takes (false when the terms have it already).
 */
function pageAfter(where: string[], params: Record<string, unknown>, after: CopyPosition, bound = true): void {
  if (bound) {
    where.push('created_ms < @afterBound');
    params.afterBound = after.createdMs + 1;
  }
  where.push('(created_ms < @afterMs OR key < @afterKey)');
  params.afterMs = after.createdMs;
  params.afterKey = after.key;
}

/**
 * The index a logs query reads: the first filter given of these, each the most selective left
 * (its index holds the account, the filter's value and the creation time, so the window and a page's
 * start are a range of it, in the logs' order); with none of them, the account's. Named, not left to
 * SQLite's planner: without statistics it judged the window's two bounds on the account's index more
 * selective than a recipient and a status together, and read every copy in the window.
 */
const LOG_INDEXES: ReadonlyArray<readonly [index: string, applies: (f: LogFilter) => boolean]> = [
  ['messages_ref', (f) => f.refId !== undefined],
  ['messages_recipient', (f) => f.recipientLc !== undefined],
  ['messages_subject', (f) => f.subject !== undefined],
  ['messages_from', (f) => f.fromAddress !== undefined],
  ['messages_campaign_status', (f) => f.campaignId !== undefined && f.status !== undefined],
  ['messages_campaign', (f) => f.campaignId !== undefined],
  ['messages_domain', (f) => f.domain !== undefined],
  ['messages_status', (f) => f.status !== undefined],
];

/** `FROM messages` for a logs query, naming the index it reads (see LOG_INDEXES). */
function logSource(filter: LogFilter): string {
  const index = LOG_INDEXES.find(([, applies]) => applies(filter))?.[0] ?? 'messages_account';
  return `messages INDEXED BY ${index}`;
}

/** The email logs' filters as SQL: every one an exact match (addresses lower-cased, as stored). */
function logTerms(filter: LogFilter): { where: string[]; params: Record<string, unknown> } {
  const where = [`account_number = ${accountNumberOf('accountId')}`];
  const params: Record<string, unknown> = { accountId: filter.accountId };
  const add = (sql: string, name: string, value: unknown) => {
    if (value === undefined) return;
    where.push(sql);
    params[name] = value;
  };
  add('recipient_lc = @recipientLc', 'recipientLc', filter.recipientLc);
  add('recipient_domain = @domain', 'domain', filter.domain);
  add('ref_id = @refId', 'refId', filter.refId);
  add('created_ms >= @createdFrom', 'createdFrom', filter.createdFrom);
  add('created_ms < @createdTo', 'createdTo', filter.createdTo);
  add('status = @status', 'status', filter.status);
  add('from_email = @fromAddress COLLATE NOCASE', 'fromAddress', filter.fromAddress);
  add('failed_reason = @failedReason', 'failedReason', filter.failedReason);
  add('subject = @subject', 'subject', filter.subject);
  add('campaign_id = @campaignId', 'campaignId', filter.campaignId);
  add('recipient_type = @recipientType', 'recipientType', filter.recipientType);
  add('delivered_ms >= @deliveredFrom', 'deliveredFrom', filter.deliveredFrom);
  add('delivered_ms < @deliveredTo', 'deliveredTo', filter.deliveredTo);
  return { where, params };
}
