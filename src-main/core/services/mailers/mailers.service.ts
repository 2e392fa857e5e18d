import { ulid } from 'ulid';
import type {
  ConfigType,
  ConfigureMailerBody,
  EmulatorMailerRecord,
  ImapMessagePage,
  MailerRecord,
  MailerTestResult,
  SetOAuthActiveBody,
  UpdateMailerBody,
} from '../../../../src-shared/schemas/mailers';
import { type Clock, isoTimestamp } from '../../clock';
import { decodeCursor, paginate } from '../../cursor';
import type { DeliveryTarget, Dispatcher } from '../../dispatch/dispatcher';
import { appError } from '../../error-catalogue';
import type { MailerRow, MailersRepo } from '../../store/mailers.repo';
import { credentialsOf, type MailerCredentials, type StoredToken } from './mailer-credentials';
import { type MailerWebhook, mailerNotFound, mailerWarnings, toImapMessageSummary, toMailerRecord } from './mailer-records';
import { checkConfigType, checkMailerRules } from './mailer-rules';
import type { SecretBox } from './secret-box';

/** Dispatcher target kind of the posts of an IMAP configuration's new messages. */
export const IMAP_WEBHOOK_TARGET = 'imap_mailer';

export interface MailersDeps {
  repo: MailersRepo;
  clock: Clock;
  secrets: SecretBox;
  dispatcher: Pick<Dispatcher, 'targetChanged' | 'cancelTarget'>;
  /** The reachability check of an IMAP webhook URL being set (422 when it cannot be connected to). */
  checkUrl: (url: string, path: string) => Promise<void>;
  /**
   * `--strict-webhook-urls`' address rules for an SMTP server's host, before any connection (422 naming
   * `path`); the address to connect to in strict mode, undefined outside it.
   */
  checkSmtpHost: (host: string, path: string) => Promise<string | undefined>;
  /** A real connection and login to an SMTP server (the relay's test); `message` is the server's answer or the connection error. */
  checkSmtpLogin: (row: MailerRow, credentials: MailerCredentials, address: string | undefined) => Promise<{ ok: boolean; message: string }>;
  /** Announces a change of a mailer or of its status (the live stream). */
  announce?: (change: { mailer_id: string; account_id: string; config_type: string; status: string; last_error: string | null }) => void;
}

/**
 * SMTP and IMAP configurations (spec part 2.7): validation, storage with the password and tokens
 * sealed (AES-256-GCM, key outside the database), records without secrets, status, OAuth tokens.
 */
export class MailersService {
  /** Who follows the configurations as they change (the IMAP connector, which is built after this service). */
  private readonly changeListeners: Array<(id: string, row: MailerRow | undefined) => void> = [];

  constructor(private readonly deps: MailersDeps) {}

  /** Calls `listener` whenever a configuration is added, changed or deleted (`row` undefined); answers how to stop. */
  onChanged(listener: (id: string, row: MailerRow | undefined) => void): () => void {
    this.changeListeners.push(listener);
    return () => this.changeListeners.splice(this.changeListeners.indexOf(listener), 1);
  }

  private changed(id: string, row: MailerRow | undefined): void {
    for (const listener of this.changeListeners) listener(id, row);
  }

  private find(accountId: string, id: string, type?: ConfigType): MailerRow {
    const row = this.deps.repo.get(id);
    if (!row || row.account_id !== accountId || (type !== undefined && row.config_type !== type)) throw mailerNotFound(type);
    return row;
  }

  /** A mailer of the account, for the relay and OAuth; throws 404. */
  get(accountId: string, id: string, type?: ConfigType): MailerRow {
    return this.find(accountId, id, type);
  }

  row(id: string): MailerRow | undefined {
    return this.deps.repo.get(id);
  }

  toRecord(row: MailerRow): MailerRecord {
    return toMailerRecord(row);
  }

  async configure(accountId: string, pathType: ConfigType, body: ConfigureMailerBody): Promise<MailerRecord> {
    checkConfigType(pathType, body.config_type);
    const username = body.config.username ?? '';
    const password = body.config.password ?? '';
    checkMailerRules(pathType, { connection_type: body.connection_type, username, hasPassword: password !== '', webhook: body.webhook });
    if (body.webhook) await this.deps.checkUrl(body.webhook.url, 'webhook.url');
    const address = pathType === 'smtp' ? await this.deps.checkSmtpHost(body.config.host, 'config.host') : undefined;
    const row = this.newRow(accountId, pathType, {
      name: body.name,
      email: body.email,
      connection_type: body.connection_type,
      host: body.config.host,
      port: body.config.port,
      username,
      secure: body.config.secure,
      password_enc: password === '' ? null : this.deps.secrets.seal(password),
      webhook: body.webhook ? JSON.stringify({ url: body.webhook.url, method: body.webhook.method, headers: body.webhook.headers ?? {} }) : null,
    });
    if (pathType === 'smtp') row.status = await this.verifySmtp(row, password, address);
    this.insert(row);
    return this.toRecord(row);
  }

  /**
   * An SMTP mailer with `connection_type` `oauth` for a mailbox an OAuth provider vouched for (oauthLogin
   * exchanging a token without a mailer_id): its server is the provider's, so none is checked here.
   */
  createOAuthSmtp(accountId: string, mailbox: Pick<MailerRow, 'name' | 'email' | 'host' | 'port' | 'username' | 'secure'>): MailerRow {
    const row = this.newRow(accountId, 'smtp', { ...mailbox, connection_type: 'oauth', password_enc: null, webhook: null });
    this.insert(row);
    return row;
  }

  private newRow(
    accountId: string,
    type: ConfigType,
    fields: Pick<MailerRow, 'name' | 'email' | 'connection_type' | 'host' | 'port' | 'username' | 'secure' | 'password_enc' | 'webhook'>,
  ): MailerRow {
    const now = isoTimestamp(this.deps.clock.now());
    return {
      id: ulid(),
      account_id: accountId,
      config_type: type,
      ...fields,
      oauth_active: 0,
      oauth_token_enc: null,
      oauth_meta: null,
      status: type === 'imap' ? 'connecting' : 'untested',
      last_error: null,
      imap_uidvalidity: null,
      imap_uid_next: null,
      created_at: now,
      updated_at: now,
    };
  }

  private insert(row: MailerRow): void {
    this.deps.repo.insert(row);
    this.announce(row);
    this.changed(row.id, row);
  }

  /**
   * configureSMTP (`POST /v1/smtpbasic/verify`): connects to the server and logs in for real before
   * anything is saved; a refusal or a failed connection is a 422 with the server's answer (or the
   * connection error) as `error`. The status the saved configuration starts with: `ok` after a login
   * (or a connection when there is nothing to log in with); `untested` for OAuth, whose token comes
   * later (oauthLogin needs the mailer_id): its connection is verified, its login is not yet.
   */
  private async verifySmtp(row: MailerRow, password: string, address: string | undefined): Promise<MailerRecord['status']> {
    const oauth = row.connection_type === 'oauth';
    const credentials: MailerCredentials = !oauth && password !== '' ? { user: row.username, pass: password } : null;
    const result = await this.deps.checkSmtpLogin(row, credentials, address);
    if (!result.ok) throw appError('smtpLoginFailed', { reason: result.message });
    return oauth ? 'untested' : 'ok';
  }

  async update(accountId: string, pathType: ConfigType, body: UpdateMailerBody): Promise<MailerRecord> {
    const current = this.find(accountId, body.mailer_id, pathType);
    checkConfigType(pathType, body.config_type);
    const c = body.config ?? {};
    const connectionType = body.connection_type ?? current.connection_type;
    const username = c.username ?? current.username;
    const passwordEnc = c.password === null || c.password === '' ? null : c.password !== undefined ? this.deps.secrets.seal(c.password) : current.password_enc;
    const webhook =
      body.webhook === undefined
        ? current.webhook
        : body.webhook === null
          ? null
          : JSON.stringify({ url: body.webhook.url, method: body.webhook.method, headers: body.webhook.headers ?? {} });
    checkMailerRules(pathType, { connection_type: connectionType, username, hasPassword: passwordEnc !== null, webhook });
    const oldUrl = current.webhook === null ? null : (JSON.parse(current.webhook) as MailerWebhook).url;
    if (body.webhook && body.webhook.url !== oldUrl) await this.deps.checkUrl(body.webhook.url, 'webhook.url');
    if (pathType === 'smtp' && c.host !== undefined && c.host !== current.host) await this.deps.checkSmtpHost(c.host, 'config.host');
    const connectionChanged =
      c.host !== undefined ||
      c.port !== undefined ||
      c.username !== undefined ||
      c.password !== undefined ||
      c.secure !== undefined ||
      body.connection_type !== undefined;
    this.deps.repo.update({
      id: current.id,
      name: body.name ?? current.name,
      email: body.email ?? current.email,
      connection_type: connectionType,
      host: c.host ?? current.host,
      port: c.port ?? current.port,
      username,
      secure: c.secure ?? current.secure,
      password_enc: passwordEnc,
      webhook,
      status: connectionChanged ? (pathType === 'imap' ? 'connecting' : 'untested') : current.status,
      last_error: connectionChanged ? null : current.last_error,
      updated_at: isoTimestamp(this.deps.clock.now()),
    });
    const row = this.deps.repo.get(current.id)!;
    this.announce(row);
    if (webhook === null && current.webhook !== null) this.deps.dispatcher.cancelTarget(IMAP_WEBHOOK_TARGET, current.id);
    else this.deps.dispatcher.targetChanged(IMAP_WEBHOOK_TARGET, current.id);
    if (connectionChanged) this.changed(row.id, row);
    return this.toRecord(row);
  }

  getRecord(accountId: string, pathType: ConfigType, id: string): MailerRecord {
    return this.toRecord(this.find(accountId, id, pathType));
  }

  list(accountId: string, type: ConfigType): MailerRecord[] {
    return this.deps.repo.ofAccount(accountId, type).map((r) => this.toRecord(r));
  }

  /** Every account's configurations, as the control API lists them: with what the real service would refuse in each. */
  listAll(): EmulatorMailerRecord[] {
    return this.deps.repo.all().map((r) => ({ ...this.toRecord(r), account_id: r.account_id, warnings: mailerWarnings(r) }));
  }

  delete(accountId: string, pathType: ConfigType, id: string): void {
    const current = this.find(accountId, id, pathType);
    this.deps.repo.delete(current.id);
    this.announce({ ...current, status: 'deleted', last_error: null });
    this.deps.dispatcher.cancelTarget(IMAP_WEBHOOK_TARGET, current.id);
    this.changed(current.id, undefined);
  }

  /**
   * A connection test against the real server (`connect`: the relay's or the IMAP connector's). An SMTP
   * configuration's status follows the outcome; an IMAP one keeps its live connection's status.
   */
  async test(id: string, connect: (row: MailerRow) => Promise<{ ok: boolean; message: string }>): Promise<MailerTestResult> {
    const row = this.deps.repo.get(id);
    if (!row) throw mailerNotFound();
    const started = performance.now();
    const result = await connect(row);
    const durationMs = Math.round(performance.now() - started);
    if (row.config_type === 'smtp' && this.deps.repo.get(id)) this.setStatus(id, result.ok ? 'ok' : 'error', result.ok ? null : result.message);
    const now = this.deps.repo.get(id) ?? row;
    return { ok: result.ok, message: result.message, duration_ms: durationMs, mailer: this.toRecord(now) };
  }

  /** The messages an IMAP configuration took from its inbox, newest first; 404 for an unknown or SMTP configuration. */
  imapMessages(id: string, query: { limit: number; cursor?: string }): ImapMessagePage {
    const row = this.deps.repo.get(id);
    if (row?.config_type !== 'imap') throw mailerNotFound('imap');
    const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'cursor');
    const { page, next } = paginate(this.deps.repo.imapMessages(id, before, query.limit + 1), query.limit, (r) => r.ref_id);
    return { messages: page.map(toImapMessageSummary), total: this.deps.repo.imapMessageCount(id), next_cursor: next };
  }

  /** The raw source of a message taken from an inbox, as the server gave it. */
  imapRaw(refId: string): Buffer {
    const raw = this.deps.repo.imapRaw(refId);
    if (!raw) throw appError('imapMessageNotFound');
    return raw;
  }

  setStatus(id: string, status: MailerRecord['status'], lastError: string | null): void {
    const before = this.deps.repo.get(id);
    if (!before || (before.status === status && before.last_error === lastError)) return;
    this.deps.repo.setStatus(id, status, lastError);
    this.announce({ ...before, status, last_error: lastError });
  }

  private announce(row: Pick<MailerRow, 'id' | 'account_id' | 'config_type' | 'status' | 'last_error'>): void {
    this.deps.announce?.({ mailer_id: row.id, account_id: row.account_id, config_type: row.config_type, status: row.status, last_error: row.last_error });
  }

  setOAuthActive(accountId: string, body: SetOAuthActiveBody): { mailer_id: string; oauth_active: boolean } {
    const current = this.find(accountId, body.mailer_id);
    const active = body.active ?? true;
    this.deps.repo.setOAuthActive(current.id, active, isoTimestamp(this.deps.clock.now()));
    if ((current.oauth_active === 1) !== active) {
      this.announce(current);
      this.changed(current.id, this.deps.repo.get(current.id));
    }
    return { mailer_id: current.id, oauth_active: active };
  }

  /** Stores a token on the mailer (sealed) and turns its OAuth on. */
  storeToken(row: MailerRow, token: StoredToken): void {
    const { access_token: _a, refresh_token: _r, ...meta } = token;
    this.deps.repo.setOAuthToken(row.id, this.deps.secrets.seal(JSON.stringify(token)), JSON.stringify(meta), isoTimestamp(this.deps.clock.now()));
    this.announce(row);
    this.changed(row.id, this.deps.repo.get(row.id));
  }

  /** How the mailer logs in now (see credentialsOf). */
  credentials(row: MailerRow): MailerCredentials {
    return credentialsOf(row, this.deps.secrets);
  }

  /** Where the post of an IMAP configuration's message goes now; undefined once it has no webhook. */
  resolveTarget(id: string): DeliveryTarget | undefined {
    const row = this.deps.repo.get(id);
    if (!row || row.webhook === null) return undefined;
    const webhook = JSON.parse(row.webhook) as MailerWebhook;
    return { url: webhook.url, method: webhook.method, headers: webhook.headers };
  }
}
