import { EventEmitter } from 'node:events';
import type { LiveEventMap } from '../../src-shared/live-events';

/** What the emulator announces as it happens: the live stream's events. */
export type LiveBusEventMap = LiveEventMap;
export type LiveBusEventName = keyof LiveBusEventMap;

/**
 * The live bus: what the emulator announces as it happens, for the UI's live stream and the desktop
 * shell (not to be confused with the email events a webhook receives, EmailEventsService).
 */
export class LiveBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every open UI tab holds one listener per event; do not warn at 10.
    this.emitter.setMaxListeners(0);
  }

  emit<K extends LiveBusEventName>(name: K, data: LiveBusEventMap[K]): void {
    this.emitter.emit(name, data);
  }

  /** Whether anyone listens: building a payload nobody reads is wasted work on hot paths. */
  hasListeners(name: LiveBusEventName): boolean {
    return this.emitter.listenerCount(name) > 0;
  }

  on<K extends LiveBusEventName>(name: K, listener: (data: LiveBusEventMap[K]) => void): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
