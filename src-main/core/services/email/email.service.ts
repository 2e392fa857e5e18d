import type { EmailLogRecord, EmailLogsQuery, SendEmailBody, SimulationRule } from '../../../../src-shared/schemas/email';
import { isoTimestamp, type Clock } from '../../clock';
import { monotonicUlids } from '../../ids';
import { decodeCursor, paginate } from '../../cursor';
import { AppError } from '../../errors';
import type { MessageRow, MessagesRepo } from '../../store/messages.repo';
import type { SimulationRepo } from '../../store/simulation.repo';
import type { WriteBatcher } from '../../store/write-batcher';
import type { EventsService } from '../events.service';
import { planFor } from '../simulation/plan';
import { composeMessage } from './compose';
import { addTracking, type TrackingToken } from './tracking';

type RecipientType = 'to' | 'cc' | 'bcc';

/** A message taken in by the SMTP sink: its raw bytes as they came and the facts read from its headers and envelope. */
export interface IncomingMessage {
  raw: Buffer;
  from: { email: string; name: string };
  subject: string;
  campaignId: string;
  customArgs: Record<string, string>;
  recipients: Array<{ email: string; name: string; type: RecipientType }>;
}

/** One send as it is recorded: a message per recipient, sharing raw content where it is the same buffer. */
interface RecordedSend {
  source: 'api' | 'smtp';
  from: { email: string; name: string };
  subject: string;
  campaignId: string;
  mailerId: string;
  customArgs: Record<string, string>;
  recipients: Array<{ email: string; name: string; type: RecipientType; refId: string; raw: Buffer; tokens: TrackingToken[] }>;
}

export interface SentMessage {
  email: string;
  recipient_type: RecipientType;
  ref_id: string;
}

/** A query date: start of that day for a plain date, else the instant. */
const toMs = (value: string | undefined) => (value === undefined ? undefined : Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value));

function toLogRecord(row: MessageRow, events: Array<{ event: string; timestamp: string }>): EmailLogRecord {
  return {
    ref_id: row.ref_id,
    campaign_id: row.campaign_id,
    mailer_id: row.mailer_id,
    from: { email: row.from_email, name: row.from_name },
    recipient: { email: row.recipient_email, name: row.recipient_name },
    recipient_type: row.recipient_type,
    subject: row.subject,
    status: row.status as EmailLogRecord['status'],
    created_at: row.created_at,
    delivered_at: row.delivered_at,
    events,
    custom_args: JSON.parse(row.custom_args) as Record<string, string>,
  };
}

/** Sending email and what follows: composing, storing, planning the simulation, the logs, suppressions. */
export class EmailService {
  /** ref_ids: ULIDs in creation order even within one millisecond (the logs page by ref_id). */
  private readonly newRefId = monotonicUlids();
  /** The simulation rules, read once and replaced with them. */
  private cachedRules: SimulationRule[] | undefined;

  constructor(
    private readonly deps: {
      messages: MessagesRepo;
      simulation: SimulationRepo;
      events: EventsService;
      clock: Clock;
      /** Called after new simulated events were scheduled. */
      scheduled: () => void;
      /** The emulator's HTTP URL, for tracking links. */
      baseUrl: () => string;
      /** Commits the writes of concurrent sends together. */
      writes: WriteBatcher;
      /** Announces the stored messages of a send, after their commit (the UI's live list). */
      created?: (rows: MessageRow[]) => void;
      /** The DKIM key of the sender's verified domain of the account, if it has one. */
      dkim?: (accountId: string, fromEmail: string) => { domainName: string; keySelector: string; privateKey: string } | undefined;
      /** Sends with `settings.mailer_id` are relayed for real instead of simulated (the mailers' SMTP relay). */
      relay?: { check(accountId: string, mailerId: string): void; queue(refId: string, mailerId: string, at: number): void; wake(): void };
    },
  ) {}

  /**
   * One message per recipient, each with its ref_id and the simulation's events scheduled. Without
   * tracking, the recipients share one composed message; with it, each gets its own links.
   */
  async send(accountId: string, body: SendEmailBody): Promise<SentMessage[]> {
    const now = this.deps.clock.now();
    const date = new Date(now);
    const recipients = [
      ...body.to.map((r) => ({ ...r, type: 'to' as const })),
      ...(body.cc ?? []).map((r) => ({ ...r, type: 'cc' as const })),
      ...(body.bcc ?? []).map((r) => ({ ...r, type: 'bcc' as const })),
    ].map((r) => ({ ...r, refId: this.newRefId(now) }));
    const html = body.content.find((c) => c.type === 'text/html')?.value;
    const text = body.content.find((c) => c.type === 'text/plain')?.value;
    const settings = body.settings ?? {};
    if (settings.mailer_id) this.deps.relay?.check(accountId, settings.mailer_id);
    const dkim = this.deps.dkim?.(accountId, body.from.email);
    const tracked = settings.open_tracking === true || settings.click_tracking === true || settings.unsubscribe_tracking === true;

    // Composing is asynchronous: done before the transaction that stores everything.
    const contents = new Map<string, { raw: Buffer; tokens: TrackingToken[] }>();
    if (!tracked) {
      const raw = await composeMessage(body, { messageId: `<${recipients[0]!.refId}@mailyard.local>`, date, dkim });
      for (const r of recipients) contents.set(r.refId, { raw, tokens: [] });
    } else {
      for (const r of recipients) {
        const t = addTracking(html, text, {
          open: settings.open_tracking === true,
          click: settings.click_tracking === true,
          unsubscribe: settings.unsubscribe_tracking === true,
          baseUrl: this.deps.baseUrl(),
        });
        const raw = await composeMessage(body, { messageId: `<${r.refId}@mailyard.local>`, date, html: t.html, text: t.text, extraHeaders: t.headers, dkim });
        contents.set(r.refId, { raw, tokens: t.tokens });
      }
    }

    return this.record(accountId, now, {
      source: 'api',
      from: { email: body.from.email, name: body.from.name ?? '' },
      subject: body.subject,
      campaignId: body.campaign_id ?? '',
      mailerId: settings.mailer_id ?? '',
      customArgs: body.custom_args ?? {},
      recipients: recipients.map((r) => ({ email: r.email, name: r.name ?? '', type: r.type, refId: r.refId, ...contents.get(r.refId)! })),
    });
  }

  /**
   * A message the SMTP sink accepted, kept exactly as it came: one log entry per envelope recipient,
   * each through the same simulation and events as an API send.
   */
  acceptSmtp(accountId: string, message: IncomingMessage): Promise<SentMessage[]> {
    const now = this.deps.clock.now();
    return this.record(accountId, now, {
      source: 'smtp',
      from: message.from,
      subject: message.subject,
      campaignId: message.campaignId,
      mailerId: '',
      customArgs: message.customArgs,
      recipients: message.recipients.map((r) => ({ ...r, refId: this.newRefId(now), raw: message.raw, tokens: [] })),
    });
  }

  /**
   * Stores the messages of one send (API or SMTP) with the simulation's plan for each recipient, in
   * one group-committed write; answers once the rows are in the store.
   */
  private async record(accountId: string, now: number, send: RecordedSend): Promise<SentMessage[]> {
    const { messages, simulation } = this.deps;
    const createdAt = isoTimestamp(now);
    const rules = this.rules();
    const customArgs = JSON.stringify(send.customArgs);
    // A message sent through a mailer gets its real outcome from the relay, not the simulation.
    const relay = send.mailerId !== '' ? this.deps.relay : undefined;
    // A shared composition is stored once, under the ref_id of its first recipient.
    const storedAs = new Map<Buffer, string>();
    const sent: SentMessage[] = [];
    const rows: MessageRow[] = [];
    await this.deps.writes.run(() => {
      // The batcher may run this twice (after another write of its group failed): start afresh.
      storedAs.clear();
      sent.length = 0;
      rows.length = 0;
      for (const r of send.recipients) {
        let sendId = storedAs.get(r.raw);
        if (sendId === undefined) {
          sendId = r.refId;
          storedAs.set(r.raw, sendId);
          messages.insertContent({ send_id: sendId, raw: r.raw });
        }
        const lc = r.email.toLowerCase();
        const plan = planFor(r.email, simulation.isSuppressed(accountId, lc), rules);
        const row: MessageRow = {
          ref_id: r.refId,
          account_id: accountId,
          send_id: sendId,
          source: send.source,
          from_email: send.from.email,
          from_name: send.from.name,
          recipient_email: r.email,
          recipient_lc: lc,
          recipient_domain: lc.slice(lc.lastIndexOf('@') + 1),
          recipient_name: r.name,
          recipient_type: r.type,
          subject: send.subject,
          campaign_id: send.campaignId,
          mailer_id: send.mailerId,
          custom_args: customArgs,
          status: plan.kind === 'suppressed' ? 'suppressed' : 'queued',
          created_ms: now,
          created_at: createdAt,
          delivered_ms: null,
          delivered_at: null,
        };
        messages.insertMessage(row);
        if (this.deps.created) rows.push(row);
        for (const t of r.tokens) messages.insertToken({ ...t, ref_id: r.refId });
        if (plan.kind === 'events' && relay) relay.queue(r.refId, send.mailerId, now);
        else if (plan.kind === 'events') {
          let at = now;
          for (const e of plan.events) {
            at += e.delayMs;
            simulation.schedule({ ref_id: r.refId, event: e.event, fields: JSON.stringify(e.fields), due_at: at });
          }
        }
        sent.push({ email: r.email, recipient_type: r.type, ref_id: r.refId });
      }
    });
    this.deps.scheduled();
    relay?.wake();
    if (rows.length > 0) this.deps.created?.(rows);
    return sent;
  }

  /** The email logs: newest first, every filter of the contract, an opaque page token. */
  logs(accountId: string, query: EmailLogsQuery): { logs: EmailLogRecord[]; nextPageToken: string | null } {
    const rows = this.deps.messages.logs({
      accountId,
      recipientLc: query.email?.toLowerCase(),
      domain: query.recipientDomain?.toLowerCase(),
      refId: query.refId,
      createdFrom: toMs(query.startCreatedAt),
      createdTo: toMs(query.endCreatedAt),
      status: query.status,
      subject: query.subject,
      campaignId: query.campaignId,
      recipientType: query.recipientType,
      deliveredFrom: toMs(query.startDeliveredDate),
      deliveredTo: toMs(query.endDeliveredDate),
      before: query.pageToken === undefined ? undefined : decodeCursor(query.pageToken, 'pageToken'),
      limit: query.pageSize + 1,
    });
    const { page, next } = paginate(rows, query.pageSize, (r) => r.ref_id);
    const events = this.deps.messages.eventsOf(page.map((r) => r.ref_id));
    return {
      logs: page.map((r) => toLogRecord(r, (events.get(r.ref_id) ?? []).map((e) => ({ event: e.event, timestamp: e.timestamp })))),
      nextPageToken: next,
    };
  }

  /** Removes the address from the account's suppression list. */
  subscribe(accountId: string, email: string): void {
    this.deps.simulation.unsuppress(accountId, email.toLowerCase());
  }

  /** Adds the address to the account's suppression list: it gets status `suppressed` and no events. */
  unsubscribe(accountId: string, email: string, source = 'api'): void {
    this.deps.simulation.suppress(accountId, email.toLowerCase(), source, isoTimestamp(this.deps.clock.now()));
  }

  /** The simulation rules in the order they are tried (read on every send: kept in memory). */
  rules(): SimulationRule[] {
    this.cachedRules ??= this.deps.simulation.rules().map((r) => ({ pattern: r.pattern, events: JSON.parse(r.events) as SimulationRule['events'] }));
    return this.cachedRules;
  }

  /** Replaces the rules; each rule's event fields must make valid payloads (checked with a sample). */
  replaceRules(rules: SimulationRule[]): SimulationRule[] {
    const now = this.deps.clock.now();
    rules.forEach((rule, i) =>
      rule.events.forEach((e, j) => {
        try {
          this.deps.events.buildPayload(e.event, undefined, e.fields ?? {}, now);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          const errors = (err.errors ?? []).map((f) => ({ ...f, path: `rules.${i}.events.${j}.${f.path}` }));
          throw new AppError('validation', `rules.${i}.events.${j}.${err.message}`, errors);
        }
      }),
    );
    this.deps.simulation.replaceRules(rules.map((r) => ({ pattern: r.pattern, events: JSON.stringify(r.events) })));
    this.cachedRules = undefined;
    return this.rules();
  }
}
