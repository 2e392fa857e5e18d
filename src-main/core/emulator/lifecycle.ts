import type { Logger } from 'pino';
import { type EmulatorClock, isoTimestamp } from '../clock';
import type { EmulatorConfig } from '../config';
import type { LiveBus } from '../live-bus';
import type { StateRepo } from '../store/state.repo';
import type { WriteBatcher } from '../store/write-batcher';
import type { Listeners } from './listeners';
import type { OpenStore } from './store';
import type { EmulatorServices } from './types';

/** Where the emulated clock's offset is kept between runs (emulated time never goes back on a restart). */
export const CLOCK_OFFSET_KEY = 'clock_offset_ms';

/** The emulator clock as the last run left it: the same offset from wall time. */
export function restoredClockOffset(state: StateRepo): number {
  return Number(state.get(CLOCK_OFFSET_KEY) ?? 0);
}

/**
 * Sets the workers going (dispatcher, simulator, SMTP relay, IMAP watches) and keeps them on the
 * clock: a change of speed or a jump is saved, announced on the live bus, and wakes what waits on it.
 */
export function startWorkers(services: EmulatorServices, clock: EmulatorClock, live: LiveBus, state: StateRepo): void {
  const { deliveryWorker, simulator, relay, imap } = services;
  clock.onChange((s) => {
    state.set(CLOCK_OFFSET_KEY, String(s.offsetMs));
    live.emit('clock.changed', { now: isoTimestamp(s.now), speed: s.speed });
    deliveryWorker.wake();
    simulator.wake();
  });
  deliveryWorker.start();
  simulator.start();
  relay.start();
  imap.start();
  services.spamFilter.start();
  services.searchIndexer.start();
}

/**
 * The graceful stop: no new work is accepted; requests and delivery attempts in flight get the grace
 * period (connections still open after it are cut, so a client holding a socket cannot block the stop;
 * attempts cut short are recorded and retried on the next start); then the clock's offset is saved and
 * the store closed.
 */
export async function stopEmulator(parts: {
  config: EmulatorConfig;
  services: EmulatorServices;
  listeners: Listeners;
  writes: WriteBatcher;
  clock: EmulatorClock;
  state: StateRepo;
  store: OpenStore;
  logger: Logger;
}): Promise<void> {
  const { config, listeners, services, clock } = parts;
  // A scenario run under way stops first: its app under test is stopped and its report written.
  await services.scenarios.close();
  const grace = setTimeout(() => listeners.http.server.closeAllConnections(), config.shutdownGraceMs);
  services.simulator.stop();
  services.spamFilter.stop();
  services.receiverChecks.stop();
  await services.retention.stop();
  // The SMTP sink stops first: a message it is still taking in may enqueue deliveries.
  // So do the relay and the IMAP connector: what they finish enqueues deliveries too.
  const intake = Promise.all([listeners.smtp.close(), services.relay.stop(config.shutdownGraceMs), services.imap.stop()]);
  await Promise.all([listeners.http.close(), intake.then(() => services.deliveryWorker.stop(config.shutdownGraceMs))]);
  clearTimeout(grace);
  await services.spamd.stop();
  parts.writes.flush();
  // What is not indexed yet stays queued in the store for the next start.
  await services.searchIndexer.close();
  await services.mailThread.close();
  parts.state.set(CLOCK_OFFSET_KEY, String(clock.state().offsetMs));
  clock.dispose();
  await parts.store.close();
  parts.logger.info('mailyard stopped');
  parts.logger.flush?.();
}
