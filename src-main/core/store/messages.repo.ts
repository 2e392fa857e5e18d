import type { EmailStatus } from '../../../src-shared/schemas/email';
import type { Db } from './database';

export interface MessageContentRow {
  send_id: string;
  raw: Buffer;
}

export interface MessageRow {
  ref_id: string;
  account_id: string;
  send_id: string;
  source: 'api' | 'smtp';
  from_email: string;
  from_name: string;
  recipient_email: string;
  recipient_lc: string;
  recipient_domain: string;
  recipient_name: string;
  recipient_type: 'to' | 'cc' | 'bcc';
  subject: string;
  campaign_id: string;
  mailer_id: string;
  custom_args: string;
  status: EmailStatus;
  created_ms: number;
  created_at: string;
  delivered_ms: number | null;
  delivered_at: string | null;
}

export interface MessageEventRow {
  ref_id: string;
  seq: number;
  event: string;
  timestamp: string;
  delivery_id: string | null;
}

/** The filters of the email logs, resolved to SQL terms. Ranges: start inclusive, end exclusive (epoch ms). */
export interface LogFilter {
  accountId: string;
  recipientLc?: string;
  domain?: string;
  refId?: string;
  createdFrom?: number;
  createdTo?: number;
  status?: string;
  subject?: string;
  campaignId?: string;
  recipientType?: string;
  deliveredFrom?: number;
  deliveredTo?: number;
  /** Rows with a ref_id below this one (the last of the previous page). */
  before?: string;
  limit: number;
}

/** `%` and `_` of a user's substring are literal in LIKE. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The UI's search of captured messages: a substring of recipient, subject or sender, and exact filters. */
export interface MessageSearch {
  q?: string;
  status?: string;
  campaignId?: string;
  accountId?: string;
}

function searchTerms(filter: MessageSearch): { where: string[]; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (filter.q !== undefined && filter.q !== '') {
    where.push("(recipient_lc LIKE '%' || @q || '%' ESCAPE '\\' OR subject LIKE '%' || @q || '%' ESCAPE '\\' OR from_email LIKE '%' || @q || '%' ESCAPE '\\' OR ref_id = @refId)");
    params.q = likeLiteral(filter.q.toLowerCase());
    params.refId = filter.q.trim().toUpperCase();
  }
  for (const [sql, name, value] of [
    ['status = @status', 'status', filter.status],
    ['campaign_id = @campaignId', 'campaignId', filter.campaignId],
    ['account_id = @accountId', 'accountId', filter.accountId],
  ] as const) {
    if (value === undefined) continue;
    where.push(sql);
    params[name] = value;
  }
  return { where, params };
}

export class MessagesRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insertContent: db.prepare<[MessageContentRow]>(
        'INSERT INTO message_contents (send_id, raw) VALUES (@send_id, @raw)',
      ),
      insertMessage: db.prepare<[MessageRow]>(
        `INSERT INTO messages (ref_id, account_id, send_id, source, from_email, from_name, recipient_email, recipient_lc, recipient_domain,
           recipient_name, recipient_type, subject, campaign_id, mailer_id, custom_args, status, created_ms, created_at, delivered_ms, delivered_at)
         VALUES (@ref_id, @account_id, @send_id, @source, @from_email, @from_name, @recipient_email, @recipient_lc, @recipient_domain,
           @recipient_name, @recipient_type, @subject, @campaign_id, @mailer_id, @custom_args, @status, @created_ms, @created_at, @delivered_ms, @delivered_at)`,
      ),
      get: db.prepare<[string], MessageRow>('SELECT * FROM messages WHERE ref_id = ?'),
      setStatus: db.prepare<[string, string]>('UPDATE messages SET status = ? WHERE ref_id = ?'),
      setDelivered: db.prepare<[string, number, string, string]>(
        'UPDATE messages SET status = ?, delivered_ms = ?, delivered_at = ? WHERE ref_id = ?',
      ),
      nextSeq: db.prepare<[string], { seq: number }>('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM message_events WHERE ref_id = ?'),
      insertEvent: db.prepare<[MessageEventRow]>(
        'INSERT INTO message_events (ref_id, seq, event, timestamp, delivery_id) VALUES (@ref_id, @seq, @event, @timestamp, @delivery_id)',
      ),
      insertToken: db.prepare<[{ token: string; ref_id: string; kind: string; url: string | null; link_name: string | null }]>(
        'INSERT INTO tracking_tokens (token, ref_id, kind, url, link_name) VALUES (@token, @ref_id, @kind, @url, @link_name)',
      ),
      token: db.prepare<[string], { token: string; ref_id: string; kind: 'open' | 'click' | 'unsubscribe'; url: string | null; link_name: string | null }>(
        'SELECT * FROM tracking_tokens WHERE token = ?',
      ),
      content: db.prepare<[string], MessageContentRow>('SELECT * FROM message_contents WHERE send_id = ?'),
      deleteOne: db.prepare<[string]>('DELETE FROM messages WHERE ref_id = ?'),
      deleteAll: db.prepare('DELETE FROM message_contents'),
      dropOrphanContent: db.prepare<[{ send_id: string }]>(
        'DELETE FROM message_contents WHERE send_id = @send_id AND NOT EXISTS (SELECT 1 FROM messages WHERE send_id = @send_id)',
      ),
      eventsOf: db.prepare<[string], MessageEventRow>(
        'SELECT * FROM message_events WHERE ref_id IN (SELECT value FROM json_each(?)) ORDER BY ref_id, seq',
      ),
    };
  }

  insertContent(row: MessageContentRow): void {
    this.stmts.insertContent.run(row);
  }

  insertMessage(row: MessageRow): void {
    this.stmts.insertMessage.run(row);
  }

  get(refId: string): MessageRow | undefined {
    return this.stmts.get.get(refId);
  }

  setStatus(refId: string, status: string): void {
    this.stmts.setStatus.run(status, refId);
  }

  setDelivered(refId: string, status: string, deliveredMs: number, deliveredAt: string): void {
    this.stmts.setDelivered.run(status, deliveredMs, deliveredAt, refId);
  }

  addEvent(refId: string, event: string, timestamp: string, deliveryId: string | null): void {
    const seq = this.stmts.nextSeq.get(refId)!.seq;
    this.stmts.insertEvent.run({ ref_id: refId, seq, event, timestamp, delivery_id: deliveryId });
  }

  /** The events of these messages, grouped by ref_id, in order. */
  eventsOf(refIds: string[]): Map<string, MessageEventRow[]> {
    const out = new Map<string, MessageEventRow[]>();
    if (refIds.length === 0) return out;
    for (const row of this.stmts.eventsOf.all(JSON.stringify(refIds))) {
      const list = out.get(row.ref_id) ?? [];
      list.push(row);
      out.set(row.ref_id, list);
    }
    return out;
  }

  insertToken(row: { token: string; ref_id: string; kind: string; url: string | null; link_name: string | null }): void {
    this.stmts.insertToken.run(row);
  }

  token(token: string) {
    return this.stmts.token.get(token);
  }

  content(sendId: string): MessageContentRow | undefined {
    return this.stmts.content.get(sendId);
  }

  /** Deletes one message (and its composed content once no recipient of that send is left). */
  deleteOne(refId: string): boolean {
    return this.db.transaction(() => {
      const row = this.get(refId);
      if (!row) return false;
      this.stmts.deleteOne.run(refId);
      this.stmts.dropOrphanContent.run({ send_id: row.send_id });
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

  /** Captured messages for the UI: newest first, searched and filtered. */
  search(filter: MessageSearch & { before?: string; limit: number }): MessageRow[] {
    const { where, params } = searchTerms(filter);
    if (filter.before !== undefined) {
      where.push('ref_id < @before');
      params.before = filter.before;
    }
    params.limit = filter.limit;
    const sql = `SELECT * FROM messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ref_id DESC LIMIT @limit`;
    return this.db.prepare<[Record<string, unknown>], MessageRow>(sql).all(params);
  }

  /** How many messages the same search finds (the UI's list shows it; an index-only count without q). */
  count(filter: MessageSearch): number {
    const { where, params } = searchTerms(filter);
    const sql = `SELECT COUNT(*) AS n FROM messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
    return this.db.prepare<[Record<string, unknown>], { n: number }>(sql).get(params)!.n;
  }

  /** The email logs: newest first, filtered. Each filter has an index that keeps ref_id order. */
  logs(filter: LogFilter): MessageRow[] {
    const where = ['account_id = @accountId'];
    const params: Record<string, unknown> = { accountId: filter.accountId, limit: filter.limit };
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
    add("subject LIKE '%' || @subject || '%' ESCAPE '\\'", 'subject', filter.subject === undefined ? undefined : likeLiteral(filter.subject));
    add('campaign_id = @campaignId', 'campaignId', filter.campaignId);
    add('recipient_type = @recipientType', 'recipientType', filter.recipientType);
    add('delivered_ms >= @deliveredFrom', 'deliveredFrom', filter.deliveredFrom);
    add('delivered_ms < @deliveredTo', 'deliveredTo', filter.deliveredTo);
    add('ref_id < @before', 'before', filter.before);
    const sql = `SELECT * FROM messages WHERE ${where.join(' AND ')} ORDER BY ref_id DESC LIMIT @limit`;
    return this.db.prepare<[Record<string, unknown>], MessageRow>(sql).all(params);
  }
}
