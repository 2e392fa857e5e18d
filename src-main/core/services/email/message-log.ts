import type { EmailStatus } from '../../../../src-shared/schemas/email';
import type { EmailEventPayload } from '../../../../src-shared/schemas/events';
import type { Clock } from '../../clock';
import { isoTimestamp } from '../../clock';
import type { MessageRow, MessagesRepo } from '../../store/messages.repo';
import type { SimulationRepo } from '../../store/simulation.repo';

/** The facts of a stored message that event payloads carry. */
export interface MessageFacts {
  refId: string;
  accountId: string;
  recipient: { email: string; name: string };
  sender: { email: string; name: string };
  subject: string;
  campaignId: string;
  mailerId: string;
  customArgs: Record<string, string>;
}

export function factsOf(row: MessageRow): MessageFacts {
  return {
    refId: row.ref_id,
    accountId: row.account_id,
    recipient: { email: row.recipient_email, name: row.recipient_name },
    sender: { email: row.from_email, name: row.from_name },
    subject: row.subject,
    campaignId: row.campaign_id,
    mailerId: row.mailer_id,
    customArgs: JSON.parse(row.custom_args) as Record<string, string>,
  };
}

/** What each event does to its message's log status (kinds not listed leave it as it is). */
const STATUS_AFTER: Partial<Record<EmailEventPayload['event'], EmailStatus>> = {
  delivery: 'delivered',
  policy_rejection: 'rejected',
  phishing: 'rejected',
  generation_failure: 'failed',
  generation_rejection: 'failed',
  smtp_error: 'failed',
};

/** The email log side of events: a message's status, its event list, and suppression on unsubscribe. */
export class MessageLog {
  constructor(
    private readonly messages: MessagesRepo,
    private readonly simulation: SimulationRepo,
    private readonly clock: Clock,
    /** Announces each applied event with the message's status after it (the UI's live list). */
    private readonly applied?: (change: { ref_id: string; event: string; timestamp: string; delivery_id: string | null; status: EmailStatus | null }) => void,
  ) {}

  find(refId: string): MessageFacts | undefined {
    const row = this.messages.get(refId);
    return row && factsOf(row);
  }

  /** Records an event that happened to a stored message, found with `find` (call inside a transaction). */
  apply(message: MessageFacts, payload: EmailEventPayload, deliveryId: string | null): void {
    const { refId } = message;
    this.messages.addEvent(refId, payload.event, payload.timestamp, deliveryId);
    let status = STATUS_AFTER[payload.event];
    if (payload.event === 'bounce') status = payload.bounce_type === 'hard' ? 'bounced' : 'deferred';
    if (payload.event === 'unsubscribe') {
      // recipient_lc is the address lower-cased, as stored at send.
      this.simulation.suppress(message.accountId, message.recipient.email.toLowerCase(), 'unsubscribe event', isoTimestamp(this.clock.now()));
    }
    if (status === 'delivered') this.messages.setDelivered(refId, status, Date.parse(payload.timestamp), payload.timestamp);
    else if (status !== undefined) this.messages.setStatus(refId, status);
    this.applied?.({ ref_id: refId, event: payload.event, timestamp: payload.timestamp, delivery_id: deliveryId, status: status ?? null });
  }

  /**
   * The SMTP mailer's server refused a message for now; it is tried again later. No event of the
   * service: the status says it, and the announcement names it `relay_deferred`.
   */
  defer(refId: string, timestamp: string): void {
    this.messages.setStatus(refId, 'deferred');
    this.applied?.({ ref_id: refId, event: 'relay_deferred', timestamp, delivery_id: null, status: 'deferred' });
  }
}
