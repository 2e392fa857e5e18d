import type { EmulatorClock } from '../clock';
import type { DeliveryQueries } from '../dispatch/delivery-queries';

/** Past the duration, retries are given up waiting for once nothing is due or answered for this long (wall time; an attempt takes at most 15 s). */
const FINISH_STALL_MS = 60_000;

/** What making the retries needs: the deliveries' counts, the clock and its moves. */
export interface RetriesDeps {
  deliveries: Pick<DeliveryQueries, 'count' | 'nextDueAt'>;
  clock: Pick<EmulatorClock, 'now'>;
  /** Moves the emulator clock as the control API does: answers once the work it made due is recorded. */
  clockControl: { set(body: { advance_ms: number }): Promise<unknown> };
}

/** An account's deliveries waiting for an attempt or in one. */
export function unsettledDeliveries(deliveries: RetriesDeps['deliveries'], accountId: string): number {
  return deliveries.count({ account_id: accountId, status: 'pending' }) + deliveries.count({ account_id: accountId, status: 'sending' });
}

/**
 * After `duration`, the retries of the run's deliveries are made at once: the clock moves to each
 * next attempt (as "Jump to the next attempt" does) until every delivery has succeeded or been given
 * up, so `acknowledgedAll` and `noGiveUps` judge the retries rather than where the duration fell
 * among them. The retry schedule is finite, so this ends; Stop (`stopped`) ends it sooner.
 */
export async function finishRetries(deps: RetriesDeps, accountId: string, run: { stopped: () => boolean; say: (line: string) => void }): Promise<void> {
  const { deliveries, clock, clockControl } = deps;
  const first = unsettledDeliveries(deliveries, accountId);
  if (first === 0) return;
  const many = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;
  run.say(`duration reached with ${many(first)} to retry: the clock moves to each next attempt`);
  const fromMs = clock.now();
  let last = first;
  let unchangedSince = performance.now();
  for (let left = first; !run.stopped() && left > 0; left = unsettledDeliveries(deliveries, accountId)) {
    if (left !== last) [last, unchangedSince] = [left, performance.now()];
    const due = deliveries.nextDueAt();
    const now = clock.now();
    if (due !== null && due > now) await clockControl.set({ advance_ms: due - now });
    else if (performance.now() - unchangedSince > FINISH_STALL_MS) {
      // Nothing due and nothing answered for far longer than an attempt may take: leave them pending.
      run.say(`${many(left)} neither due nor answered for ${FINISH_STALL_MS / 1000} s: the run ends with them pending`);
      return;
    }
    // Due now or in flight: the dispatcher is on it.
    else await new Promise((r) => setTimeout(r, 50));
  }
  run.say(`retries done, ${Math.round((clock.now() - fromMs) / 60_000)} min of emulated time after the duration`);
}
