import type { ScenarioRun } from './scenario/report';
import type { CatcherRequest } from './schemas/catchers';
import type { AttemptRecord, DeliverySummary } from './schemas/dispatch';
import type { AccountRecord, StoreSpace } from './schemas/emulator';
import type { InboundMessageRecord } from './schemas/inbound';
import type { ImapMessageSummary } from './schemas/mailers';
import type { MessageSummary } from './schemas/messages';
import type { PrunedTotals } from './schemas/store';

/**
 * What `GET /emulator/stream` announces, by event name: the emulator emits these as they happen (and
 * the desktop shell listens), the UI reads them. One definition for both sides.
 */
export interface LiveEventMap {
  'delivery.created': DeliverySummary;
  'delivery.updated': DeliverySummary;
  'attempt.completed': { delivery_id: string; attempt: AttemptRecord };
  'clock.changed': { now: string; speed: number };
  /** A captured message (API or SMTP), once it is in the store. */
  'message.created': MessageSummary;
  /**
   * An event happened to a stored message (or its relay was deferred: `relay_deferred`); `status` is
   * its log status after it; `suppressed`: the event put its recipient on the suppression list.
   */
  'message.updated': {
    message_id: string;
    ref_id: string;
    event: string;
    timestamp: string;
    delivery_id: string | null;
    status: MessageSummary['status'];
    failed_reason?: string;
    suppressed?: true;
  };
  /** A mailer was added, changed or deleted (`status: "deleted"`), or its connection status changed. */
  'mailer.updated': { mailer_id: string; account_id: string; config_type: string; status: string; last_error: string | null };
  /** Inbound routing accepted (and is posting) or refused a routed recipient's mail; the record is in the store. */
  'inbound.message': InboundMessageRecord;
  /** The IMAP connector took a message from an inbox (it is in the store). */
  'imap.message': ImapMessageSummary;
  /** The disk of the data directory was found full, or has room again. */
  'store.changed': StoreSpace;
  /** Retention removed the oldest mail beyond its limits: the totals since the start. */
  'store.pruned': PrunedTotals;
  /** A QA scenario run started, progressed (at most ~4 a second) or finished. */
  'scenario.updated': ScenarioRun;
  /** A catcher received a request (recorded before it is answered). */
  'catcher.request': CatcherRequest;
  /** An account was created (through the API, the Settings screen or a scenario run). */
  'account.created': AccountRecord;
  /** An account was deleted with everything it owned. */
  'account.deleted': { account_id: string; name: string };
}
export type LiveEventName = keyof LiveEventMap;

/** Every name the stream carries. */
export const LIVE_EVENT_NAMES: readonly LiveEventName[] = [
  'delivery.created',
  'delivery.updated',
  'attempt.completed',
  'clock.changed',
  'message.created',
  'message.updated',
  'mailer.updated',
  'inbound.message',
  'imap.message',
  'store.changed',
  'store.pruned',
  'scenario.updated',
  'catcher.request',
  'account.created',
  'account.deleted',
];
