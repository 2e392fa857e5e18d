import type { Db } from './database';

export interface MailerRow {
  id: string;
  account_id: string;
  config_type: 'smtp' | 'imap';
  name: string;
  email: string;
  connection_type: 'basic' | 'oauth';
  host: string;
  port: number;
  username: string;
  secure: string;
  password_enc: Buffer | null;
  webhook: string | null;
  oauth_active: number;
  oauth_token_enc: Buffer | null;
  oauth_meta: string | null;
  status: string;
  last_error: string | null;
  imap_uidvalidity: number | null;
  imap_uid_next: number | null;
  created_at: string;
  updated_at: string;
}

export type MailerSettings = Pick<
  MailerRow,
  'id' | 'name' | 'email' | 'connection_type' | 'host' | 'port' | 'username' | 'secure' | 'password_enc' | 'webhook' | 'status' | 'last_error' | 'updated_at'
>;

export interface ImapMessageRow {
  ref_id: string;
  mailer_id: string;
  account_id: string;
  uidvalidity: number;
  uid: number;
  message_id: string;
  from_email: string;
  subject: string;
  raw: Buffer;
  bounce_ref_id: string | null;
  delivery_id: string | null;
  created_ms: number;
  created_at: string;
  /** Why the message is not taken whole (mailparser refused it, or it was over the size limit); null when it is. */
  problem: string | null;
  /** Its size on the server when `raw` is only its header block (over the size limit); null when `raw` is all of it. */
  server_size: number | null;
}

/** A listed message: its row without the raw source, and its size in bytes on the server. */
export type ImapMessageListRow = Omit<ImapMessageRow, 'raw' | 'server_size'> & { size: number };

export interface RelayRow {
  /** The copy (one recipient of a send) waiting to be relayed. */
  message_id: string;
  mailer_id: string;
  queued_ms: number;
  /** Attempts made so far (each ended in a temporary failure). */
  attempts: number;
  /** When the next attempt is due (emulated epoch ms). */
  next_ms: number;
  last_reply: string | null;
}

export interface OAuthRequestRow {
  state: string;
  account_id: string;
  app_id: string;
  redirect_uri: string | null;
  mailer_id: string | null;
  type: string | null;
  status: 'pending' | 'approved' | 'denied' | 'used';
  /** JSON of oauthLogin's options (client state, include_*, strict_replies, webhook); see migration 0023. */
  options: string | null;
  code_hash: string | null;
  created_ms: number;
  expires_ms: number;
}

/** SMTP and IMAP configurations, the relay queue, messages taken from IMAP inboxes, OAuth requests. */
export class MailersRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare<[MailerRow]>(
        `INSERT INTO mailers (id, account_id, config_type, name, email, connection_type, host, port, username, secure, password_enc,
           webhook, oauth_active, oauth_token_enc, oauth_meta, status, last_error, imap_uidvalidity, imap_uid_next, created_at, updated_at)
         VALUES (@id, @account_id, @config_type, @name, @email, @connection_type, @host, @port, @username, @secure, @password_enc,
           @webhook, @oauth_active, @oauth_token_enc, @oauth_meta, @status, @last_error, @imap_uidvalidity, @imap_uid_next, @created_at, @updated_at)`,
      ),
      update: db.prepare<[MailerSettings]>(
        `UPDATE mailers SET name = @name, email = @email, connection_type = @connection_type, host = @host, port = @port,
           username = @username, secure = @secure, password_enc = @password_enc, webhook = @webhook, status = @status,
           last_error = @last_error, updated_at = @updated_at WHERE id = @id`,
      ),
      byId: db.prepare<[string], MailerRow>('SELECT * FROM mailers WHERE id = ?'),
      ofAccount: db.prepare<[string, string], MailerRow>('SELECT * FROM mailers WHERE account_id = ? AND config_type = ? ORDER BY id'),
      all: db.prepare<[], MailerRow>('SELECT * FROM mailers ORDER BY id'),
      ofType: db.prepare<[string], MailerRow>('SELECT * FROM mailers WHERE config_type = ? ORDER BY id'),
      delete: db.prepare<[string]>('DELETE FROM mailers WHERE id = ?'),
      setStatus: db.prepare<[string, string | null, string]>('UPDATE mailers SET status = ?, last_error = ? WHERE id = ?'),
      setOAuthActive: db.prepare<[number, string, string]>('UPDATE mailers SET oauth_active = ?, updated_at = ? WHERE id = ?'),
      setOAuthToken: db.prepare<[Buffer, string, string, string]>(
        'UPDATE mailers SET oauth_token_enc = ?, oauth_meta = ?, oauth_active = 1, updated_at = ? WHERE id = ?',
      ),
      setImapPosition: db.prepare<[number, number, string]>('UPDATE mailers SET imap_uidvalidity = ?, imap_uid_next = ? WHERE id = ?'),
      insertImapMessage: db.prepare<[ImapMessageRow]>(
        `INSERT OR IGNORE INTO imap_messages (ref_id, mailer_id, account_id, uidvalidity, uid, message_id, from_email, subject, raw,
           bounce_ref_id, delivery_id, created_ms, created_at, problem, server_size)
         VALUES (@ref_id, @mailer_id, @account_id, @uidvalidity, @uid, @message_id, @from_email, @subject, @raw,
           @bounce_ref_id, @delivery_id, @created_ms, @created_at, @problem, @server_size)`,
      ),
      hasImapMessage: db.prepare<[string, number, number], { one: number }>(
        'SELECT 1 AS one FROM imap_messages WHERE mailer_id = ? AND uidvalidity = ? AND uid = ?',
      ),
      imapMessagesBefore: db.prepare<[string, string, number], ImapMessageListRow>(
        `SELECT ref_id, mailer_id, account_id, uidvalidity, uid, message_id, from_email, subject, COALESCE(server_size, length(raw)) AS size,
           bounce_ref_id, delivery_id, created_ms, created_at, problem
         FROM imap_messages WHERE mailer_id = ? AND ref_id < ? ORDER BY ref_id DESC LIMIT ?`,
      ),
      imapMessageCount: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM imap_messages WHERE mailer_id = ?'),
      imapRaw: db.prepare<[string], { raw: Buffer }>('SELECT raw FROM imap_messages WHERE ref_id = ?'),
      queueRelay: db.prepare<[string, string, number, number]>(
        'INSERT INTO mailer_relays (message_id, mailer_id, queued_ms, attempts, next_ms, last_reply) VALUES (?, ?, ?, 0, ?, NULL)',
      ),
      dueRelays: db.prepare<[number, number], RelayRow>('SELECT * FROM mailer_relays WHERE next_ms <= ? ORDER BY next_ms, message_id LIMIT ?'),
      relayOf: db.prepare<[string], RelayRow>('SELECT * FROM mailer_relays WHERE message_id = ?'),
      nextRelayAfter: db.prepare<[number], { at: number | null }>('SELECT MIN(next_ms) AS at FROM mailer_relays WHERE next_ms > ?'),
      deferRelay: db.prepare<[number, number, string, string]>('UPDATE mailer_relays SET attempts = ?, next_ms = ?, last_reply = ? WHERE message_id = ?'),
      removeRelay: db.prepare<[string]>('DELETE FROM mailer_relays WHERE message_id = ?'),
      /** The recipients' copies of one composed message (one Message-ID), to match a DSN's recipient. */
      sameSend: db.prepare<[string], { id: string; ref_id: string; recipient_lc: string; account_id: string }>(
        `SELECT m.id, m.ref_id, m.recipient_lc, a.id AS account_id FROM messages m JOIN accounts a ON a.number = m.account_number
         WHERE m.content_id = (SELECT content_id FROM messages WHERE id = ?)`,
      ),
      insertOAuth: db.prepare<[OAuthRequestRow]>(
        `INSERT INTO oauth_requests (state, account_id, app_id, redirect_uri, mailer_id, type, status, code_hash, created_ms, expires_ms, options)
         VALUES (@state, @account_id, @app_id, @redirect_uri, @mailer_id, @type, @status, @code_hash, @created_ms, @expires_ms, @options)`,
      ),
      oauthByState: db.prepare<[string], OAuthRequestRow>('SELECT * FROM oauth_requests WHERE state = ?'),
      oauthByCode: db.prepare<[string], OAuthRequestRow>('SELECT * FROM oauth_requests WHERE code_hash = ?'),
      setOAuthRequest: db.prepare<[string, string | null, string]>('UPDATE oauth_requests SET status = ?, code_hash = ? WHERE state = ?'),
      setOAuthRequestMailer: db.prepare<[string, string]>('UPDATE oauth_requests SET mailer_id = ? WHERE state = ?'),
      pruneOAuth: db.prepare<[number]>('DELETE FROM oauth_requests WHERE expires_ms < ?'),
    };
  }

  insert(row: MailerRow): void {
    this.stmts.insert.run(row);
  }

  update(row: MailerSettings): void {
    this.stmts.update.run(row);
  }

  get(id: string): MailerRow | undefined {
    return this.stmts.byId.get(id);
  }

  ofAccount(accountId: string, type: 'smtp' | 'imap'): MailerRow[] {
    return this.stmts.ofAccount.all(accountId, type);
  }

  all(): MailerRow[] {
    return this.stmts.all.all();
  }

  ofType(type: 'smtp' | 'imap'): MailerRow[] {
    return this.stmts.ofType.all(type);
  }

  delete(id: string): void {
    this.stmts.delete.run(id);
  }

  setStatus(id: string, status: string, lastError: string | null): void {
    this.stmts.setStatus.run(status, lastError, id);
  }

  setOAuthActive(id: string, active: boolean, updatedAt: string): void {
    this.stmts.setOAuthActive.run(active ? 1 : 0, updatedAt, id);
  }

  /** Stores a token (sealed) and what may be shown of it, and turns OAuth on. */
  setOAuthToken(id: string, sealed: Buffer, meta: string, updatedAt: string): void {
    this.stmts.setOAuthToken.run(sealed, meta, updatedAt, id);
  }

  setImapPosition(id: string, uidValidity: number, uidNext: number): void {
    this.stmts.setImapPosition.run(uidValidity, uidNext, id);
  }

  insertImapMessage(row: ImapMessageRow): void {
    this.stmts.insertImapMessage.run(row);
  }

  hasImapMessage(mailerId: string, uidValidity: number, uid: number): boolean {
    return this.stmts.hasImapMessage.get(mailerId, uidValidity, uid) !== undefined;
  }

  /** A mailer's messages newest first: `limit` of them with a ref_id below `before` (all when absent). */
  imapMessages(mailerId: string, before: string | undefined, limit: number): ImapMessageListRow[] {
    // Every ref_id is a ULID (Crockford base32), so '~' sorts after all of them.
    return this.stmts.imapMessagesBefore.all(mailerId, before ?? '~', limit);
  }

  imapMessageCount(mailerId: string): number {
    return this.stmts.imapMessageCount.get(mailerId)!.n;
  }

  /** The raw source of a message taken from an inbox, as the server gave it. */
  imapRaw(refId: string): Buffer | undefined {
    return this.stmts.imapRaw.get(refId)?.raw;
  }

  /** A copy waiting for its relay, due at `at`. */
  queueRelay(messageId: string, mailerId: string, at: number): void {
    this.stmts.queueRelay.run(messageId, mailerId, at, at);
  }

  /** Relays due at `now`, the longest waiting first. */
  dueRelays(now: number, limit: number): RelayRow[] {
    return this.stmts.dueRelays.all(now, limit);
  }

  /** The relay a copy waits for, if it does. */
  relayOf(messageId: string): RelayRow | undefined {
    return this.stmts.relayOf.get(messageId);
  }

  /** When the next relay that is not due yet becomes due. */
  nextRelayAfter(now: number): number | null {
    return this.stmts.nextRelayAfter.get(now)!.at;
  }

  /** A relay refused for now: tried again at `nextMs`. */
  deferRelay(messageId: string, attempts: number, nextMs: number, lastReply: string): void {
    this.stmts.deferRelay.run(attempts, nextMs, lastReply, messageId);
  }

  removeRelay(messageId: string): void {
    this.stmts.removeRelay.run(messageId);
  }

  /** The copies that share the composed message of copy `messageId` (whose Message-ID a DSN names). */
  sameSend(messageId: string): Array<{ id: string; ref_id: string; recipient_lc: string; account_id: string }> {
    return this.stmts.sameSend.all(messageId);
  }

  insertOAuthRequest(row: OAuthRequestRow): void {
    this.stmts.insertOAuth.run(row);
  }

  oauthRequest(state: string): OAuthRequestRow | undefined {
    return this.stmts.oauthByState.get(state);
  }

  oauthRequestByCode(codeHash: string): OAuthRequestRow | undefined {
    return this.stmts.oauthByCode.get(codeHash);
  }

  setOAuthRequest(state: string, status: OAuthRequestRow['status'], codeHash: string | null): void {
    this.stmts.setOAuthRequest.run(status, codeHash, state);
  }

  /** The mailer an approved request was stored on. */
  setOAuthRequestMailer(state: string, mailerId: string): void {
    this.stmts.setOAuthRequestMailer.run(mailerId, state);
  }

  pruneOAuthRequests(before: number): void {
    this.stmts.pruneOAuth.run(before);
  }
}
