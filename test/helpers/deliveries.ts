import { afterEach, beforeEach } from 'vitest';
import type { ServiceClient } from '../../src-shared/clients';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { startEmulator, type TestEmulator } from './emulator';
import { type Receiver, startReceiver } from './receiver';

/** Every email event kind enabled, as a webhook's `webhook_options.events`. */
const allKinds = () => Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true]));

/** Registers the account's EMAIL_EVENT webhook at `url` (every kind unless `events` says otherwise). */
export async function registerHook(
  client: ServiceClient,
  url: string,
  options: { events?: Record<string, boolean>; method?: string; headers?: Record<string, string> } = {},
) {
  await client.registerWebhook({
    webhook_url: url,
    event: 'EMAIL_EVENT',
    method: (options.method ?? 'POST') as 'POST',
    headers: options.headers,
    webhook_options: { events: options.events ?? allKinds() },
  });
}

/** Gives the dispatcher time to (wrongly) act; used only to check that nothing happens. */
export const settle = () => new Promise((r) => setTimeout(r, 300));

/** The clock and delivery waits of a test file, on the emulator `current()` answers (each test starts its own). */
export function deliveryHelpers(current: () => TestEmulator) {
  return {
    /** Pauses the emulator clock so every timestamp and schedule is exact. */
    async pauseClock(): Promise<number> {
      return (await current().control.setClock({ speed: 0 })).data.now_ms;
    },

    async advance(ms: number) {
      return current().control.setClock({ advance_ms: ms });
    },

    /** Waits until the delivery has `n` attempts recorded (attempts finish after the receiver answers). */
    async attemptsOf(id: string, n: number, timeoutMs = 10_000, on: TestEmulator = current()) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const d = (await on.control.getDelivery(id)).data;
        if (d.attempt_log.length >= n && d.status !== 'sending') return d;
        if (Date.now() > deadline) throw new Error(`delivery ${id} has ${d.attempt_log.length} attempts (${d.status}), expected ${n}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/**
 * For tests that start their own emulator (each with its options) and what it talks to: after each
 * test, `stopFirst` (the emulator, so nothing is sent to what closes next), then every closer
 * registered, in order. `receiver()` starts a receiver closed after the test.
 */
export function closedAfterEachTest(stopFirst: () => Promise<void>): { closers: Array<() => Promise<void>>; receiver: () => Promise<Receiver> } {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await stopFirst();
    for (const close of closers.splice(0)) await close();
  });
  const receiver = async () => {
    const r = await startReceiver();
    closers.push(() => r.close());
    return r;
  };
  return { closers, receiver };
}

/**
 * A fresh emulator and receiver for each test of the file, handed to `use` before it runs and closed
 * after it. What a test pushes onto the returned list is closed too, last first.
 */
export function emulatorAndReceiverPerTest(use: (emu: TestEmulator, receiver: Receiver) => void): Array<() => Promise<unknown>> {
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeEach(async () => {
    const receiver = await startReceiver();
    const emu = await startEmulator();
    use(emu, receiver);
    cleanups.push(
      () => emu.cleanup(),
      () => receiver.close(),
    );
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return cleanups;
}
