import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import type { Logger } from 'pino';
import { monotonicFactory } from 'ulid';
import type { ImapMessagePayload, ImapMessageSummary } from '../../../src-shared/schemas/mailers';
import { isoTimestamp, type Clock } from '../clock';
import type { Dispatcher } from '../dispatch/dispatcher';
import type { MessageLog } from '../services/email/message-log';
import type { EmailEventsService } from '../services/email-events.service';
import { mailContentOf } from '../services/email/parsed-mail';
import { toImapMessageSummary } from '../services/mailers/mailer-records';
import { IMAP_WEBHOOK_TARGET, type MailersService } from '../services/mailers/mailers.service';
import type { ImapMessageRow, MailerRow, MailersRepo } from '../store/mailers.repo';
import type { UnitOfWork } from '../store/unit-of-work';
import { readDsn } from './dsn';
import { describeImapError, imapOptions, reconnectDelay } from './imap-options';

const MAILBOX = 'INBOX';

export interface ImapConnectorDeps {
  mailers: MailersService;
  repo: MailersRepo;
  /** A message taken from an inbox, its post's delivery and the bounce it reports commit together. */
  unitOfWork: UnitOfWork;
  emailEvents: EmailEventsService;
  log: MessageLog;
  dispatcher: Pick<Dispatcher, 'enqueue' | 'commitEnqueued'>;
  clock: Clock;
  logger: Logger;
  verifyTls: boolean;
  /** Strict mode: the checked address to connect to for a server's host (or its refusal); undefined outside it. */
  serverAddress: (host: string) => Promise<string | undefined>;
  /** A message taken from an inbox is in the store (the live stream). */
  announce?: (message: ImapMessageSummary) => void;
}

/** What one watch needs: the connector's dependencies and the configuration it watches. */
export interface InboxWatchDeps extends ImapConnectorDeps {
  mailerId: string;
}

/** One configuration's connection: connect, take new mail, reconnect after failures. */
export class InboxWatch {
  private client: ImapFlow | undefined;
  private closed = false;
  private failures = 0;
  /** One imap_error per outage: set when it is sent, cleared once connected again. */
  private reported = false;
  private cancelTimer: (() => void) | undefined;
  /** Fetches run one after another. */
  private syncing: Promise<void> = Promise.resolve();
  private readonly newRefId = monotonicFactory();

  /** The IMAP configuration watched. */
  private readonly id: string;

  constructor(private readonly deps: InboxWatchDeps) {
    this.id = deps.mailerId;
  }

  open(): void {
    void this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancelTimer?.();
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
      client = new ImapFlow(imapOptions(row, mailers.credentials(row), verifyTls, address));
    } catch (err) {
      if (this.closed) return;
      return this.failed(row, err);
    }
    client.on('error', (err: unknown) => this.deps.logger.debug({ err, mailerId: this.id }, 'imap connection error'));
    client.on('close', () => {
      if (this.client !== client || this.closed) return;
      this.client = undefined;
      this.disconnected();
    });
    client.on('exists', () => this.sync(client));
    this.client = client;
    try {
      await client.connect();
      await client.mailboxOpen(MAILBOX);
    } catch (err) {
      if (this.client === client) this.client = undefined;
      client.close();
      if (this.closed) return;
      return this.failed(row, err);
    }
    if (this.closed || this.client !== client) return void client.close();
    this.failures = 0;
    this.reported = false;
    mailers.setStatus(this.id, 'connected', null);
    this.deps.logger.info({ mailerId: this.id, host: row.host }, 'imap connected');
    this.sync(client);
  }

  private failed(row: MailerRow, err: unknown): void {
    const error = describeImapError(err);
    this.failures++;
    this.deps.mailers.setStatus(this.id, 'error', error);
    this.deps.logger.info({ mailerId: this.id, host: row.host, error }, 'imap connection failed');
    if (!this.reported) {
      this.reported = true;
      const { emailEvents, clock } = this.deps;
      const payload = emailEvents.buildPayload('imap_error', undefined, { mailer_id: this.id, host: row.host, error }, clock.now());
      emailEvents.emitEmailEvent(row.account_id, payload);
    }
    this.retryAfter(reconnectDelay(this.failures));
  }

  /** The server closed a working connection: connect again after a short wait. */
  private disconnected(): void {
    const row = this.deps.mailers.row(this.id);
    if (!row) return;
    this.deps.mailers.setStatus(this.id, 'connecting', 'the connection was closed; reconnecting');
    this.failures = 1;
    this.retryAfter(reconnectDelay(1));
  }

  private retryAfter(delayMs: number): void {
    if (this.closed) return;
    this.cancelTimer?.();
    this.cancelTimer = this.deps.clock.setTimer(this.deps.clock.now() + delayMs, () => {
      this.cancelTimer = undefined;
      void this.connect();
    });
  }

  private sync(client: ImapFlow): void {
    this.syncing = this.syncing
      .then(() => this.fetchNew(client))
      .catch((err: unknown) => this.deps.logger.warn({ err, mailerId: this.id }, 'imap fetch failed'));
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
    await this.take(client, row, uidValidity, from);
  }

  private async take(client: ImapFlow, row: MailerRow, uidValidity: number, from: number): Promise<void> {
    let next = from;
    for await (const message of client.fetch(`${from}:*`, { uid: true, source: true }, { uid: true })) {
      if (message.uid < from || !message.source || this.deps.repo.hasImapMessage(this.id, uidValidity, message.uid)) continue;
      await this.store(row, uidValidity, message.uid, message.source);
      next = Math.max(next, message.uid + 1);
    }
    if (next !== from) this.deps.repo.setImapPosition(this.id, uidValidity, next);
  }

  /** One new message: stored, posted to the webhook, and a bounce when it is a DSN about Mailyard's mail. */
  private async store(row: MailerRow, uidValidity: number, uid: number, raw: Buffer): Promise<void> {
    const { repo, unitOfWork, emailEvents, log, dispatcher, clock, mailers } = this.deps;
    const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
    const now = clock.now();
    const timestamp = isoTimestamp(now);
    const refId = this.newRefId(now);
    const dsn = readDsn(parsed, raw);
    // The bounced message: one of this account's, the recipient the DSN names among those of its Message-ID.
    let bounce: ImapMessagePayload['bounce'] = null;
    // The bounced copy itself (one recipient of the send whose ref_id `bounce` names).
    let bouncedCopy: string | undefined;
    if (dsn) {
      // A Message-ID names a copy (the first recipient's, when the recipients share the composed message).
      for (const candidate of dsn.copyIds) {
        const sameSend = repo.sameSend(candidate).filter((m) => m.account_id === row.account_id);
        const match = sameSend.find((m) => m.recipient_lc === dsn.recipient.toLowerCase()) ?? sameSend.find((m) => m.id === candidate);
        if (match) {
          bounce = { ref_id: match.ref_id, recipient: dsn.recipient, bounce_type: dsn.bounceType, status: dsn.status, diagnostic: dsn.diagnostic };
          bouncedCopy = match.id;
          break;
        }
      }
    }
    const payload: ImapMessagePayload = {
      event: 'imap_message',
      timestamp,
      ref_id: refId,
      mailer_id: this.id,
      mailbox: MAILBOX,
      uid,
      message_id: parsed.messageId ?? '',
      date: parsed.date ? parsed.date.toISOString() : null,
      ...mailContentOf(parsed),
      bounce,
    };
    const current = mailers.row(this.id);
    if (!current || this.closed) return;
    const stored: ImapMessageRow = {
      ref_id: refId,
      mailer_id: this.id,
      account_id: current.account_id,
      uidvalidity: uidValidity,
      uid,
      message_id: payload.message_id,
      from_email: payload.from.email,
      subject: payload.subject,
      raw,
      bounce_ref_id: bounce?.ref_id ?? null,
      delivery_id: null,
      created_ms: now,
      created_at: timestamp,
    };
    unitOfWork.run(() => {
      const webhook = current.webhook === null ? null : (JSON.parse(current.webhook) as { url: string });
      const deliveryId = webhook
        ? dispatcher.enqueue({
            accountId: current.account_id,
            target: { kind: IMAP_WEBHOOK_TARGET, id: this.id, url: webhook.url },
            category: 'IMAP',
            event: 'imap_message',
            refId,
            payload,
          })
        : null;
      stored.delivery_id = deliveryId;
      repo.insertImapMessage(stored);
      const message = bouncedCopy === undefined ? undefined : log.find(bouncedCopy);
      if (message && dsn) {
        const event = emailEvents.buildPayload(
          'bounce',
          message,
          { bounce_type: dsn.bounceType, bounce_category: dsn.bounceCategory, bounce_reason: dsn.diagnostic },
          now,
          message.recipient.email,
        );
        const result = emailEvents.emitEmailEvent(message.accountId, event);
        log.apply(message, event, result.deliveryId);
      }
      dispatcher.commitEnqueued();
    });
    this.deps.announce?.(toImapMessageSummary({ ...stored, size: raw.length }));
  }
}
