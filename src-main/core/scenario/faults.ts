import type { Scenario } from '../../../src-shared/scenario/format';

/**
 * The dispatcher's fault abilities (scen-faults: src-main/core/dispatch/delivery-faults.ts), as the
 * runner needs them: a structural copy of the contract, so the runner works (without faults) on a
 * dispatcher that does not have them yet.
 */
export interface DeliveryFaultsLike {
  duplicates?: number;
  reorder?: { share: number; windowMs: number };
  delay?: { distribution: 'fixed' | 'uniform' | 'exponential'; ms?: number; minMs?: number; maxMs?: number; meanMs?: number };
  outages?: Array<{ fromMs: number; toMs: number }>;
  random?: () => number;
}
export interface FaultsSeam {
  setFaults(accountId: string, faults: DeliveryFaultsLike | null): void;
  faultStats(accountId: string): { duplicates: number; reordered: number; delayed: number; outageRefusals: number };
}

/** The dispatcher when it has the fault abilities, else undefined. */
export function faultsOf(dispatcher: object): FaultsSeam | undefined {
  const d = dispatcher as Partial<FaultsSeam>;
  return typeof d.setFaults === 'function' && typeof d.faultStats === 'function' ? (d as FaultsSeam) : undefined;
}

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
export function faultsFor(s: Scenario, startMs: number, seed: number): DeliveryFaultsLike | null {
  const w = s.webhookDelivery;
  if (!w) return null;
  return {
    ...(w.duplicates !== undefined ? { duplicates: w.duplicates } : {}),
    ...(w.reorder ? { reorder: { share: w.reorder.share, windowMs: w.reorder.window } } : {}),
    ...(w.delay
      ? { delay: { distribution: w.delay.distribution, ms: w.delay.ms, minMs: w.delay.min, maxMs: w.delay.max, meanMs: w.delay.mean } }
      : {}),
    ...(w.outages ? { outages: w.outages.map((o) => ({ fromMs: startMs + o.at, toMs: startMs + o.at + o.for })) } : {}),
    random: seeded(seed),
  };
}
