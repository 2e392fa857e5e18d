import type { Db } from './database';

export interface InboundDomainRow {
  id: string;
  account_id: string;
  domain: string;
  url: string;
  method: string;
  headers: string;
  /** 1: the route also catches every subdomain of `domain` (migration 0024). */
  wildcard: number;
  /** 1: only replies to a message the account sent are posted (migration 0024). */
  strict_replies: number;
  created_at: string;
  updated_at: string;
}

export interface InboundUsernameRow {
  id: string;
  domain_id: string;
  username: string;
  url: string | null;
  method: string | null;
  headers: string | null;
  created_at: string;
  updated_at: string;
}

export interface InboundMessageRow {
  ref_id: string;
  account_id: string;
  domain: string;
  username: string;
  source: 'smtp' | 'api';
  from_email: string;
  subject: string;
  /** As it came; empty for refused mail, which is not kept. */
  raw: Buffer;
  delivery_id: string | null;
  created_ms: number;
  created_at: string;
  /** The inbound guide's rule that decided it (migration 0039); null for mail stored before. */
  rule: string | null;
  /** Why it was refused (starting with the rule's name); null when it was accepted and posted. */
  refused: string | null;
}

/** An inbound email as the lists show it: its row without its bytes. */
export type InboundMessageListRow = Omit<InboundMessageRow, 'raw' | 'created_ms'>;

const LIST_COLUMNS = 'ref_id, account_id, domain, username, source, from_email, subject, delivery_id, created_at, rule, refused';

type DomainSettings = Pick<InboundDomainRow, 'id' | 'url' | 'method' | 'headers' | 'wildcard' | 'strict_replies' | 'updated_at'>;

export class InboundRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      domain: db.prepare<[string, string], InboundDomainRow>('SELECT * FROM inbound_domains WHERE account_id = ? AND domain = ?'),
      domainById: db.prepare<[string], InboundDomainRow>('SELECT * FROM inbound_domains WHERE id = ?'),
      /** Every account's route of a domain, the oldest first. */
      domainRoutes: db.prepare<[string], InboundDomainRow>('SELECT * FROM inbound_domains WHERE domain = ? ORDER BY id'),
      routedDomains: db.prepare<[], { domain: string }>('SELECT DISTINCT domain FROM inbound_domains'),
      insertDomain: db.prepare<[InboundDomainRow]>(
        `INSERT INTO inbound_domains (id, account_id, domain, url, method, headers, wildcard, strict_replies, created_at, updated_at)
         VALUES (@id, @account_id, @domain, @url, @method, @headers, @wildcard, @strict_replies, @created_at, @updated_at)`,
      ),
      updateDomain: db.prepare<[DomainSettings]>(
        'UPDATE inbound_domains SET url = @url, method = @method, headers = @headers, wildcard = @wildcard, strict_replies = @strict_replies, updated_at = @updated_at WHERE id = @id',
      ),
      /** A copy the account sent, by the key of its Message-ID `<key@mailyard.local>`. */
      sentCopy: db.prepare<[string, string], { id: string }>(
        'SELECT id FROM messages WHERE id = ? AND account_number = (SELECT number FROM accounts WHERE id = ?)',
      ),
      deleteDomain: db.prepare<[string]>('DELETE FROM inbound_domains WHERE id = ?'),
      username: db.prepare<[string, string], InboundUsernameRow>('SELECT * FROM inbound_usernames WHERE domain_id = ? AND username = ?'),
      usernameById: db.prepare<[string], InboundUsernameRow>('SELECT * FROM inbound_usernames WHERE id = ?'),
      usernamesOf: db.prepare<[string], InboundUsernameRow>('SELECT * FROM inbound_usernames WHERE domain_id = ? ORDER BY username'),
      insertUsername: db.prepare<[InboundUsernameRow]>(
        `INSERT INTO inbound_usernames (id, domain_id, username, url, method, headers, created_at, updated_at)
         VALUES (@id, @domain_id, @username, @url, @method, @headers, @created_at, @updated_at)`,
      ),
      updateUsername: db.prepare<[Pick<InboundUsernameRow, 'id' | 'url' | 'method' | 'headers' | 'updated_at'>]>(
        'UPDATE inbound_usernames SET url = @url, method = @method, headers = @headers, updated_at = @updated_at WHERE id = @id',
      ),
      insertMessage: db.prepare<[InboundMessageRow]>(
        `INSERT INTO inbound_messages (ref_id, account_id, domain, username, source, from_email, subject, raw, delivery_id, created_ms, created_at, rule, refused)
         VALUES (@ref_id, @account_id, @domain, @username, @source, @from_email, @subject, @raw, @delivery_id, @created_ms, @created_at, @rule, @refused)`,
      ),
      message: db.prepare<[string], InboundMessageRow>('SELECT * FROM inbound_messages WHERE ref_id = ?'),
      // Newest first (ref_ids are ULIDs in the order mail came): every account's, one account's (its index), one by its key.
      list: db.prepare<[number], InboundMessageListRow>(`SELECT ${LIST_COLUMNS} FROM inbound_messages ORDER BY ref_id DESC LIMIT ?`),
      listOf: db.prepare<[string, number], InboundMessageListRow>(
        `SELECT ${LIST_COLUMNS} FROM inbound_messages WHERE account_id = ? ORDER BY ref_id DESC LIMIT ?`,
      ),
      listed: db.prepare<[string], InboundMessageListRow>(`SELECT ${LIST_COLUMNS} FROM inbound_messages WHERE ref_id = ?`),
    };
  }

  domain(accountId: string, domain: string): InboundDomainRow | undefined {
    return this.stmts.domain.get(accountId, domain);
  }

  domainById(id: string): InboundDomainRow | undefined {
    return this.stmts.domainById.get(id);
  }

  domainRoutes(domain: string): InboundDomainRow[] {
    return this.stmts.domainRoutes.all(domain);
  }

  /** Every domain some account routes. */
  routedDomains(): string[] {
    return this.stmts.routedDomains.all().map((r) => r.domain);
  }

  insertDomain(row: InboundDomainRow): void {
    this.stmts.insertDomain.run(row);
  }

  updateDomain(row: DomainSettings): void {
    this.stmts.updateDomain.run(row);
  }

  /** Whether the account sent the copy whose Message-ID key this is (strict replies). */
  sentByAccount(copyId: string, accountId: string): boolean {
    return this.stmts.sentCopy.get(copyId, accountId) !== undefined;
  }

  deleteDomain(id: string): void {
    this.stmts.deleteDomain.run(id);
  }

  username(domainId: string, username: string): InboundUsernameRow | undefined {
    return this.stmts.username.get(domainId, username);
  }

  usernameById(id: string): InboundUsernameRow | undefined {
    return this.stmts.usernameById.get(id);
  }

  usernamesOf(domainId: string): InboundUsernameRow[] {
    return this.stmts.usernamesOf.all(domainId);
  }

  insertUsername(row: InboundUsernameRow): void {
    this.stmts.insertUsername.run(row);
  }

  updateUsername(row: Pick<InboundUsernameRow, 'id' | 'url' | 'method' | 'headers' | 'updated_at'>): void {
    this.stmts.updateUsername.run(row);
  }

  insertMessage(row: InboundMessageRow): void {
    this.stmts.insertMessage.run(row);
  }

  message(refId: string): InboundMessageRow | undefined {
    return this.stmts.message.get(refId);
  }

  /** Inbound mail, accepted and refused, newest first: `limit` at most, of one account or one ref_id when given. */
  list(filter: { refId?: string; accountId?: string; limit: number }): InboundMessageListRow[] {
    if (filter.refId !== undefined)
      return this.stmts.listed.all(filter.refId).filter((r) => filter.accountId === undefined || r.account_id === filter.accountId);
    return filter.accountId === undefined ? this.stmts.list.all(filter.limit) : this.stmts.listOf.all(filter.accountId, filter.limit);
  }
}
