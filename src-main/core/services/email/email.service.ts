import { countPlaceholders, type EmailLogsQuery, type EmailLogsResponse, SEND_LIMITS, type SendEmailBody } from '../../../../src-shared/schemas/email';
import type { AfterCommit } from '../../after-commit';
import { type Clock, isoTimestamp } from '../../clock';
import { appError } from '../../error-catalogue';
import { monotonicUlids } from '../../ids';
import { patchedLength } from '../../store/byte-patch';
import type { MessageFlagsRepo } from '../../store/message-flags.repo';
import type { MessageRow, MessagesRepo } from '../../store/messages.repo';
import type { SendWarningsRepo } from '../../store/send-warnings.repo';
import type { SimulationRepo } from '../../store/simulation.repo';
import type { WriteBatcher } from '../../store/write-batcher';
import { suppressedReason } from '../events/message-log';
import type { SuppressionsService } from '../events/suppressions.service';
import { type Plan, planFor } from '../simulation/plan';
import type { SimulationRules } from '../simulation/rules.service';
import type { Composer } from './compose';
import { composeCopies, type RecordedCopy } from './copies';
import { queryEmailLogs } from './email-logs';
import type { StoredTemplate } from './templates.service';

type RecipientType = 'to' | 'cc' | 'bcc';

/** A message taken in by the SMTP sink: its raw bytes as they came and the facts read from its headers and envelope. */
export interface IncomingMessage {
  raw: Buffer;
  from: { email: string; name: string };
  subject: string;
  campaignId: string;
  customArgs: Record<string, string>;
  /** Tags for every copy (the `X-Tags` header, as Mailpit tags). */
  tags?: string[];
  recipients: Array<{ email: string; name: string; type: RecipientType }>;
}

/** One send as it is recorded: one ref_id, a copy per recipient. */
interface RecordedSend {
  refId: string;
  source: 'api' | 'smtp';
  from: { email: string; name: string };
  subject: string;
  campaignId: string;
  mailerId: string;
  /** Relayed through an SMTP mailer for real instead of simulated. */
  relayed: boolean;
  customArgs: Record<string, string>;
  /** Tags every copy gets, written with it. */
  tags?: string[];
  priority: string;
  copies: RecordedCopy[];
  /** What the real service would have refused in it (X-Mailyard-Warning's words), stored with it; none for most sends. */
  warnings?: readonly string[];
}

/** How a send's `mailer_id` and sender are checked, and whether the send is relayed for real. */
export interface SenderPolicy {
  /** Throws 403 `Unauthorized From Email` or 400 naming `mailer_id`; answers whether an SMTP mailer relays the send. */
  check(accountId: string, mailerId: string, fromEmail: string): { relayed: boolean };
}

/** The plan of a copy whose generation failed: that event alone, at once. */
const generationFailed = (reason: string): Plan => ({
  kind: 'events',
  source: 'default',
  events: [{ event: 'generation_failure', delayMs: 0, fields: { reason, error_code: 'missing_substitution' } }],
});

/**
 * What a send's commit announces, in this order, once its rows are in the store (EmailService.record).
 * Subscribed in emulator/areas/: the simulator, the search indexer, the live list and the spam filter.
 */
export interface EmailCommitEvents {
  /** Simulated events were scheduled: the simulator reads what falls due (Simulator.wake). */
  'message.scheduled': undefined;
  /** Copies were stored: the search indexes take them in soon after (SearchIndexer.notify). */
  'message.stored': undefined;
  /** The stored copies' rows: the UI's live list, the spam filter's inspection. */
  'message.created': MessageRow[];
}

/** What sending and the logs need: the stores, the email events, and the seams to the other services. */
export interface EmailDeps {
  messages: MessagesRepo;
  /** A send's warnings, written with its copies (only when it has any). */
  warnings?: Pick<SendWarningsRepo, 'insert'>;
  /** Tags a copy in the copy's own write (header tags; MessageFlagsRepo). */
  tags?: Pick<MessageFlagsRepo, 'add'>;
  /** The tags an `X-Tags` header among a send's `headers` gives, as intake reads it (absent: `--tags-disable x-tags`, none). */
  xTags?: (value: string) => string[];
  simulation: SimulationRepo;
  /** The suppression list: a suppressed recipient's copy fails at once, with no events. */
  suppressions: Pick<SuppressionsService, 'has' | 'entry'>;
  /** The simulation rules, tried before the simulator addresses. */
  rules: Pick<SimulationRules, 'list'>;
  clock: Clock;
  /** Where a send's commit is announced (EmailCommitEvents): the areas that act on new copies subscribe there. */
  events: AfterCommit<EmailCommitEvents>;
  /** The emulator's HTTP URL, for tracking links. */
  baseUrl: () => string;
  /** Commits the writes of concurrent sends together. */
  writes: WriteBatcher;
  /** The account's stored template, or undefined. */
  template: (accountId: string, templateId: string) => StoredTemplate | undefined;
  /** The account's number (the logs' `accountId`). */
  accountNumber: (accountId: string) => number;
  senders: SenderPolicy;
  /** Composes a send's MIME message (composeMessage, on the mail thread when there is one). */
  compose?: Composer;
  /** The DKIM key of the sender's verified domain of the account, if it has one. */
  dkim?: (accountId: string, fromEmail: string) => { domainName: string; keySelector: string; privateKey: string } | undefined;
  /** Sends through an SMTP mailer are relayed for real instead of simulated (the mailers' SMTP relay). */
  relay?: { queue(messageId: string, mailerId: string, at: number): void; wake(): void };
}

/** Sending email and what follows: composing, storing, planning the simulation, the logs. */
export class EmailService {
  /** Keys of copies and ref_ids of sends: ULIDs in creation order even within one millisecond (the logs page by them). */
  private readonly newId = monotonicUlids();

  constructor(private readonly deps: EmailDeps) {}

  /** Whether the sender is at a verified domain of the account (the one it signs for), as the real service requires. */
  senderVerified(accountId: string, fromEmail: string): boolean {
    return this.deps.dkim?.(accountId, fromEmail) !== undefined;
  }

  /**
   * One send: one ref_id, a copy per recipient with the simulation's events scheduled (see
   * composeCopies for when recipients share one composed message). `warnings`: what the real service
   * would have refused in it (core/would-refuse.ts), stored with the send for each copy's detail.
   */
  async send(accountId: string, body: SendEmailBody, warnings: readonly string[] = []): Promise<{ ref_id: string }> {
    const now = this.deps.clock.now();
    const template = body.template_id ? this.deps.template(accountId, body.template_id) : undefined;
    if (body.template_id && !template) {
      throw appError('templateIdUnknown');
    }
    const mailerId = body.mailer_id ?? '';
    const { relayed } = this.deps.senders.check(accountId, mailerId, body.from.email);
    const refId = this.newId(now);
    const recipients = [
      ...body.to.map((r) => ({ ...r, type: 'to' as const })),
      ...(body.cc ?? []).map((r) => ({ ...r, type: 'cc' as const })),
      ...(body.bcc ?? []).map((r) => ({ ...r, type: 'bcc' as const })),
    ].map((r) => ({ ...r, id: this.newId(now) }));
    // The request's own subject and content win over the template's.
    const subject = body.subject ?? template?.subject ?? '';
    const content = body.content ?? template?.content ?? [];
    const html = content.find((c) => c.type === 'text/html')?.value;
    const text = content.find((c) => c.type === 'text/plain')?.value;
    const substitute = template !== undefined || Object.keys(body.substitutions ?? {}).length > 0;
    // Filling is done once per recipient on this thread: its placeholders are bounded.
    if (substitute && countPlaceholders([subject, html, text]) > SEND_LIMITS.placeholders) {
      throw appError('tooManyPlaceholders');
    }
    const copies = await composeCopies(body, recipients, {
      date: new Date(now),
      subject,
      html,
      text,
      substitute,
      dkim: this.deps.dkim?.(accountId, body.from.email),
      baseUrl: this.deps.baseUrl(),
      compose: this.deps.compose,
    });

    await this.record(accountId, now, {
      refId,
      source: 'api',
      from: { email: body.from.email, name: body.from.name ?? '' },
      subject,
      campaignId: body.campaign_id ?? '',
      mailerId,
      relayed,
      customArgs: body.custom_args ?? {},
      priority: String(body.priority ?? 0),
      tags: this.headerTags(body.headers),
      copies,
      warnings,
    });
    return { ref_id: refId };
  }

  /** A send's `X-Tags` header (its name in any case) tags its copies, as the SMTP sink reads it. */
  private headerTags(headers: Record<string, string> | undefined): string[] {
    const value = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'x-tags')?.[1];
    return value === undefined || this.deps.xTags === undefined ? [] : this.deps.xTags(value);
  }

  /**
   * A message the SMTP sink accepted, kept exactly as it came: one ref_id for it, a log entry per
   * envelope recipient, each through the same simulation and events as an API send. Answers the ref_id.
   */
  async acceptSmtp(accountId: string, message: IncomingMessage): Promise<string> {
    const now = this.deps.clock.now();
    const refId = this.newId(now);
    await this.record(accountId, now, {
      refId,
      source: 'smtp',
      from: message.from,
      subject: message.subject,
      campaignId: message.campaignId,
      mailerId: '',
      relayed: false,
      customArgs: message.customArgs,
      tags: message.tags ?? [],
      priority: '0',
      copies: message.recipients.map((r) => ({ ...r, id: this.newId(now), raw: message.raw, tokens: [] })),
    });
    return refId;
  }

  /**
   * Stores the copies of one send (API or SMTP) with the simulation's plan for each recipient, in one
   * group-committed write; answers once the rows are in the store.
   */
  private async record(accountId: string, now: number, send: RecordedSend): Promise<void> {
    const { messages, simulation, suppressions } = this.deps;
    const createdAt = isoTimestamp(now);
    const rules = this.deps.rules.list();
    const customArgs = JSON.stringify(send.customArgs);
    // A message sent through a mailer gets its real outcome from the relay, not the simulation.
    const relay = send.relayed ? this.deps.relay : undefined;
    // A shared composition is stored once, under the key of its first copy.
    const storedAs = new Map<Buffer, string>();
    const rows: MessageRow[] = [];
    const { events } = this.deps;
    const collect = events.has('message.created');
    await this.deps.writes.run(() => {
      // The batcher may run this twice (after another write of its group failed): start afresh.
      storedAs.clear();
      rows.length = 0;
      if (send.warnings !== undefined && send.warnings.length > 0) this.deps.warnings?.insert(send.refId, accountId, send.warnings);
      for (const c of send.copies) {
        const content = c.recipe ?? c.raw;
        let contentId = storedAs.get(content);
        if (contentId === undefined) {
          contentId = c.id;
          storedAs.set(content, contentId);
          messages.insertContent({ content_id: contentId, raw: c.raw, recipe: c.recipe });
        }
        const lc = c.email.toLowerCase();
        const plan = c.generationFailure ? generationFailed(c.generationFailure) : planFor(c.email, suppressions.has(accountId, lc), rules);
        const row: MessageRow = {
          id: c.id,
          ref_id: send.refId,
          account_id: accountId,
          content_id: contentId,
          source: send.source,
          from_email: send.from.email,
          from_name: send.from.name,
          recipient_email: c.email,
          recipient_lc: lc,
          recipient_domain: lc.slice(lc.lastIndexOf('@') + 1),
          recipient_name: c.name,
          recipient_type: c.type,
          subject: c.subject ?? send.subject,
          campaign_id: send.campaignId,
          mailer_id: send.mailerId,
          custom_args: customArgs,
          status: plan.kind === 'suppressed' ? 'failed' : 'queued',
          created_ms: now,
          created_at: createdAt,
          delivered_ms: null,
          delivered_at: null,
          failed_reason: plan.kind === 'suppressed' ? suppressedReason(suppressions.entry(accountId, lc)?.source) : '',
          priority: send.priority,
          updated_at: createdAt,
          patch: c.patch ?? null,
          // A copy stored as its recipe has its size once composed (MessagesRepo.rawOf).
          size: c.recipe ? null : c.patch ? patchedLength(c.raw.length, c.patch) : c.raw.length,
        };
        messages.insertMessage(row);
        for (const tag of send.tags ?? []) this.deps.tags?.add(c.id, tag);
        if (collect) rows.push(row);
        for (const t of c.tokens) messages.insertToken({ ...t, message_id: c.id });
        if (c.links) messages.insertLinks(c.id, c.links.key, c.links.of, c.links.list);
        if (plan.kind === 'events' && relay && !c.generationFailure) relay.queue(c.id, send.mailerId, now);
        else if (plan.kind === 'events') {
          let at = now;
          for (const e of plan.events) {
            at += e.delayMs;
            simulation.schedule({ message_id: c.id, event: e.event, fields: JSON.stringify(e.fields), due_at: at });
          }
        }
      }
    }, contentBytes(send.copies));
    events.emit('message.scheduled');
    events.emit('message.stored');
    relay?.wake();
    if (rows.length > 0) events.emit('message.created', rows);
  }

  /** The email logs (see queryEmailLogs). */
  logs(accountId: string, query: EmailLogsQuery): EmailLogsResponse {
    return queryEmailLogs(this.deps, accountId, query);
  }
}

/** The bytes of content a send stores: each distinct content (a recipe, or the raw message) once. */
function contentBytes(copies: RecordedSend['copies']): number {
  const seen = new Set<Uint8Array>();
  let bytes = 0;
  for (const c of copies) {
    const content = c.recipe ?? c.raw;
    if (seen.has(content)) continue;
    seen.add(content);
    bytes += content.length;
  }
  return bytes;
}
