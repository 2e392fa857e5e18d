import type { EmailStatus } from '../../../../src-shared/schemas/email';
import type { EmailEventPayload } from '../../../../src-shared/schemas/events';
import type { Clock } from '../../clock';
import { isoTimestamp } from '../../clock';
import type { MessageRow, MessagesRepo } from '../../store/messages.repo';
import type { SimulationRepo } from '../../store/simulation.repo';

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
}

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
}

/** Statuses a later open or click does not replace: the recipient's own verdicts and the end of the road. */
const FINAL_FOR_ENGAGEMENT: ReadonlySet<EmailStatus> = new Set(['spam', 'unsubscribed', 'bounced', 'failed']);

/**
 * What an event does to its copy's status, and why it failed when it did (the logs' `failedReason`).
 * Undefined: the status stays as it is.
 */
export function statusAfter(payload: EmailEventPayload, current: EmailStatus): { status: EmailStatus; failedReason?: string } | undefined {
  switch (payload.event) {
    case 'delivery':
      return { status: 'delivered' };
    case 'open':
      return FINAL_FOR_ENGAGEMENT.has(current) || current === 'clicked' ? undefined : { status: 'opened' };
    case 'click':
      return FINAL_FOR_ENGAGEMENT.has(current) ? undefined : { status: 'clicked' };
    case 'bounce':
      return { status: 'bounced' };
    case 'spam':
      return { status: 'spam' };
    case 'unsubscribe':
      return { status: 'unsubscribed' };
    case 'policy_rejection':
      return { status: 'failed', failedReason: `policy rejection: ${payload.reason}` };
    case 'phishing':
      return { status: 'failed', failedReason: `phishing: ${payload.reason}` };
    case 'generation_failure':
      return { status: 'failed', failedReason: `generation failure: ${payload.reason}` };
    case 'generation_rejection':
      return { status: 'failed', failedReason: `generation rejection: ${payload.reason}` };
    case 'smtp_error':
      return { status: 'failed', failedReason: `smtp error: ${payload.smtp_response}` };
    default:
      return undefined;
  }
}

/** The failed reason of a copy whose recipient is on the suppression list (the logs' `failedReason`). */
export const SUPPRESSED_REASON = 'recipient is on the suppression list (unsubscribed)';

export interface MessageLogDeps {
  messages: MessagesRepo;
  /** The suppression list an unsubscribe event adds to. */
  simulation: SimulationRepo;
  clock: Clock;
  /** Announces each applied event with the copy's status after it (the UI's live list). */
  applied?: (change: StatusChange) => void;
}

/** The email log side of events: a copy's status, its event list, and suppression on unsubscribe. */
export class MessageLog {
  constructor(private readonly deps: MessageLogDeps) {}

  /** A copy by its own key. */
  find(messageId: string): MessageFacts | undefined {
    const row = this.deps.messages.get(messageId);
    return row && factsOf(row);
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
    const { messages, simulation, clock } = this.deps;
    const { messageId } = message;
    messages.addEvent(messageId, payload.event, payload.timestamp, deliveryId);
    const change = statusAfter(payload, message.status);
    if (payload.event === 'unsubscribe') {
      simulation.suppress(message.accountId, message.recipient.email.toLowerCase(), 'unsubscribe event', isoTimestamp(clock.now()));
    }
    if (change?.status === 'delivered') messages.setDelivered(messageId, 'delivered', Date.parse(payload.timestamp), payload.timestamp);
    else if (change) messages.setStatus(messageId, change.status, payload.timestamp, change.failedReason ?? null);
    if (change) message.status = change.status;
    this.deps.applied?.({
      message_id: messageId,
      ref_id: message.refId,
      event: payload.event,
      timestamp: payload.timestamp,
      delivery_id: deliveryId,
      status: change?.status ?? null,
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
