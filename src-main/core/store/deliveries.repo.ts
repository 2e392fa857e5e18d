import { DELIVERY_BODY_LIMITS, type DeliveryListStatus, type DeliveryStatus } from '../../../src-shared/schemas/dispatch';
import type { Db } from './database';

export interface DeliveryRow {
  id: string;
  account_id: string;
  target_kind: string;
  target_id: string;
  category: string;
  event: string;
  ref_id: string | null;
  payload: string;
  target_url: string;
  status: DeliveryStatus;
  attempts: number;
  scheduled_attempts: number;
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_ms: number;
  created_at: string;
  updated_at: string;
  /** Read from the payload by the list (`list`, `get`), never stored: see `RECIPIENT`, `SUBJECT`. */
  recipient?: string | null;
  subject?: string | null;
}

/**
 * Whom a delivery's payload is about, read from the stored JSON when listed (not a stored column: the
 * hot path's insert stays as it is): an email event's `recipient.email`, an inbound post's `recipient`,
 * an IMAP message's first `to`.
 */
const RECIPIENT = `COALESCE(d.payload ->> '$.recipient.email',
  CASE json_type(d.payload, '$.recipient') WHEN 'text' THEN d.payload ->> '$.recipient' END,
  d.payload ->> '$.to[0].email')`;
/** The payload's subject, else (an open, a bounce...) the subject of the send it is about: its recipient's copy first. */
const SUBJECT = `COALESCE(CASE json_type(d.payload, '$.subject') WHEN 'text' THEN d.payload ->> '$.subject' END,
  (SELECT m.subject FROM messages m WHERE d.ref_id IS NOT NULL AND m.ref_id = d.ref_id ORDER BY m.recipient_lc = lower(${RECIPIENT}) DESC LIMIT 1))`;
/**
 * What a list shows of a delivery: every column but the payload (which may be many megabytes, and a
 * list never shows it), with its recipient and subject cut to what an address and a subject line can
 * be (320 and 998 characters), so a page is bounded whatever the payloads hold.
 */
const LISTED = `d.id, d.account_id, d.target_kind, d.target_id, d.category, d.event, d.ref_id, d.target_url, d.status, d.attempts,
  d.scheduled_attempts, d.next_attempt_at, d.last_status_code, d.last_error, d.created_ms, d.created_at, d.updated_at,
  substr(${RECIPIENT}, 1, 320) AS recipient, substr(${SUBJECT}, 1, 998) AS subject`;

/** Still to be delivered after at least one failed attempt (as `StatsRepo.failingDeliveries` counts them). */
const FAILING = "d.status IN ('pending', 'sending') AND d.attempts > 0";

/** ASCII lower case, as SQLite's `lower()` does without ICU. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/**
 * What a `q` searches for: an address when it is one (pasted as `ann@example.com`, `<ann@example.com>`,
 * `Ann <ann@example.com>`, `mailto:ann@example.com`, with spaces or a trailing comma), else the text.
 */
export function deliverySearchTerm(q: string): { address: string } | { text: string } | null {
  const t = q.trim();
  if (t === '') return null;
  const bracketed = /<\s*(?:mailto:)?([^<>\s@]+@[^<>\s@]+)\s*>/i.exec(t);
  const bare = /^["']?(?:mailto:)?([^<>\s@"',;]+@[^<>\s@"',;]+?)["']?[,;]?$/i.exec(t);
  const address = bracketed?.[1] ?? bare?.[1];
  return address ? { address: asciiLower(address) } : { text: asciiLower(t) };
}

/** A delivery as the control API lists it: all but its payload. */
export type ListedRow = Omit<DeliveryRow, 'payload'>;

/**
 * A delivery as its detail shows it: its payload's size in bytes, and its payload whole when it has at
 * most the bytes asked for, else only its first that many characters (the caller cuts them to bytes).
 */
export interface DetailRow extends ListedRow {
  payload_bytes: number;
  payload_head: string;
}

export interface EndpointRow {
  target_kind: string;
  target_id: string;
  account_id: string;
  target_url: string;
  deliveries: number;
  succeeded: number;
  failed: number;
  pending: number;
  failing: number;
  cancelled: number;
  attempts: number;
  failed_attempts: number;
  last_attempt_at: string | null;
}

export interface AttemptRow {
  delivery_id: string;
  number: number;
  trigger: 'scheduled' | 'manual' | 'recovered';
  outcome: 'succeeded' | 'failed';
  started_at: string;
  duration_ms: number;
  request_method: string;
  request_url: string;
  request_headers: string;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  response_truncated: number;
  error_code: string | null;
  error: string | null;
}

/** What a delivery never changes after its creation (but its id). */
export type DeliveryOrigin = Pick<DeliveryRow, 'account_id' | 'target_kind' | 'target_id' | 'category' | 'event'>;

/** A claimed delivery's fields but its id, its origin, and its status and updated_at (just set). */
export type ClaimedFields = Omit<DeliveryRow, 'id' | keyof DeliveryOrigin | 'status' | 'updated_at'>;

/** What an attempt changes on its delivery. */
export interface DeliveryUpdate {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  scheduled_attempts: number;
  next_attempt_at: number | null;
  target_url: string;
  last_status_code: number | null;
  last_error: string | null;
  updated_at: string;
}

export interface DeliveryFilter {
  /** A stored status, or `failing` (pending or sending after a failed attempt). */
  status?: DeliveryListStatus;
  /** Text in the recipient, target URL or payload; an address matches its deliveries (see `deliverySearchTerm`). */
  q?: string;
  /** The recipient's address, case-insensitive. */
  recipient?: string;
  event?: string;
  ref_id?: string;
  category?: string;
  target_id?: string;
  account_id?: string;
  /** Return rows with an id below this one (newest first). */
  before?: string;
  limit: number;
}

export type DeliveryCountFilter = Omit<DeliveryFilter, 'before' | 'limit'>;

export class DeliveriesRepo {
  private readonly stmts;
  /** One transaction wrapper for every `transaction` call (better-sqlite3 builds one per `db.transaction`). */
  private readonly runInTransaction: (fn: () => unknown) => unknown;

  constructor(private readonly db: Db) {
    this.runInTransaction = db.transaction((fn: () => unknown) => fn());
    this.stmts = {
      // Positional parameters on the hot paths: binding an array is cheaper than naming each field.
      insert: db.prepare<unknown[]>(
        `INSERT INTO deliveries (id, account_id, target_kind, target_id, category, event, ref_id, payload, target_url, status,
           attempts, scheduled_attempts, next_attempt_at, last_status_code, last_error, created_ms, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      // Claims one delivery known to be due; returns what a caller does not already hold.
      claimOne: db.prepare<[string, string, number], ClaimedFields>(
        `UPDATE deliveries SET status = 'sending', updated_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at <= ?
          RETURNING ref_id, payload, target_url, attempts, scheduled_attempts, next_attempt_at, last_status_code, last_error, created_ms, created_at`,
      ),
      // Claims one delivery known to be due and not yet tried; returns its payload alone.
      claimUntried: db
        .prepare<[string, string, number], string>(
          "UPDATE deliveries SET status = 'sending', updated_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at <= ? AND attempts = 0 RETURNING payload",
        )
        .pluck(),
      claimAll: db.prepare<[string, number, number], DeliveryRow>(
        `UPDATE deliveries SET status = 'sending', updated_at = ?
          WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?)
          RETURNING *`,
      ),
      claimExcluding: db.prepare<[string, number, string, number], DeliveryRow>(
        `UPDATE deliveries SET status = 'sending', updated_at = ?
          WHERE id IN (SELECT id FROM deliveries
            WHERE status = 'pending' AND next_attempt_at <= ?
              AND target_kind || ':' || target_id NOT IN (SELECT value FROM json_each(?))
            ORDER BY next_attempt_at LIMIT ?)
          RETURNING *`,
      ),
      nextDueAfter: db.prepare<[number], { at: number | null }>(
        "SELECT MIN(next_attempt_at) AS at FROM deliveries WHERE status = 'pending' AND next_attempt_at > ?",
      ),
      nextDue: db.prepare<[], { at: number | null }>("SELECT MIN(next_attempt_at) AS at FROM deliveries WHERE status = 'pending'"),
      pendingCount: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'pending'"),
      release: db.prepare<[string, string]>("UPDATE deliveries SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'sending'"),
      markSendingAny: db.prepare<[string, string]>("UPDATE deliveries SET status = 'sending', updated_at = ? WHERE id = ? AND status <> 'sending'"),
      get: db.prepare<[string], DeliveryRow>('SELECT * FROM deliveries WHERE id = ?'),
      // A full scan, run once at start: cheaper than an index every status change has to maintain.
      sending: db.prepare<[], DeliveryRow>("SELECT * FROM deliveries WHERE status = 'sending' ORDER BY id"),
      update: db.prepare<unknown[]>(
        `UPDATE deliveries SET status = ?, attempts = ?, scheduled_attempts = ?, next_attempt_at = ?, target_url = ?,
           last_status_code = ?, last_error = ?, updated_at = ? WHERE id = ?`,
      ),
      insertAttempt: db.prepare<unknown[]>(
        `INSERT INTO delivery_attempts (delivery_id, number, trigger, outcome, started_at, duration_ms, request_method, request_url,
           request_headers, response_status, response_headers, response_body, response_truncated, error_code, error)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      // The earlier attempts of a delivery (a range of its primary key), cut where their bodies are longer.
      shrinkEarlier: db.prepare<[number, string, number, number]>(
        `UPDATE delivery_attempts SET response_body = substr(response_body, 1, ?), response_truncated = 1
          WHERE delivery_id = ? AND number < ? AND length(response_body) > ?`,
      ),
      attempts: db.prepare<[string], AttemptRow>('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY number'),
      // The payload as stored, as bytes (no decoding: served as it is).
      payload: db.prepare<[string], Buffer>('SELECT CAST(payload AS BLOB) FROM deliveries WHERE id = ?').pluck(),
      cancelTarget: db.prepare<[string, string, string]>(
        `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = ?
          WHERE target_id = ? AND target_kind = ? AND status = 'pending'`,
      ),
    };
  }

  /** Runs `fn` in one transaction (one commit for many writes). */
  transaction<T>(fn: () => T): T {
    return this.runInTransaction(fn) as T;
  }

  /** Whether a transaction is open (a caller's, which may still roll back). */
  inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /**
   * Records an attempt and its delivery's next state (call inside `transaction`). The earlier attempts
   * of the delivery then keep only the first `earlierBodyChars` characters of their response bodies:
   * what a delivery keeps stays small however often it is retried (its latest answer is kept longest).
   */
  writeAttempt(a: AttemptRow, update: DeliveryUpdate, earlierBodyChars: number = DELIVERY_BODY_LIMITS.earlierResponseBodyKeptChars): void {
    this.stmts.insertAttempt.run(
      a.delivery_id, a.number, a.trigger, a.outcome, a.started_at, a.duration_ms, a.request_method, a.request_url,
      a.request_headers, a.response_status, a.response_headers, a.response_body, a.response_truncated, a.error_code, a.error,
    );
    // A first attempt (most of them) has no earlier one: no statement.
    if (a.number > 1) this.stmts.shrinkEarlier.run(earlierBodyChars, a.delivery_id, a.number, earlierBodyChars);
    this.completeUpdate(update);
  }

  /**
   * Claims (marks `sending`) one delivery the caller knows, if it is still pending and due; returns
   * its fields but the unchanging ones (see `DeliveryOrigin`), or undefined when it is not (claimed
   * or cancelled meanwhile, or never committed).
   */
  claimOne(id: string, now: number, updatedAt: string): ClaimedFields | undefined {
    return this.stmts.claimOne.get(updatedAt, id, now);
  }

  /**
   * Claims (marks `sending`) one delivery the caller knows, if it is still pending, due, and has had
   * no attempt (so the caller knows all of it but its payload); returns its payload, or undefined
   * when it is not.
   */
  claimUntried(id: string, now: number, updatedAt: string): string | undefined {
    return this.stmts.claimUntried.get(updatedAt, id, now);
  }

  /**
   * Claims (marks `sending`) up to `limit` due deliveries, oldest due first, leaving out the given
   * targets (`kind:id`), and returns them (call inside `transaction`).
   */
  claimDue(now: number, excludeTargets: string[], limit: number, updatedAt: string): DeliveryRow[] {
    const rows =
      excludeTargets.length === 0
        ? this.stmts.claimAll.all(updatedAt, now, limit)
        : this.stmts.claimExcluding.all(updatedAt, now, JSON.stringify(excludeTargets), limit);
    // RETURNING gives no order.
    return rows.sort((a, b) => a.next_attempt_at! - b.next_attempt_at! || (a.id < b.id ? -1 : 1));
  }

  insert(r: DeliveryRow): void {
    this.stmts.insert.run(
      r.id, r.account_id, r.target_kind, r.target_id, r.category, r.event, r.ref_id, r.payload, r.target_url, r.status,
      r.attempts, r.scheduled_attempts, r.next_attempt_at, r.last_status_code, r.last_error, r.created_ms, r.created_at, r.updated_at,
    );
  }

  /** The earliest next attempt of any pending delivery. */
  nextDueAt(): number | null {
    return this.stmts.nextDue.get()!.at;
  }

  /** The earliest next attempt strictly after `now` (what a timer must wait for). */
  nextDueAfter(now: number): number | null {
    return this.stmts.nextDueAfter.get(now)!.at;
  }

  pendingCount(): number {
    return this.stmts.pendingCount.get()!.n;
  }

  /** Returns claimed but unsent deliveries to pending (on a graceful stop, or over a target's limit). */
  release(ids: string[], updatedAt: string): void {
    for (const id of ids) this.stmts.release.run(updatedAt, id);
  }

  /** Changes a delivery without an attempt (for example: cancelled because its target is gone). */
  completeUpdate(u: DeliveryUpdate): void {
    this.stmts.update.run(u.status, u.attempts, u.scheduled_attempts, u.next_attempt_at, u.target_url, u.last_status_code, u.last_error, u.updated_at, u.id);
  }

  /** Marks a delivery as being sent by hand; false when an attempt is already in flight. */
  claimForManual(id: string, updatedAt: string): boolean {
    return this.stmts.markSendingAny.run(updatedAt, id).changes === 1;
  }

  get(id: string): DeliveryRow | undefined {
    return this.stmts.get.get(id);
  }

  /** Deliveries left `sending` by a process that stopped mid-attempt. */
  interrupted(): DeliveryRow[] {
    return this.stmts.sending.all();
  }

  attempts(deliveryId: string): AttemptRow[] {
    return this.stmts.attempts.all(deliveryId);
  }

  /** A delivery's payload, whole, as the bytes of JSON stored. */
  payload(id: string): Buffer | undefined {
    return this.stmts.payload.get(id);
  }

  /** Cancels the pending deliveries of a target (its webhook was deleted). Returns how many. */
  cancelForTarget(kind: string, id: string, updatedAt: string): number {
    return this.stmts.cancelTarget.run(updatedAt, id, kind).changes;
  }

  /** Newest first, filtered; `before` is the id of the last row of the previous page. */
  list(filter: DeliveryFilter): ListedRow[] {
    const { where, params } = this.where(filter);
    if (filter.before !== undefined) {
      where.push('d.id < @before');
      params.before = filter.before;
    }
    params.limit = filter.limit;
    const sql = `SELECT ${LISTED} FROM deliveries d
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.id DESC LIMIT @limit`;
    return this.db.prepare<[Record<string, unknown>], ListedRow>(sql).all(params);
  }

  /** How many deliveries the list's filters match. */
  count(filter: DeliveryCountFilter): number {
    const { where, params } = this.where(filter);
    const sql = `SELECT COUNT(*) AS n FROM deliveries d ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
    return this.db.prepare<[Record<string, unknown>], { n: number }>(sql).get(params)!.n;
  }

  /**
   * One delivery as its detail shows it (see `DetailRow`): its payload whole when it has at most
   * `shownBytes` bytes, else its first `shownBytes` characters (a large payload is never read whole).
   */
  detail(id: string, shownBytes: number): DetailRow | undefined {
    return this.db
      .prepare<[number, number, string], DetailRow>(
        `SELECT ${LISTED}, octet_length(d.payload) AS payload_bytes,
           CASE WHEN octet_length(d.payload) <= ? THEN d.payload ELSE substr(d.payload, 1, ?) END AS payload_head
         FROM deliveries d WHERE d.id = ?`,
      )
      .get(shownBytes, shownBytes, id);
  }

  /**
   * Every target deliveries went to, the most recently used first: its deliveries by status, the failing
   * ones, its attempts and failed attempts, and the URL of its latest delivery.
   */
  endpoints(accountId?: string): EndpointRow[] {
    const byAccount = accountId === undefined ? '' : 'WHERE d.account_id = @account_id';
    const sql = `
      WITH tried AS (
        SELECT d.target_kind, d.target_id, COUNT(*) AS attempts, SUM(a.outcome = 'failed') AS failed_attempts, MAX(a.started_at) AS last_attempt_at
          FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id ${byAccount}
         GROUP BY d.target_kind, d.target_id
      ), targets AS (
        SELECT d.target_kind, d.target_id, MAX(d.id) AS newest, d.account_id, d.target_url, COUNT(*) AS deliveries,
               SUM(d.status = 'succeeded') AS succeeded, SUM(d.status = 'failed') AS failed,
               SUM(d.status IN ('pending', 'sending')) AS pending, SUM(${FAILING}) AS failing, SUM(d.status = 'cancelled') AS cancelled
          FROM deliveries d ${byAccount}
         GROUP BY d.target_kind, d.target_id
      )
      SELECT t.target_kind, t.target_id, t.account_id, t.target_url, t.deliveries, t.succeeded, t.failed, t.pending, t.failing, t.cancelled,
             COALESCE(a.attempts, 0) AS attempts, COALESCE(a.failed_attempts, 0) AS failed_attempts, a.last_attempt_at
        FROM targets t LEFT JOIN tried a ON a.target_kind = t.target_kind AND a.target_id = t.target_id
       ORDER BY t.newest DESC`;
    return this.db.prepare<[Record<string, unknown>], EndpointRow>(sql).all(accountId === undefined ? {} : { account_id: accountId });
  }

  private where(filter: DeliveryCountFilter): { where: string[]; params: Record<string, unknown> } {
    const where: string[] = [];
    const params: Record<string, unknown> = {};
    for (const key of ['event', 'ref_id', 'category', 'target_id', 'account_id'] as const) {
      if (filter[key] !== undefined) {
        where.push(`d.${key} = @${key}`);
        params[key] = filter[key];
      }
    }
    if (filter.status === 'failing') where.push(FAILING);
    else if (filter.status !== undefined) {
      where.push('d.status = @status');
      params.status = filter.status;
    }
    if (filter.recipient !== undefined && filter.recipient.trim() !== '') {
      where.push(`lower(${RECIPIENT}) = @recipient`);
      params.recipient = asciiLower(filter.recipient.trim());
    }
    const term = filter.q === undefined ? null : deliverySearchTerm(filter.q);
    if (term && 'address' in term) {
      // The address as a whole: its recipient, or a JSON string of the payload that is exactly it (the
      // sender, an inbound post's "to"...); never a longer address that ends with it.
      where.push(`(lower(${RECIPIENT}) = @q_address OR instr(lower(d.payload), @q_quoted) > 0)`);
      params.q_address = term.address;
      params.q_quoted = JSON.stringify(term.address);
    } else if (term) {
      // The recipient is part of the payload.
      where.push('(instr(lower(d.target_url), @q_text) > 0 OR instr(lower(d.payload), @q_text) > 0)');
      params.q_text = term.text;
    }
    return { where, params };
  }
}
