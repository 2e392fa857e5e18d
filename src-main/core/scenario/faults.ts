import type { Scenario } from '../../../src-shared/scenario/format';
import type { Dispatcher } from '../dispatch/dispatcher';
import type { DeliveryFaults } from '../dispatch/delivery-faults';

/** The dispatcher's fault abilities (dispatch/delivery-faults.ts), as the runner uses them. */
export type FaultsSeam = Pick<Dispatcher, 'setFaults' | 'faultStats'>;

/** mulberry32: a small seeded source for the faults' random choices. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The scenario's webhookDelivery as the dispatcher's faults; outages from the run's start (emulated epoch ms). */
export function faultsFor(s: Scenario, startMs: number, seed: number): DeliveryFaults | null {
  const w = s.webhookDelivery;
  if (!w) return null;
  return {
    ...(w.duplicates !== undefined ? { duplicates: w.duplicates } : {}),
    ...(w.reorder ? { reorder: { share: w.reorder.share, windowMs: w.reorder.window } } : {}),
    ...(w.delay ? { delay: { distribution: w.delay.distribution, ms: w.delay.ms, minMs: w.delay.min, maxMs: w.delay.max, meanMs: w.delay.mean } } : {}),
    ...(w.outages ? { outages: w.outages.map((o) => ({ fromMs: startMs + o.at, toMs: startMs + o.at + o.for })) } : {}),
    random: seeded(seed),
  };
}
