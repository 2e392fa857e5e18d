import type { AttemptRecord, DeliverySummary } from '../../src-shared/schemas/dispatch';
import type { ImapMessageSummary } from '../../src-shared/schemas/mailers';
import type { MessageSummary } from '../../src-shared/schemas/messages';

/** What `GET /emulator/stream` announces (the emulator's EmulatorEventMap, as the UI reads it). */
export interface LiveEvents {
  'delivery.created': DeliverySummary;
  'delivery.updated': DeliverySummary;
  'attempt.completed': { delivery_id: string; attempt: AttemptRecord };
  'clock.changed': { now: string; speed: number };
  'message.created': MessageSummary;
  'message.updated': { ref_id: string; event: string; timestamp: string; delivery_id: string | null; status: MessageSummary['status'] };
  'mailer.updated': { mailer_id: string; account_id: string; config_type: string; status: string; last_error: string | null };
  'imap.message': ImapMessageSummary;
}
export type LiveEventName = keyof LiveEvents;
type Listener<K extends LiveEventName> = (data: LiveEvents[K]) => void;

const NAMES: LiveEventName[] = [
  'delivery.created',
  'delivery.updated',
  'attempt.completed',
  'clock.changed',
  'message.created',
  'message.updated',
  'mailer.updated',
  'imap.message',
];

/**
 * One EventSource for the whole UI, opened on the first subscription and closed after the last;
 * it reconnects by itself. `onReconnect` listeners hear each time it connects, to reload what they show.
 */
class LiveStream {
  private source: EventSource | null = null;
  private readonly listeners = new Map<LiveEventName, Set<Listener<never>>>();
  private readonly reconnects = new Set<() => void>();
  private count = 0;

  on<K extends LiveEventName>(name: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as Listener<never>);
    this.retain();
    return () => {
      set.delete(listener as Listener<never>);
      this.release();
    };
  }

  /**
   * Called each time the stream (re)connects, the first time included: what was announced before
   * the connection was up (or while it was down) is missed, so a listener reloads what it shows.
   */
  onReconnect(listener: () => void): () => void {
    this.reconnects.add(listener);
    return () => this.reconnects.delete(listener);
  }

  private retain(): void {
    if (this.count++ > 0) return;
    const source = new EventSource('/emulator/stream');
    this.source = source;
    source.onopen = () => {
      for (const r of this.reconnects) r();
    };
    for (const name of NAMES) {
      source.addEventListener(name, (e) => {
        const data = JSON.parse((e as MessageEvent<string>).data) as never;
        for (const l of this.listeners.get(name) ?? []) l(data);
      });
    }
  }

  private release(): void {
    if (--this.count > 0) return;
    this.source?.close();
    this.source = null;
  }
}

export const live = new LiveStream();
