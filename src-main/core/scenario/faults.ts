import type { Scenario } from '../../../src-shared/scenario/format';
import type { DeliveryFaults, DeliveryFaultsRegistry } from '../dispatch/delivery-faults';
import { copyDraw } from './plan';

/** The delivery faults (dispatch/delivery-faults.ts), as the runner uses them. */
export type FaultsSeam = Pick<DeliveryFaultsRegistry, 'set' | 'stats'>;

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

/** The copy (copyKey) a delivery is about, from its send's ref_id and its recipient when the body names one; undefined for none of the run's. */
export type CopyOf = (refId: string | null, recipient: string | undefined) => string | undefined;

/**
 * The faults' draws for a seed: each delivery of a copy of the run's draws by what a rerun repeats
 * (the copy's address and number, the event's kind, what is decided, and which such draw it is), so
 * the same seed duplicates, delays and reorders the same events in every run, whatever order the
 * clock fires them in. Anything else draws from the seed's sequence.
 */
function keyedDraws(seed: number, copyOf: CopyOf): NonNullable<DeliveryFaults['random']> {
  const sequence = seeded(seed);
  const drawn = new Map<string, number>();
  return (input, purpose) => {
    const recipient = (input?.payload as { recipient?: { email?: unknown } } | null)?.recipient?.email;
    const copy = input ? copyOf(input.refId, typeof recipient === 'string' ? recipient : undefined) : undefined;
    if (copy === undefined) return sequence();
    // A copy may get an event of one kind more than once (soft bounces): each draws anew.
    const key = `${input.event}/${purpose}`;
    const n = (drawn.get(`${copy}/${key}`) ?? 0) + 1;
    drawn.set(`${copy}/${key}`, n);
    return copyDraw(copy, `${key}/${n}`, seed);
  };
}

/** The scenario's webhookDelivery as the dispatcher's faults; outages from the run's start (emulated epoch ms). */
export function faultsFor(s: Scenario, startMs: number, seed: number, copyOf: CopyOf = () => undefined): DeliveryFaults | null {
  const w = s.webhookDelivery;
  if (!w) return null;
  return {
    ...(w.duplicates !== undefined ? { duplicates: w.duplicates } : {}),
    ...(w.reorder ? { reorder: { share: w.reorder.share, windowMs: w.reorder.window } } : {}),
    ...(w.delay ? { delay: { distribution: w.delay.distribution, ms: w.delay.ms, minMs: w.delay.min, maxMs: w.delay.max, meanMs: w.delay.mean } } : {}),
    ...(w.outages ? { outages: w.outages.map((o) => ({ fromMs: startMs + o.at, toMs: startMs + o.at + o.for })) } : {}),
    random: keyedDraws(seed, copyOf),
  };
}
