import { EventEmitter } from 'node:events';
import type { AttemptRecord, DeliverySummary } from '../../src-shared/schemas/dispatch';
import type { ImapMessageSummary } from '../../src-shared/schemas/mailers';
import type { MessageSummary } from '../../src-shared/schemas/messages';

/** What the emulator announces as it happens (the live stream and the desktop shell listen). */
export interface EmulatorEventMap {
  'delivery.created': DeliverySummary;
  'delivery.updated': DeliverySummary;
  'attempt.completed': { delivery_id: string; attempt: AttemptRecord };
  'clock.changed': { now: string; speed: number };
  /** A captured message (API or SMTP), once it is in the store. */
  'message.created': MessageSummary;
  /** An event happened to a stored message; `status` is its log status after it. */
  'message.updated': { ref_id: string; event: string; timestamp: string; delivery_id: string | null; status: string };
  /** A mailer was added, changed or deleted (`status: "deleted"`), or its connection status changed. */
  'mailer.updated': { mailer_id: string; account_id: string; config_type: string; status: string; last_error: string | null };
  /** The IMAP connector took a message from an inbox (it is in the store). */
  'imap.message': ImapMessageSummary;
}
export type EmulatorEventName = keyof EmulatorEventMap;

export class EmulatorEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every open UI tab holds one listener per event; do not warn at 10.
    this.emitter.setMaxListeners(0);
  }

  emit<K extends EmulatorEventName>(name: K, data: EmulatorEventMap[K]): void {
    this.emitter.emit(name, data);
  }

  /** Whether anyone listens: building a payload nobody reads is wasted work on hot paths. */
  hasListeners(name: EmulatorEventName): boolean {
    return this.emitter.listenerCount(name) > 0;
  }

  on<K extends EmulatorEventName>(name: K, listener: (data: EmulatorEventMap[K]) => void): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
