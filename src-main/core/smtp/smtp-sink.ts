import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';
import { isStoreFull, STORE_FULL_MESSAGE } from '../store/store-space';
import { InFlightBudget, readData } from './in-flight';
import { type AddressCommandParser, acceptRepeatedParams } from './repeated-params';
import { type ConnectionView, connectionsOf, SessionLimits } from './session-limits';
import type { TlsIdentity } from './tls-certificate';

/** A message the sink accepted: who sent it, to whom (the envelope), and its bytes exactly as they came. */
export interface AcceptedMail {
  accountId: string;
  mailFrom: string;
  recipients: string[];
  raw: Buffer;
  /** `raw` with a line before it (as withMessageId adds one), copying no more than it must; by default a copy of both. */
  prepend?: (line: Buffer) => Buffer;
  /** The user name the session logged in with (SMTP AUTH), if it did. */
  username?: string;
}

export interface SmtpSinkDeps {
  /** The account whose API key this is, if any. */
  authenticate: (apiKey: string) => { id: string } | undefined;
  /** The account of mail sent without AUTH. */
  defaultAccountId: () => string;
  /** Stores and routes an accepted message; answers the ref_ids of what it recorded and the recipients inbound routing refused. */
  accept: (mail: AcceptedMail) => Promise<IntakeResult>;
  /** Mailpit's chaos: the code to refuse this MAIL FROM, RCPT TO or AUTH with, or null (services/mailpit/chaos.ts). */
  chaos?: (kind: 'Sender' | 'Recipient' | 'Authentication') => number | null;
  logger: Logger;
}

export interface SmtpSinkOptions {
  host: string;
  port: number;
  auth: 'optional' | 'required';
  maxMessageBytes: number;
  maxRecipients: number;
  /**
   * STARTTLS with this identity; null: not offered (EHLO does not list it, the command is refused), so
   * clients that upgrade whenever it is offered (nodemailer, PHPMailer) send plain, as to Mailpit.
   */
  tls: TlsIdentity | null;
  /** Shown in the greeting. */
  banner: string;
  /** A connection with nothing from the client for this long is told 421 and closed (default 60 s). */
  socketTimeoutMs?: number;
  /** One message's DATA must arrive in full within this long, or the connection is told 421 and closed (default 120 s). */
  dataTimeoutMs?: number;
  /** On close, how long open connections may go on before they are told 421 and closed. */
  closeGraceMs: number;
  /** A session lasts at most this long: past it, once no message of it is in flight, 421 and closed (default 10 min). */
  sessionTimeoutMs?: number;
  /** Connections open at once at most; one more is told 421 and closed (default 256). */
  maxClients?: number;
  /** Bytes of messages arriving or being stored at once, all connections together; never less than `maxMessageBytes` (default 100 MiB). */
  inFlightBytes?: number;
}

/** What became of a message: the ref_ids recorded, and the recipients inbound routing's rules refused (with why). */
export interface IntakeResult {
  refIds: string[];
  refused: Array<{ email: string; reason: string }>;
}

/** An SMTP reply: smtp-server sends `err.responseCode` and `err.message`. */
function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Sockets past maxClients that may still be closing (told 421) before new ones are closed unanswered. */
export const CLOSING_SLACK = 64;

/** A 250 reply line stays well under SMTP's 512-octet limit: the first ref_ids, then a count. */
const REPLY_REF_IDS = 12;

export function queuedReply(refIds: string[]): string {
  const shown = refIds.slice(0, REPLY_REF_IDS).join(' ');
  const more = refIds.length > REPLY_REF_IDS ? ` (+${refIds.length - REPLY_REF_IDS} more in the email logs)` : '';
  return `OK queued as ${shown}${more}`;
}

/** A reply line's text stays under SMTP's 512 octets with its code: longer text is cut short. */
const REPLY_TEXT_MAX = 480;

function fitReply(text: string): string {
  return text.length > REPLY_TEXT_MAX ? `${text.slice(0, REPLY_TEXT_MAX - 3)}...` : text;
}

/** The first refused recipient with its rule's words, and how many more: `nobody@in.example.com (Reject (default): ...)`. */
function refusalsText(refused: IntakeResult['refused']): string {
  const [first] = refused;
  const more = refused.length > 1 ? ` and ${refused.length - 1} more` : '';
  return `${first!.email} (${first!.reason})${more}`;
}

/**
 * The reply to a message taken in: 250 naming its ref_ids, and the recipients inbound routing
 * refused (not posted) when there are any; when every recipient was refused, 550 (nothing was kept).
 */
export function intakeReply(result: IntakeResult): string {
  if (result.refused.length === 0) return queuedReply(result.refIds);
  const refused = refusalsText(result.refused);
  if (result.refIds.length === 0) throw smtpError(550, fitReply(`Not accepted by inbound routing: ${refused}`));
  return fitReply(`${queuedReply(result.refIds)}; not accepted by inbound routing: ${refused}`);
}

/**
 * The SMTP listener (smtp-server): accepts mail for any domain from any application that sends by
 * SMTP. AUTH PLAIN and LOGIN take an account's API key as the password, on plain connections and
 * after STARTTLS (when offered) alike; mail without AUTH belongs to the default account unless AUTH is required.
 * Limits answer as SMTP does: 552 for a message over the size, 452 for a recipient over the count,
 * 421 for a connection over the count or a session over its length. Large messages wait their turn
 * for the bytes in flight (see readData); 451 when small ones fill them.
 */
export class SmtpSink {
  private readonly server: SMTPServer;
  /** Bytes of messages arriving or being stored, all connections together. */
  readonly inFlight: InFlightBudget;
  private readonly sessions: SessionLimits;
  /** The user name each logged-in connection gave (by session id), for --tags-username. */
  private readonly usernames = new Map<string, string>();

  constructor(
    private readonly deps: SmtpSinkDeps,
    private readonly options: SmtpSinkOptions,
  ) {
    this.inFlight = new InFlightBudget(Math.max(options.inFlightBytes ?? 100 * 1024 * 1024, options.maxMessageBytes));
    this.sessions = new SessionLimits(() => this.server, options.sessionTimeoutMs ?? 600_000);
    this.server = new SMTPServer({
      name: 'mailyard.local',
      banner: options.banner,
      ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
      size: options.maxMessageBytes,
      authMethods: ['PLAIN', 'LOGIN'],
      authOptional: options.auth === 'optional',
      allowInsecureAuth: true,
      hideENHANCEDSTATUSCODES: false,
      // DSN parameters are accepted by default; the sink keeps no notion of them.
      hideDSN: true,
      disabledCommands: options.tls ? [] : ['STARTTLS'],
      logger: false,
      // The client's host name is never used, and a reverse lookup asks the system's DNS server (off the machine).
      disableReverseLookup: true,
      maxClients: options.maxClients ?? 256,
      socketTimeout: options.socketTimeoutMs ?? 60_000,
      closeTimeout: options.closeGraceMs,
      onConnect: (session, callback) => {
        this.sessions.start(session);
        for (const connection of connectionsOf(this.server)) {
          if (connection.session === session) acceptRepeatedParams(connection as ConnectionView & AddressCommandParser);
        }
        callback();
      },
      onClose: (session) => {
        this.sessions.end(session);
        this.usernames.delete(session.id);
      },
      onAuth: (auth, session, callback) => {
        const chaos = this.deps.chaos?.('Authentication');
        if (chaos) return callback(smtpError(chaos, 'Chaos authentication error'));
        this.onAuth(auth, session, callback);
      },
      onMailFrom: (_address, _session, callback) => {
        const chaos = this.deps.chaos?.('Sender');
        callback(chaos ? smtpError(chaos, 'Chaos sender error') : undefined);
      },
      onRcptTo: (_address, session, callback) => {
        // A refused recipient is not added to the envelope: nothing is captured for it.
        const chaos = this.deps.chaos?.('Recipient');
        if (chaos) return callback(smtpError(chaos, 'Chaos recipient error'));
        if (session.envelope.rcptTo.length >= options.maxRecipients) {
          return callback(smtpError(452, `Too many recipients: at most ${options.maxRecipients} per message`));
        }
        callback();
      },
      onData: (stream, session, callback) => {
        this.boundData(stream, session);
        this.onData(stream, session).then(
          (reply) => callback(null, reply),
          (err: Error & { responseCode?: number }) => {
            if (err.responseCode !== undefined) return callback(err);
            // A full disk is logged once, by the store; anything else here is unexpected.
            if (isStoreFull(err)) return callback(smtpError(451, `4.3.1 ${STORE_FULL_MESSAGE}`));
            this.deps.logger.error({ err }, 'smtp message not stored');
            callback(smtpError(451, 'Temporary failure storing the message: try again'));
          },
        );
      },
    });
    this.server.on('error', (err) => this.deps.logger.warn({ err }, 'smtp connection error'));
    // smtp-server tells a client over maxClients 421, but its socket lingers until the client closes
    // (up to 5 s): past CLOSING_SLACK more sockets, node closes new ones at once, so the sink never
    // holds more than maxClients + CLOSING_SLACK file descriptors whatever clients do.
    this.server.server.maxConnections = (options.maxClients ?? 256) + CLOSING_SLACK;
  }

  /**
   * smtp-server bounds only the silence between two packets, so a client trickling a byte now and
   * then could hold a DATA (and its connection) forever: past the DATA time-out it is told 421 and
   * closed, and the partial message is dropped.
   */
  private boundData(stream: Readable, session: SMTPServerSession): void {
    const limitMs = this.options.dataTimeoutMs ?? 120_000;
    const timer = setTimeout(() => {
      const message = `Timeout: the message did not arrive in full within ${Math.round(limitMs / 1000)} s, closing connection`;
      for (const connection of connectionsOf(this.server)) {
        if (connection.session === session) connection.send?.(421, message);
      }
      stream.destroy(smtpError(421, message));
    }, limitMs);
    timer.unref();
    stream.once('end', () => clearTimeout(timer));
    stream.once('close', () => clearTimeout(timer));
  }

  private onAuth(
    auth: SMTPServerAuthentication,
    session: SMTPServerSession,
    callback: (err: Error | null | undefined, response?: { user: string }) => void,
  ): void {
    const account = auth.password ? this.deps.authenticate(auth.password) : undefined;
    if (account) {
      if (auth.username) this.usernames.set(session.id, auth.username);
      callback(null, { user: account.id });
    } else callback(smtpError(535, 'Authentication failed: use an account API key as the password'));
  }

  private async onData(stream: Readable & { sizeExceeded?: boolean }, session: SMTPServerSession): Promise<string> {
    const data = await readData(stream, this.options.maxMessageBytes, this.inFlight);
    if (data.kind === 'too-large') throw smtpError(552, `Message too large: at most ${this.options.maxMessageBytes} bytes`);
    if (data.kind === 'busy') throw smtpError(451, this.busyMessage());
    try {
      const accountId = typeof session.user === 'string' ? session.user : this.deps.defaultAccountId();
      const result = await this.deps.accept({
        accountId,
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        recipients: session.envelope.rcptTo.map((r) => r.address),
        raw: data.raw,
        prepend: data.prepend,
        username: this.usernames.get(session.id),
      });
      return intakeReply(result);
    } finally {
      data.release();
    }
  }

  private busyMessage(): string {
    return `Too much mail arriving at once (at most ${this.inFlight.limit} bytes in flight): nothing was kept, try again later`;
  }

  /** Starts listening; answers the bound address. */
  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.server.once('error', onError);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.server.off('error', onError);
        resolve(this.server.server.address() as AddressInfo);
      });
    });
  }

  /**
   * Stops accepting connections. Idle ones (no transaction begun: a pooled client between messages)
   * are told 421 and closed at once; those in a transaction get the close grace to finish it.
   */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // smtp-server keeps its connections in `connections` and an idle session's envelope has no
    // sender; both are read defensively, since neither is part of its typed surface.
    for (const connection of connectionsOf(this.server)) {
      if (connection.session?.envelope?.mailFrom === false && !connection._dataStream) {
        connection.send?.(421, 'Server shutting down');
        connection.close?.();
      }
    }
    return closed;
  }
}
