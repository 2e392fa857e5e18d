import type { Logger } from 'pino';
import type { EmailEventKind } from '../../../../src-shared/events';
import { ClockAlarm, type Clock } from '../../clock';
import type { SimulationRepo } from '../../store/simulation.repo';
import { isStoreFull, STORE_FULL_RETRY_MS, type StoreSpace } from '../../store/store-space';
import type { UnitOfWork } from '../../store/unit-of-work';
import type { EmailEventsService } from '../events/email-events.service';

const BATCH = 500;

/**
 * Ticks are at least this far apart in wall time: under load, the events that fall due meanwhile are
 * emitted together in one transaction instead of one small transaction each. A lone event is emitted
 * at once (nothing ran in the last interval). Wall time: this is write batching, not scheduled work.
 */
const MIN_TICK_INTERVAL_MS = 10;

export interface SimulatorDeps {
  repo: SimulationRepo;
  /** Each batch's scheduled rows, log entries and deliveries commit together. */
  unitOfWork: UnitOfWork;
  clock: Clock;
  emailEvents: Pick<EmailEventsService, 'factsOf' | 'recordScheduled'>;
  logger: Logger;
  /** Told when a batch fails for a full disk, and when one commits again. */
  space: Pick<StoreSpace, 'failed' | 'wrote'>;
}

/**
 * Emits simulated events when their time comes on the emulator clock. Each batch is one transaction:
 * the scheduled rows go, the events enter the message log, and their deliveries enter the outbox, so
 * a crash either emits an event with its delivery or not at all.
 */
export class Simulator {
  private readonly alarm: ClockAlarm;
  /** Cancels the tick that is queued, if one is. */
  private queued: (() => void) | undefined;
  private running = false;
  /** Wall time (performance.now) of the last tick. */
  private lastTickAt = -Infinity;

  constructor(private readonly deps: SimulatorDeps) {
    this.alarm = new ClockAlarm(deps.clock, () => this.wake());
  }

  start(): void {
    this.running = true;
    this.tick();
  }

  stop(): void {
    this.running = false;
    this.alarm.clear();
    this.queued?.();
    this.queued = undefined;
  }

  /** New events were scheduled, or the clock changed: look again. */
  wake(): void {
    if (!this.running || this.queued) return;
    const wait = MIN_TICK_INTERVAL_MS - (performance.now() - this.lastTickAt);
    if (wait > 0) {
      const timer = setTimeout(() => this.tick(), wait);
      this.queued = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => this.tick());
      this.queued = () => clearImmediate(immediate);
    }
  }

  /** When the next simulated event is due, if any is scheduled. */
  nextDueAt(): number | null {
    return this.deps.repo.nextDue();
  }

  /** Emits every event due now, before returning (a clock move waits for them). */
  runDue(): void {
    if (!this.running) return;
    this.queued?.();
    this.queued = undefined;
    while (this.emitDue());
    this.armAlarm();
  }

  private tick(): void {
    this.queued = undefined;
    if (!this.running) return;
    let full: boolean;
    try {
      full = this.emitDue();
      this.deps.space.wrote();
    } catch (err) {
      // Rolled back: the events stay scheduled, and are emitted once a batch commits.
      if (!this.deps.space.failed(err)) this.deps.logger.error({ err }, 'simulated events could not be emitted; trying again in a second');
      const timer = setTimeout(() => this.tick(), STORE_FULL_RETRY_MS);
      this.queued = () => clearTimeout(timer);
      return;
    }
    if (full) {
      this.wake();
      return;
    }
    this.armAlarm();
  }

  /**
   * Waits for the earliest scheduled event. Everything due when the last batch was read is gone, so
   * one that fell due since (between that read and this one) rings the alarm at once: none is skipped.
   */
  private armAlarm(): void {
    this.alarm.set(this.deps.repo.nextDue());
  }

  /** Emits one batch of the events due now; true when the batch was full (more may be due). */
  private emitDue(): boolean {
    this.lastTickAt = performance.now();
    const { repo, unitOfWork, clock, emailEvents } = this.deps;
    const now = clock.now();
    const due = repo.due(now, BATCH);
    // The batch's copies, read at once; an event about a copy deleted since it was scheduled just goes.
    const copies = emailEvents.factsOf(due.map((row) => row.message_id));
    unitOfWork.run(() => {
      for (const row of due) {
        repo.remove(row.id);
        const message = copies.get(row.message_id);
        if (!message) continue;
        try {
          emailEvents.recordScheduled(message, row.event as EmailEventKind, JSON.parse(row.fields) as Record<string, unknown>, row.due_at);
        } catch (err) {
          // A full disk fails the batch (it is tried again whole). Otherwise, a rule whose fields no
          // longer fit the payload, say: drop the event, keep the rest.
          if (isStoreFull(err)) throw err;
          this.deps.logger.warn({ err, messageId: row.message_id, event: row.event }, 'simulated event could not be built; skipped');
        }
      }
    });
    return due.length === BATCH;
  }
}
