import type { ImapFlow } from 'imapflow';
import type { MailerRow } from '../store/mailers.repo';
import type { InboxWatchDeps } from './imap-deps';
import { describeImapError, imapOptions, SETUP_TIMEOUT_MS, setupTimeoutError } from './imap-options';
import { ImapMessageStore, MAILBOX } from './message-store';
import { ReconnectBackoff, reconnectDelay, systemWallScheduler, type WallScheduler, withinWallTime } from './reconnect-backoff';
import { takeMail } from './take-mail';

/** The SMTP sink's default limit, for IMAP too when none is given. */
const DEFAULT_MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

/**
 * One configuration's connection: connect, take new mail, reconnect after failures. Reconnection
 * backs off on wall time (1 s doubling to 5 minutes, `ReconnectBackoff`), and one `imap_error` is sent
 * per outage, however many attempts it takes.
 */
export class InboxWatch {
  private client: ImapFlow | undefined;
  private closed = false;
  /** One imap_error per outage: set when it is sent, cleared once connected again. */
  private reported = false;
  /** The last fetch failed (`status: error` while connected); cleared by the next one that works. */
  private fetchFailing = false;
  private cancelTimer: (() => void) | undefined;
  /** After a failed fetch: the next try (the same back-off as reconnection), whether or not new mail comes. */
  private cancelFetchRetry: (() => void) | undefined;
  private fetchFailures = 0;
  /** Fetches run one after another. */
  private syncing: Promise<void> = Promise.resolve();
  private readonly wall: WallScheduler;
  private readonly backoff: ReconnectBackoff;
  private readonly messages: ImapMessageStore;

  /** The IMAP configuration watched. */
  private readonly id: string;

  constructor(private readonly deps: InboxWatchDeps) {
    this.id = deps.mailerId;
    this.wall = deps.wall ?? systemWallScheduler();
    this.backoff = new ReconnectBackoff(this.wall);
    this.messages = new ImapMessageStore(deps);
  }

  open(): void {
    void this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancelTimer?.();
    this.cancelFetchRetry?.();
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      await Promise.race([client.logout(), new Promise((r) => setTimeout(r, 1000))]);
    } catch {
      // Closing anyway.
    }
    client.close();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const { mailers, verifyTls } = this.deps;
    const row = mailers.row(this.id);
    if (!row) return;
    // While retrying after a failure the status stays `error` (with the reason) until a connection works.
    if (row.status !== 'error') mailers.setStatus(this.id, 'connecting', row.last_error);
    let client: ImapFlow;
    try {
      // Checked at every connection: a refused address is a failed connection (imap_error), never made.
      const address = await this.deps.serverAddress(row.host);
      if (this.closed) return;
      // imapflow loads with the first IMAP configuration, not with the emulator: most runs have none.
      const { ImapFlow } = await import('imapflow');
      if (this.closed) return;
      client = new ImapFlow(imapOptions(row, mailers.credentials(row), verifyTls, address));
    } catch (err) {
      if (this.closed) return;
      return this.failed(row, err);
    }
    // Only a connection that was up (logged in, inbox open) is "closed"; one that closes while it is
    // being set up is a failed attempt, counted once, below.
    let up = false;
    client.on('error', (err: unknown) => this.deps.logger.debug({ err, mailerId: this.id }, 'imap connection error'));
    client.on('close', () => {
      if (!up || this.client !== client || this.closed) return;
      this.client = undefined;
      this.disconnected();
    });
    client.on('exists', () => this.sync(client));
    this.client = client;
    try {
      await this.setUp(client);
    } catch (err) {
      if (this.client === client) this.client = undefined;
      client.close();
      if (this.closed) return;
      return this.failed(row, err);
    }
    if (this.closed || this.client !== client) return void client.close();
    up = true;
    this.backoff.connected();
    this.reported = false;
    this.fetchFailing = false;
    mailers.setStatus(this.id, 'connected', null);
    this.deps.logger.info({ mailerId: this.id, host: row.host }, 'imap connected');
    this.sync(client);
  }

  /** Connect, greeting, login and INBOX, within `SETUP_TIMEOUT_MS` of wall time in all. */
  private async setUp(client: ImapFlow): Promise<void> {
    const work = (async () => {
      await client.connect();
      await client.mailboxOpen(MAILBOX);
    })();
    await withinWallTime(this.wall, SETUP_TIMEOUT_MS, work, setupTimeoutError);
  }

  private failed(row: MailerRow, err: unknown): void {
    const error = describeImapError(err);
    this.deps.mailers.setStatus(this.id, 'error', error);
    this.deps.logger.info({ mailerId: this.id, host: row.host, error }, 'imap connection failed');
    this.reportOnce(row, error);
    this.retryAfter(this.backoff.failed());
  }

  /** One imap_error per outage (a failed connection, or fetches that fail). */
  private reportOnce(row: MailerRow, error: string): void {
    if (this.reported) return;
    this.reported = true;
    const { emailEvents, clock } = this.deps;
    const payload = emailEvents.buildPayload('imap_error', undefined, { mailer_id: this.id, host: row.host, error }, clock.now());
    emailEvents.emitEmailEvent(row.account_id, payload);
  }

  /** The server closed a working connection: connect again after the back-off's delay (1 s after a connection that was up a while). */
  private disconnected(): void {
    const row = this.deps.mailers.row(this.id);
    if (!row) return;
    this.deps.mailers.setStatus(this.id, 'connecting', 'the connection was closed; reconnecting');
    this.retryAfter(this.backoff.failed());
  }

  private retryAfter(delayMs: number): void {
    if (this.closed) return;
    this.cancelTimer?.();
    this.cancelTimer = this.wall.after(delayMs, () => {
      this.cancelTimer = undefined;
      void this.connect();
    });
  }

  private sync(client: ImapFlow): void {
    this.syncing = this.syncing
      .then(() => this.fetchNew(client))
      .then(
        () => this.fetchWorked(client),
        (err: unknown) => this.fetchFailed(client, err),
      );
  }

  /**
   * Fetching or storing failed (a full disk, a server error): the messages from the position on are
   * taken again at the next try, which comes after the back-off's delay or with new mail, whichever is
   * first. Meanwhile `status: error` says why, with one imap_error.
   */
  private fetchFailed(client: ImapFlow, err: unknown): void {
    this.deps.logger.warn({ err, mailerId: this.id }, 'imap fetch failed');
    const row = this.deps.mailers.row(this.id);
    if (this.closed || this.client !== client || !row) return;
    const error = `could not take new mail: ${describeImapError(err)}`;
    this.fetchFailing = true;
    this.deps.mailers.setStatus(this.id, 'error', error);
    this.reportOnce(row, error);
    this.cancelFetchRetry?.();
    this.cancelFetchRetry = this.wall.after(reconnectDelay(++this.fetchFailures), () => {
      this.cancelFetchRetry = undefined;
      this.sync(client);
    });
  }

  private fetchWorked(client: ImapFlow): void {
    if (!this.fetchFailing || this.closed || this.client !== client) return;
    this.fetchFailing = false;
    this.fetchFailures = 0;
    this.cancelFetchRetry?.();
    this.cancelFetchRetry = undefined;
    this.reported = false;
    this.deps.mailers.setStatus(this.id, 'connected', null);
  }

  /**
   * Takes the messages from the last position on. On the first connection (or a new UIDVALIDITY) the
   * position starts at the inbox's next UID: mail already there is not posted.
   */
  private async fetchNew(client: ImapFlow): Promise<void> {
    if (this.closed || this.client !== client || !client.mailbox) return;
    const mailbox = client.mailbox;
    const uidValidity = Number(mailbox.uidValidity);
    const row = this.deps.mailers.row(this.id);
    if (!row) return;
    let from = row.imap_uid_next;
    if (row.imap_uidvalidity !== uidValidity || from === null) {
      // A fresh start (or a recreated inbox): what is there already is not posted, only what comes next.
      from = mailbox.uidNext;
      this.deps.repo.setImapPosition(this.id, uidValidity, from);
    }
    const stopped = () => this.closed || this.client !== client;
    await takeMail(client, {
      uidValidity,
      from,
      maxMessageBytes: this.deps.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      has: (uid) => this.deps.repo.hasImapMessage(this.id, uidValidity, uid),
      store: (message) => this.messages.store(row, message, stopped),
      advance: (next) => this.deps.repo.setImapPosition(this.id, uidValidity, next),
      stopped,
    });
  }
}
