import type { EmailEventKind } from '../../../../src-shared/events';
import type { EmailStatus } from '../../../../src-shared/schemas/email';
import type { EmailEventPayload } from '../../../../src-shared/schemas/events';
import type { FireOutcome } from '../../../../src-shared/schemas/messages';
import { bounceOfReply, SIMULATOR_DOMAIN } from '../../../../src-shared/simulator';
import type { MessageRow, MessagesRepo } from '../../store/messages.repo';
import type { SuppressionsService } from './suppressions.service';

/** The facts of a stored copy that event payloads carry. */
export interface MessageFacts {
  /** The copy's own key (one recipient of the send). */
  messageId: string;
  /** The send's ref_id: what every event about any of its recipients carries. */
  refId: string;
  accountId: string;
  recipient: { email: string; name: string };
  sender: { email: string; name: string };
  subject: string;
  campaignId: string;
  mailerId: string;
  customArgs: Record<string, string>;
  status: EmailStatus;
  /** Why the copy failed or bounced (a bounce's reply), or empty. */
  failedReason: string;
}

/** What a delivery reads and changes of its copy: no payload is built from it. */
export type CopyState = Pick<MessageFacts, 'messageId' | 'refId' | 'accountId' | 'status' | 'failedReason'>;

export function factsOf(row: MessageRow): MessageFacts {
  return {
    messageId: row.id,
    refId: row.ref_id,
    accountId: row.account_id,
    recipient: { email: row.recipient_email, name: row.recipient_name },
    sender: { email: row.from_email, name: row.from_name },
    subject: row.subject,
    campaignId: row.campaign_id,
    mailerId: row.mailer_id,
    customArgs: JSON.parse(row.custom_args) as Record<string, string>,
    status: row.status,
    failedReason: row.failed_reason,
  };
}

/** A change of a copy's log status, as the UI's live list hears of it. */
export interface StatusChange {
  message_id: string;
  ref_id: string;
  event: string;
  timestamp: string;
  delivery_id: string | null;
  status: EmailStatus | null;
  /** The copy's failed reason after the event (a bounce's reply); absent when the status stays. */
  failed_reason?: string;
  /** The event put the recipient on the account's suppression list (or found it there); absent otherwise. */
  suppressed?: true;
}

/** Payload fields every event of a copy repeats (its facts), which tell no two events apart. */
const COPY_FIELDS: ReadonlySet<string> = new Set(['event', 'timestamp', 'ref_id', 'campaign_id', 'custom_args', 'recipient', 'sender', 'subject', 'mailer_id']);

/**
 * What tells an event from another of its kind, kept with its log entry (the message's Events tab
 * shows it: three bounces of one copy are soft, soft, hard, each with its reply): the payload's own
 * fields as JSON, or null when it has none.
 */
export function detailsOf(payload: EmailEventPayload): string | null {
  const own = Object.entries(payload).filter(([key]) => !COPY_FIELDS.has(key));
  return own.length > 0 ? JSON.stringify(Object.fromEntries(own)) : null;
}

/** The end of a copy's road: the recipient's own verdicts and the failures. A later open or click does not replace them. */
const FINAL_STATUSES: ReadonlySet<EmailStatus> = new Set(['spam', 'unsubscribed', 'bounced', 'failed']);

/**
 * Statuses a delivery replaces: on its way (queued, sent), delivered already (a second delivery moves
 * the time), and a soft bounce (a refusal for now; the mail may still arrive). Any other status came
 * after a delivery or ends the road: an event fired at a copy still queued (a hard bounce from the
 * UI) must not be undone by the simulated delivery that lands a moment later.
 */
function deliveryReplaces(current: CurrentStatus): boolean {
  if (current.status === 'queued' || current.status === 'sent' || current.status === 'delivered') return true;
  return current.status === 'bounced' && bounceOfReply(current.failedReason)?.type === 'soft';
}

type CurrentStatus = Pick<MessageFacts, 'status' | 'failedReason'>;
type StatusAfter = { status: EmailStatus; failedReason?: string } | undefined;

/**
 * What a delivery does to its copy's status: it needs nothing of the payload (see MessageLog.applyDelivery).
 * A delivered copy has no failed reason: a soft bounce's reply is gone once a retry got through.
 */
const statusAfterDelivery = (current: CurrentStatus): StatusAfter => (deliveryReplaces(current) ? { status: 'delivered', failedReason: '' } : undefined);

/**
 * What an event of each kind does to its copy's status, and why it failed when it did (the logs'
 * `failedReason`); undefined: the status stays as it is. One entry per kind: a new kind is a
 * compile error here until it says what it does.
 */
const STATUS_AFTER: { [K in EmailEventKind]: (payload: Extract<EmailEventPayload, { event: K }>, current: CurrentStatus) => StatusAfter } = {
  delivery: (_, current) => statusAfterDelivery(current),
  open: (_, { status }) => (FINAL_STATUSES.has(status) || status === 'clicked' ? undefined : { status: 'opened' }),
  click: (_, { status }) => (FINAL_STATUSES.has(status) ? undefined : { status: 'clicked' }),
  // The reason is the receiving server's reply (`550 5.1.1 <a@b>: ...`), hard or soft alike.
  bounce: (p) => ({ status: 'bounced', failedReason: p.bounce_reason }),
  spam: () => ({ status: 'spam' }),
  unsubscribe: () => ({ status: 'unsubscribed' }),
  policy_rejection: (p) => ({ status: 'failed', failedReason: `policy rejection: ${p.reason}` }),
  phishing: (p) => ({ status: 'failed', failedReason: `phishing: ${p.reason}` }),
  generation_failure: (p) => ({ status: 'failed', failedReason: `generation failure: ${p.reason}` }),
  generation_rejection: (p) => ({ status: 'failed', failedReason: `generation rejection: ${p.reason}` }),
  smtp_error: (p) => ({ status: 'failed', failedReason: `smtp error: ${p.smtp_response}` }),
  // About a mailer's connection, not a copy.
  imap_error: () => undefined,
};

/** What an event does to its copy's status (see STATUS_AFTER). */
export function statusAfter(payload: EmailEventPayload, current: CurrentStatus): StatusAfter {
  return (STATUS_AFTER[payload.event] as (p: EmailEventPayload, c: CurrentStatus) => StatusAfter)(payload, current);
}

/**
 * The failed reason of a copy whose recipient is on the suppression list (the logs' `failedReason`),
 * with what put it there: `unsubscribed` (an unsubscribe event or the API), `hard bounce`, `spam complaint`.
 */
export function suppressedReason(source: string | undefined): string {
  const why = source === undefined || source === 'api' || source === 'unsubscribe event' ? 'unsubscribed' : source;
  return `recipient is on the suppression list (${why})`;
}

/** What puts an address on the suppression list (a suppression's `source`). */
export type SuppressionSource = 'unsubscribe event' | 'hard bounce' | 'spam complaint' | 'api';

type Suppressing = { source: SuppressionSource; reason: string } | undefined;

/**
 * The events that suppress their recipient for the account, with the entry's source and reason: an
 * unsubscribe, a hard bounce and a spam complaint (the default of SES, SendGrid and Postmark). A soft
 * bounce does not: the mailbox may take mail again later. A bounce or complaint of a simulator address
 * (`bounce@sim.mailyard.test`) does not either (suppressionFor): a test sends to it again and again.
 * One entry per kind: a new kind is a compile error here until it says whether it suppresses.
 */
const SUPPRESSION_OF: { [K in EmailEventKind]: (payload: Extract<EmailEventPayload, { event: K }>) => Suppressing } = {
  delivery: () => undefined,
  open: () => undefined,
  click: () => undefined,
  bounce: (p) => (p.bounce_type === 'hard' ? { source: 'hard bounce', reason: p.bounce_reason } : undefined),
  spam: () => ({ source: 'spam complaint', reason: 'the recipient marked the message as spam' }),
  unsubscribe: () => ({ source: 'unsubscribe event', reason: 'unsubscribed' }),
  // The service's refusals and failures say nothing of the recipient's wishes or mailbox.
  policy_rejection: () => undefined,
  generation_failure: () => undefined,
  generation_rejection: () => undefined,
  smtp_error: () => undefined,
  phishing: () => undefined,
  imap_error: () => undefined,
};

/**
 * Whether an event puts its copy's recipient on the account's suppression list, and with which
 * source and reason (see SUPPRESSION_OF). The simulator's addresses are fixtures, sent to again and
 * again: only an unsubscribe suppresses them.
 */
export function suppressionFor(message: Pick<MessageFacts, 'recipient'>, payload: EmailEventPayload): Suppressing {
  const suppression = (SUPPRESSION_OF[payload.event] as (p: EmailEventPayload) => Suppressing)(payload);
  if (suppression?.source !== 'unsubscribe event' && message.recipient.email.toLowerCase().endsWith(`@${SIMULATOR_DOMAIN}`)) return undefined;
  return suppression;
}

/**
 * What an event would do to its copy, without doing it: the status after it, whether it changes a
 * final status or why the copy failed, whether it suppresses the recipient. The rules are the ones
 * `apply` follows (statusAfter, suppressionFor).
 */
export function outcomeOf(message: MessageFacts, payload: EmailEventPayload): FireOutcome {
  const change = statusAfter(payload, message);
  const status = change?.status ?? message.status;
  const changed = status !== message.status || (change?.failedReason !== undefined && change.failedReason !== message.failedReason);
  return { status, changes_final: FINAL_STATUSES.has(message.status) && changed, suppresses: suppressionFor(message, payload) !== undefined };
}

export interface MessageLogDeps {
  messages: MessagesRepo;
  /** The suppression list an unsubscribe event, a hard bounce or a spam complaint adds to. */
  suppressions: Pick<SuppressionsService, 'add'>;
  /** Announces each applied event with the copy's status after it (the UI's live list). */
  applied?: (change: StatusChange) => void;
}

/** The email log side of events: a copy's status, its event list, and suppression (see suppressionFor). */
export class MessageLog {
  constructor(private readonly deps: MessageLogDeps) {}

  /** A copy by its own key. */
  find(messageId: string): MessageFacts | undefined {
    const row = this.deps.messages.get(messageId);
    return row && factsOf(row);
  }

  /** The copies of these keys that still exist, by key: one read for a batch of events. */
  findMany(messageIds: readonly string[]): Map<string, MessageFacts> {
    return new Map(this.deps.messages.getMany(messageIds).map((row) => [row.id, factsOf(row)]));
  }

  /** The states of the copies of these keys that still exist, by key: one narrow read for a batch of deliveries. */
  findStates(messageIds: readonly string[]): Map<string, CopyState> {
    return new Map(
      this.deps.messages
        .statesOf(messageIds)
        .map((row) => [row.id, { messageId: row.id, refId: row.ref_id, accountId: row.account_id, status: row.status, failedReason: row.failed_reason }]),
    );
  }

  /**
   * The copy of send `refId` that went to `recipient` (case-insensitive), or its first copy when no
   * recipient is named; undefined when there is no such send or the send has no such recipient.
   */
  findBySend(refId: string, recipient?: string): MessageFacts | undefined {
    const copies = this.deps.messages.ofSend(refId);
    const lc = recipient?.toLowerCase();
    const row = lc === undefined ? copies[0] : copies.find((c) => c.recipient_lc === lc);
    return row && factsOf(row);
  }

  /** Records an event that happened to a stored copy, found with `find` (call inside a transaction). */
  apply(message: MessageFacts, payload: EmailEventPayload, deliveryId: string | null): void {
    this.enter(message, payload.event, payload.timestamp, deliveryId, statusAfter(payload, message), suppressionFor(message, payload), detailsOf(payload));
  }

  /**
   * Records a delivery no webhook is told of: its log entry and status need no payload (a delivery's
   * status follows from the copy's alone), so none is built. Call inside a transaction.
   */
  applyDelivery(message: MessageFacts, timestamp: string): void {
    this.enter(message, 'delivery', timestamp, null, statusAfterDelivery(message), undefined);
  }

  /**
   * applyDelivery for a batch of copies, a statement each for their log entries and their statuses
   * instead of two or three a copy; the same rows, statuses and announcements. Each copy at most once
   * (a copy with more events in the batch takes them one at a time, in order). Call inside a transaction.
   */
  applyDeliveries(entries: ReadonlyArray<{ message: CopyState; timestamp: string }>): void {
    const { messages } = this.deps;
    const applied = entries.map((entry) => ({ ...entry, change: statusAfterDelivery(entry.message) }));
    messages.allOrNone(() => {
      messages.addDeliveries(entries.map(({ message, timestamp }) => ({ messageId: message.messageId, timestamp })));
      messages.setDeliveredMany(
        applied
          .filter(({ change }) => change !== undefined)
          .map(({ message, timestamp }) => ({ messageId: message.messageId, deliveredMs: Date.parse(timestamp), deliveredAt: timestamp })),
      );
    });
    for (const { message, timestamp, change } of applied) this.entered(message, 'delivery', timestamp, null, change, undefined);
  }

  private enter(
    message: MessageFacts,
    event: EmailEventKind,
    timestamp: string,
    deliveryId: string | null,
    change: StatusAfter,
    suppression: Suppressing,
    details: string | null = null,
  ): void {
    const { messages, suppressions } = this.deps;
    const { messageId } = message;
    messages.addEvent(messageId, event, timestamp, deliveryId, details);
    if (suppression) suppressions.add(message.accountId, message.recipient.email, suppression.source, { reason: suppression.reason, messageId });
    if (change?.status === 'delivered') messages.setDelivered(messageId, 'delivered', Date.parse(timestamp), timestamp);
    else if (change) messages.setStatus(messageId, change.status, timestamp, change.failedReason ?? null);
    this.entered(message, event, timestamp, deliveryId, change, suppression);
  }

  /** After an event's rows are written: the copy's facts follow its new status, and the UI hears of it. */
  private entered(
    message: CopyState,
    event: EmailEventKind,
    timestamp: string,
    deliveryId: string | null,
    change: StatusAfter,
    suppression: Suppressing,
  ): void {
    const { messageId } = message;
    if (change) {
      message.status = change.status;
      if (change.failedReason !== undefined) message.failedReason = change.failedReason;
    }
    this.deps.applied?.({
      message_id: messageId,
      ref_id: message.refId,
      event,
      timestamp,
      delivery_id: deliveryId,
      status: change?.status ?? null,
      ...(change ? { failed_reason: change.failedReason ?? '' } : {}),
      ...(suppression ? { suppressed: true } : {}),
    });
  }

  /**
   * The SMTP mailer's server refused a copy for now; it is tried again later. No event of the service:
   * the status (`sent`: handed on, waiting) says it, and the announcement names it `relay_deferred`.
   */
  defer(messageId: string, timestamp: string): void {
    const row = this.deps.messages.get(messageId);
    this.deps.messages.setStatus(messageId, 'sent', timestamp);
    this.deps.applied?.({ message_id: messageId, ref_id: row?.ref_id ?? '', event: 'relay_deferred', timestamp, delivery_id: null, status: 'sent' });
  }
}
