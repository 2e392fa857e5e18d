import { EventEmitter } from 'node:events';
import type { LiveEventMap } from '../../src-shared/live-events';

/** What the emulator announces as it happens: the live stream's events (the stream and the desktop shell listen). */
export type EmulatorEventMap = LiveEventMap;
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
