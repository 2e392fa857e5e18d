import type { Logger } from 'pino';
import type { ReleaseResult } from '../../../src-shared/schemas/messages';
import { type Clock, ClockAlarm, isoTimestamp } from '../clock';
import { appError } from '../error-catalogue';
import type { EmailEventsService } from '../services/events/email-events.service';
import type { MessageLog } from '../services/events/message-log';
import type { MailerCredentials } from '../services/mailers/mailer-credentials';
import type { MailersService } from '../services/mailers/mailers.service';
import type { MailerRow, MailersRepo, RelayRow } from '../store/mailers.repo';
import type { MessagesRepo } from '../store/messages.repo';
import type { UnitOfWork } from '../store/unit-of-work';
import { checkSmtpLogin, loadNodemailer, type SmtpFailure, smtpReply, smtpTransportOptions } from './connection';

/** Messages relayed at the same time at most. */
const CONCURRENCY = 4;

/**
 * After a temporary failure (a 4xx reply, or no connection: reported as 421), the next attempt waits
 * this long on the emulator clock; after the last one, the failure is final (`smtp_error`). Five
 * attempts over 1 h 21 min: enough for greylisting and a server restart, short enough to test by
 * moving the clock.
 */
export const RELAY_RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000];

export interface SmtpRelayDeps {
  repo: MailersRepo;
  mailers: MailersService;
  messages: MessagesRepo;
  /** A relay's outcome, the mailer's status, the log entry and the event's delivery commit together. */
  unitOfWork: UnitOfWork;
  emailEvents: Pick<EmailEventsService, 'record'>;
  /** A deferral's log status. */
  log: Pick<MessageLog, 'defer'>;
  clock: Clock;
  logger: Logger;
  verifyTls: boolean;
  /** Strict mode: the checked address to connect to for a server's host (or its refusal); undefined outside it. */
  serverAddress: (host: string) => Promise<string | undefined>;
}

/**
 * Relays messages sent with `settings.mailer_id` to that SMTP configuration's server, for real. Each
 * message is a row (`mailer_relays`) before it is attempted, so a restart loses none. The outcome is
 * the message's real event: `delivery` when the server accepts it, `smtp_error` with the server's code
 * and reply (log status `failed`) when it refuses. A temporary failure (4xx, or no connection) leaves
 * the message `deferred` and is tried again on the emulator clock (RELAY_RETRY_DELAYS_MS); the last
 * one is final.
 */
export class SmtpRelay {
  private running = false;
  /** Set once stop's grace is over: an attempt finishing later writes nothing (it is relayed again on the next start). */
  private closed = false;
  private queued: ReturnType<typeof setImmediate> | undefined;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Wakes the relay on the emulator clock when a deferred message is due again. */
  private readonly alarm: ClockAlarm;

  constructor(private readonly deps: SmtpRelayDeps) {
    this.alarm = new ClockAlarm(deps.clock, () => this.wake());
  }

  start(): void {
    this.running = true;
    this.closed = false;
    this.wake();
  }

  /** Stops taking messages; relays in flight get `graceMs`, and those not done are relayed on the next start. */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.alarm.clear();
    clearImmediate(this.queued);
    this.queued = undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.inFlight.values()), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.closed = true;
  }

  /** For the email service, inside the send's write: the copy waits for its relay. */
  queue(messageId: string, mailerId: string, at: number): void {
    this.deps.repo.queueRelay(messageId, mailerId, at);
  }

  wake(): void {
    if (this.running) this.queued ??= setImmediate(() => this.pump());
  }

  private pump(): void {
    this.queued = undefined;
    if (!this.running) return;
    const free = CONCURRENCY - this.inFlight.size;
    if (free <= 0) return;
    const now = this.deps.clock.now();
    // Deferred ones wait for the alarm; a finishing relay wakes the pump for those due but over the limit.
    this.alarm.set(this.deps.repo.nextRelayAfter(now));
    for (const relay of this.deps.repo.dueRelays(now, CONCURRENCY * 2)) {
      if (this.inFlight.size >= CONCURRENCY) break;
      if (this.inFlight.has(relay.message_id)) continue;
      const done = this.relay(relay)
        .catch((err: unknown) => this.deps.logger.error({ err, messageId: relay.message_id }, 'relay failed unexpectedly'))
        .finally(() => {
          this.inFlight.delete(relay.message_id);
          this.wake();
        });
      this.inFlight.set(relay.message_id, done);
    }
  }

  private async relay(relay: RelayRow): Promise<void> {
    const { repo, mailers, messages } = this.deps;
    const message = messages.get(relay.message_id);
    const raw = message && messages.rawOf(message);
    if (!message || !raw) {
      repo.removeRelay(relay.message_id);
      return;
    }
    const mailer = mailers.row(relay.mailer_id);
    if (!mailer) {
      return this.finish(relay, { ok: false, code: 451, response: `451 4.3.0 The mailer ${relay.mailer_id} was deleted before the message was relayed` });
    }
    const { outcome } = await this.transmit(mailer, message.from_email, [message.recipient_email], raw);
    if (this.closed) return;
    if (!outcome.ok && outcome.code >= 400 && outcome.code < 500 && relay.attempts < RELAY_RETRY_DELAYS_MS.length) {
      return this.defer(relay, outcome, mailer);
    }
    this.finish(relay, outcome, mailer);
  }

  /** One SMTP transaction with the mailer's server: the message as stored, to the envelope's recipients. */
  private async transmit(mailer: MailerRow, from: string, to: string[], raw: Buffer): Promise<{ outcome: Outcome; accepted: string[]; rejected: string[] }> {
    const address = (a: string | { address: string }) => (typeof a === 'string' ? a : a.address);
    try {
      // Checked at every relay: a refused address is this relay's failure, with no connection made.
      const serverAddress = await this.deps.serverAddress(mailer.host);
      const transport = (await loadNodemailer()).createTransport(
        smtpTransportOptions(mailer, this.deps.mailers.credentials(mailer), this.deps.verifyTls, serverAddress),
      );
      try {
        const info = await transport.sendMail({ envelope: { from, to }, raw });
        return { outcome: { ok: true, response: info.response }, accepted: info.accepted.map(address), rejected: info.rejected.map(address) };
      } finally {
        transport.close();
      }
    } catch (err) {
      const reply = smtpReply(err as SmtpFailure);
      return { outcome: { ok: false, code: reply.code, response: reply.response, mailerError: reply.connectionLevel }, accepted: [], rejected: to };
    }
  }

  /**
   * `POST /emulator/messages/{ref_id}/release`: sends a stored message, byte for byte as it was
   * captured, to `to` (its own recipient when absent) through an SMTP mailer, now. A developer's
   * action, not part of the simulation: the message's events and log status stay as they are; the
   * mailer's status follows the outcome as after a relay.
   */
  async release(messageId: string, mailerId: string, to: string[] | undefined): Promise<ReleaseResult> {
    const { messages, mailers } = this.deps;
    const message = messages.get(messageId);
    const raw = message && messages.rawOf(message);
    if (!message || !raw) throw appError('messageNotFound');
    const mailer = mailers.row(mailerId);
    if (mailer?.config_type !== 'smtp') throw appError(mailer ? 'relayMailerIsImap' : 'relayMailerUnknown');
    const started = performance.now();
    const { outcome, accepted, rejected } = await this.transmit(mailer, message.from_email, to ?? [message.recipient_email], raw);
    if (mailers.row(mailer.id)) this.mailerStatusAfter(mailer, outcome);
    const code = outcome.ok ? Number(/^\d{3}/.exec(outcome.response)?.[0] ?? NaN) : outcome.code;
    this.deps.logger.info({ messageId, mailerId, accepted, rejected, reply: outcome.response }, 'message released');
    return {
      ok: outcome.ok,
      mailer_id: mailer.id,
      accepted,
      rejected,
      smtp_code: Number.isNaN(code) ? null : code,
      smtp_response: outcome.response,
      duration_ms: Math.round(performance.now() - started),
    };
  }

  /** The mailer's status after an attempt: a refused recipient or message is not the mailer's fault. */
  private mailerStatusAfter(mailer: MailerRow, outcome: Outcome): void {
    const { mailers } = this.deps;
    if (outcome.ok) mailers.setStatus(mailer.id, 'ok', null);
    else if (outcome.mailerError) mailers.setStatus(mailer.id, 'error', outcome.response);
    else if (mailer.status !== 'ok') mailers.setStatus(mailer.id, 'ok', null);
  }

  /** A temporary failure: the message waits, `deferred`, for its next attempt. */
  private defer(relay: RelayRow, outcome: Extract<Outcome, { ok: false }>, mailer: MailerRow): void {
    const { repo, unitOfWork, log, clock } = this.deps;
    const now = clock.now();
    const next = now + RELAY_RETRY_DELAYS_MS[relay.attempts]!;
    unitOfWork.run(() => {
      repo.deferRelay(relay.message_id, relay.attempts + 1, next, outcome.response);
      this.mailerStatusAfter(mailer, outcome);
      log.defer(relay.message_id, isoTimestamp(now));
    });
    this.deps.logger.info(
      { messageId: relay.message_id, mailerId: relay.mailer_id, reply: outcome.response, attempt: relay.attempts + 1, nextAttemptAt: isoTimestamp(next) },
      'relay deferred',
    );
  }

  /** The message's real event, its log status and the mailer's status, in one transaction. */
  private finish(relay: RelayRow, outcome: Outcome, mailer?: MailerRow): void {
    const { repo, unitOfWork, emailEvents, clock } = this.deps;
    unitOfWork.run(() => {
      repo.removeRelay(relay.message_id);
      if (mailer) this.mailerStatusAfter(mailer, outcome);
      if (outcome.ok) emailEvents.record(relay.message_id, 'delivery', {}, clock.now());
      else emailEvents.record(relay.message_id, 'smtp_error', { smtp_code: outcome.code, smtp_response: outcome.response }, clock.now());
    });
    if (!outcome.ok) this.deps.logger.info({ messageId: relay.message_id, mailerId: relay.mailer_id, reply: outcome.response }, 'relay refused');
  }

  /** `POST /emulator/mailers/{id}/test` for SMTP: connect, say hello, log in, and quit. */
  async test(mailer: MailerRow): Promise<{ ok: boolean; message: string }> {
    let credentials: MailerCredentials;
    let serverAddress: string | undefined;
    try {
      credentials = this.deps.mailers.credentials(mailer);
      serverAddress = await this.deps.serverAddress(mailer.host);
    } catch (err) {
      return { ok: false, message: smtpReply(err as SmtpFailure).response };
    }
    const result = await checkSmtpLogin(mailer, credentials, this.deps.verifyTls, serverAddress);
    return result.ok ? result : { ok: false, message: smtpReply(result.failure).response };
  }
}

type Outcome = { ok: true; response: string } | { ok: false; code: number; response: string; mailerError?: boolean };
