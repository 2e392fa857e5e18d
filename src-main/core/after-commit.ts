/**
 * What a service announces once its writes are committed, as named and typed events: the producer
 * declares its event table beside the code that emits, and each area of the emulator subscribes in its
 * own module (emulator/areas/), so a reader follows the data by the event's name. Listeners run at
 * once, in the order they subscribed, inside the producer's call: one that throws fails that call.
 * Not the live bus (live-bus.ts), which tells the UI.
 */
export class AfterCommit<Events extends object> {
  private readonly listeners = new Map<keyof Events, Array<(data: never) => void>>();

  on<K extends keyof Events>(name: K, listener: (data: Events[K]) => void): void {
    const list = this.listeners.get(name);
    if (list) list.push(listener);
    else this.listeners.set(name, [listener]);
  }

  /** Whether anyone listens: a producer collects what only a listener reads when there is one. */
  has(name: keyof Events): boolean {
    return this.listeners.has(name);
  }

  emit<K extends keyof Events>(name: K, ...data: Events[K] extends undefined ? [] : [Events[K]]): void {
    const list = this.listeners.get(name) as Array<(data: Events[K] | undefined) => void> | undefined;
    if (list) for (const listener of list) listener(data[0]);
  }
}
