import type { ClockState } from '../../../src-shared/schemas/dispatch';
import { type EmulatorClock, isoTimestamp } from '../clock';
import type { DeliveryQueries } from '../dispatch/delivery-queries';
import type { DeliveryWorker } from '../dispatch/delivery-worker';
import { appError } from '../error-catalogue';
import type { Simulator } from './simulation/simulator';

/** A clock move waits this long at most (wall time) for the attempts it made due (docs/limits.md). */
export const CLOCK_SETTLE_WAIT_MS = 2_000;

export interface ClockServiceDeps {
  clock: EmulatorClock;
  deliveries: Pick<DeliveryQueries, 'nextDueAt' | 'pendingCount'>;
  worker: Pick<DeliveryWorker, 'idleBy' | 'inFlightCount' | 'wake'>;
  simulator: Pick<Simulator, 'runDue' | 'nextEvent'>;
  /**
   * How long a clock move waits, in wall time, for the webhook attempts it made due to be answered
   * and recorded. A receiver slower than this is left in flight, and the answer counts it.
   */
  settleWaitMs: number;
  /** How often the wait looks again (wall time). */
  pollMs?: number;
}

/**
 * The emulator clock as the control API moves it. A move settles before it answers: every simulated
 * event that fell due up to the new time is emitted, and every webhook delivery due by then (those
 * events' deliveries included) is attempted and its outcome recorded, so what a test or the UI reads
 * right after the move is what happened. Only an attempt whose receiver has not answered within
 * `settleWaitMs` is left in flight; the answer's `in_flight` says how many.
 */
export class ClockService {
  constructor(private readonly deps: ClockServiceDeps) {}

  state(): ClockState {
    const { clock, deliveries, worker, simulator } = this.deps;
    const s = clock.state();
    const due = deliveries.nextDueAt();
    const event = simulator.nextEvent();
    return {
      now: isoTimestamp(s.now),
      now_ms: s.now,
      speed: s.speed,
      offset_ms: s.offsetMs,
      next_due_at: due === null ? null : isoTimestamp(due),
      next_event_at: event ? isoTimestamp(event.due_at) : null,
      next_event: event ? { at: isoTimestamp(event.due_at), event: event.event, message_id: event.message_id, recipient: event.recipient_email } : null,
      pending_deliveries: deliveries.pendingCount(),
      in_flight: worker.inFlightCount(),
    };
  }

  /** Changes the speed, jumps ahead, or both; answers once the work that fell due is recorded. */
  async set(body: { speed?: number; advance_ms?: number }): Promise<ClockState> {
    const { clock } = this.deps;
    if (body.speed === undefined && body.advance_ms === undefined) throw appError('clockNeedsMove');
    if (body.speed !== undefined) clock.setSpeed(body.speed);
    if (body.advance_ms !== undefined && body.advance_ms > 0) clock.advance(body.advance_ms);
    await this.settle();
    return this.state();
  }

  /**
   * Emits the events due now at once, then waits until the deliveries due by the time that took
   * (theirs and any others) have been attempted and recorded, or `settleWaitMs` has passed.
   */
  private async settle(): Promise<void> {
    const { clock, worker, simulator, settleWaitMs, pollMs = 5 } = this.deps;
    simulator.runDue();
    const horizon = clock.now();
    worker.wake();
    const deadline = performance.now() + settleWaitMs;
    while (!worker.idleBy(horizon) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}
