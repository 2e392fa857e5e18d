import { DELIVERY_BODY_LIMITS, type DeliveryStatus } from '../../../src-shared/schemas/dispatch';
import type { Db } from './database';
import { type DeliveryCountFilter, type DeliveryFilter, DeliveryList, type DetailRow, type EndpointRow, type ListedRow } from './delivery-list';

export { deliverySearchTerm } from './delivery-list';
export type { DeliveryRow } from './delivery-row';

import type { DeliveryRow } from './delivery-row';

export type { DeliveryCountFilter, DeliveryFilter, DetailRow, EndpointRow, ListedRow } from './delivery-list';

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

export class DeliveriesRepo {
  private readonly stmts;
  /** One transaction wrapper for every `transaction` call (better-sqlite3 builds one per `db.transaction`). */
  private readonly runInTransaction: (fn: () => unknown) => unknown;

  /** What the control API reads (delivery-list.ts). */
  private readonly reads: DeliveryList;

  constructor(private readonly db: Db) {
    this.reads = new DeliveryList(db);
    this.runInTransaction = db.transaction((fn: () => unknown) => fn());
    this.stmts = {
      // Positional parameters on the hot paths: binding an array is cheaper than naming each field.
      insert: db.prepare<unknown[]>(
        `INSERT INTO deliveries (id, account_id, target_kind, target_id, category, event, ref_id, payload, target_url, status,
           attempts, scheduled_attempts, next_attempt_at, last_status_code, last_error, created_ms, created_at, updated_at, webhook_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      // Claims one delivery known to be due; returns what a caller does not already hold.
      claimOne: db.prepare<[string, string, number], ClaimedFields>(
        `UPDATE deliveries SET status = 'sending', updated_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at <= ?
          RETURNING ref_id, payload, target_url, attempts, scheduled_attempts, next_attempt_at, last_status_code, last_error, created_ms, created_at,
            webhook_id`,
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
      exists: db.prepare<[string], number>('SELECT 1 FROM deliveries WHERE id = ?').pluck(),
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
      a.delivery_id,
      a.number,
      a.trigger,
      a.outcome,
      a.started_at,
      a.duration_ms,
      a.request_method,
      a.request_url,
      a.request_headers,
      a.response_status,
      a.response_headers,
      a.response_body,
      a.response_truncated,
      a.error_code,
      a.error,
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
      r.id,
      r.account_id,
      r.target_kind,
      r.target_id,
      r.category,
      r.event,
      r.ref_id,
      r.payload,
      r.target_url,
      r.status,
      r.attempts,
      r.scheduled_attempts,
      r.next_attempt_at,
      r.last_status_code,
      r.last_error,
      r.created_ms,
      r.created_at,
      r.updated_at,
      r.webhook_id,
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

  /** Whether a delivery of that id exists (without reading its payload). */
  exists(id: string): boolean {
    return this.stmts.exists.get(id) !== undefined;
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
    return this.reads.list(filter);
  }

  /** How many deliveries the list's filters match. */
  count(filter: DeliveryCountFilter): number {
    return this.reads.count(filter);
  }

  /** One delivery as its detail shows it (a payload over `shownBytes` in part): see `DeliveryList.detail`. */
  detail(id: string, shownBytes: number): DetailRow | undefined {
    return this.reads.detail(id, shownBytes);
  }

  /** A target's failed deliveries and those waiting for a retry, oldest first: see `DeliveryList.retryable`. */
  retryable(kind: string, id: string, limit: number): string[] {
    return this.reads.retryable(kind, id, limit);
  }

  countRetryable(kind: string, id: string): number {
    return this.reads.countRetryable(kind, id);
  }

  /** Every target deliveries went to, with its counts, the most recently used first. */
  endpoints(accountId?: string): EndpointRow[] {
    return this.reads.endpoints(accountId);
  }
}
