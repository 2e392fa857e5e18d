import { LIVE_EVENT_NAMES, type LiveEventMap, type LiveEventName } from '../../src-shared/live-events';

export type { LiveEventName };
/** What `GET /emulator/stream` announces (src-shared's LiveEventMap). */
export type LiveEvents = LiveEventMap;
type Listener<K extends LiveEventName> = (data: LiveEvents[K]) => void;

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
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
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
    for (const name of LIVE_EVENT_NAMES) {
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
