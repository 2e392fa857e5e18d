import type { DeliveryListStatus } from '../../../src-shared/schemas/dispatch';
import type { Db } from './database';
import type { DeliveryRow } from './delivery-row';

/*
 * The deliveries as the control API reads them: lists with their filters and counts, one delivery's
 * detail (a large payload only in part), and the targets with their counts. Never the dispatcher's
 * hot path (deliveries.repo.ts).
 */

/**
 * Whom a delivery's payload is about, read from the stored JSON when listed (not a stored column: the
 * hot path's insert stays as it is): an email event's `recipient.email` (inside `mailer_events` in the
 * newer guide's shape), an inbound post's `recipient`, an IMAP message's first `to`.
 */
const RECIPIENT = `COALESCE(d.payload ->> '$.recipient.email',
  CASE json_type(d.payload, '$.recipient') WHEN 'text' THEN d.payload ->> '$.recipient' END,
  d.payload ->> '$.to[0].email', d.payload ->> '$.mailer_events.recipient.email')`;
/** The payload's subject, else (an open, a bounce...) the subject of the send it is about: its recipient's copy first. */
const SUBJECT = `COALESCE(CASE json_type(d.payload, '$.subject') WHEN 'text' THEN d.payload ->> '$.subject' END,
  CASE json_type(d.payload, '$.mailer_events.subject') WHEN 'text' THEN d.payload ->> '$.mailer_events.subject' END,
  (SELECT m.subject FROM messages m WHERE d.ref_id IS NOT NULL AND m.ref_id = d.ref_id ORDER BY m.recipient_lc = lower(${RECIPIENT}) DESC LIMIT 1))`;
/**
 * What a list shows of a delivery: every column but the payload (which may be many megabytes, and a
 * list never shows it), with its recipient and subject cut to what an address and a subject line can
 * be (320 and 998 characters), so a page is bounded whatever the payloads hold.
 */
const LISTED = `d.id, d.account_id, d.target_kind, d.target_id, d.category, d.event, d.ref_id, d.target_url, d.status, d.attempts,
  d.scheduled_attempts, d.next_attempt_at, d.last_status_code, d.last_error, d.created_ms, d.created_at, d.updated_at,
  d.webhook_id, substr(${RECIPIENT}, 1, 320) AS recipient, substr(${SUBJECT}, 1, 998) AS subject`;

/** Still to be delivered after at least one failed attempt (as `StatsRepo.failingDeliveries` counts them). */
const FAILING = "d.status IN ('pending', 'sending') AND d.attempts > 0";

/**
 * What "retry all failing" retries: given up (`failed`, its retries spent) or waiting for a retry
 * (`pending` after a failed attempt). One on the wire (`sending`) is left to finish.
 */
const RETRYABLE = "(d.status = 'failed' OR (d.status = 'pending' AND d.attempts > 0))";

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

export class DeliveryList {
  constructor(private readonly db: Db) {}

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

  /** The ids of a target's deliveries that "retry all failing" retries (see RETRYABLE), oldest first, at most `limit`. */
  retryable(kind: string, id: string, limit: number): string[] {
    return this.db
      .prepare<[string, string, number], string>(
        `SELECT d.id FROM deliveries d WHERE d.target_kind = ? AND d.target_id = ? AND ${RETRYABLE} ORDER BY d.id LIMIT ?`,
      )
      .pluck()
      .all(kind, id, limit);
  }

  /** How many of a target's deliveries "retry all failing" would retry. */
  countRetryable(kind: string, id: string): number {
    return this.db
      .prepare<[string, string], number>(`SELECT COUNT(*) FROM deliveries d WHERE d.target_kind = ? AND d.target_id = ? AND ${RETRYABLE}`)
      .pluck()
      .get(kind, id)!;
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
