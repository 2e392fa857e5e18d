import type { Logger } from 'pino';
import type { EmailEventKind } from '../../../../src-shared/events';
import { type Clock, ClockAlarm } from '../../clock';
import type { NextScheduledEvent, ScheduledEventRow, SimulationRepo } from '../../store/simulation.repo';
import { isStoreFull, STORE_FULL_RETRY_MS, type StoreSpace } from '../../store/store-space';
import type { UnitOfWork } from '../../store/unit-of-work';
import type { EmailEventsService } from '../events/email-events.service';
import type { CopyState, MessageFacts } from '../events/message-log';

const BATCH = 500;

/**
 * Ticks are at least this far apart in wall time: under load, the events that fall due meanwhile are
 * emitted together in one transaction instead of one small transaction each. A lone event is emitted
 * at once (nothing ran in the last interval). Wall time: this is write batching, not scheduled work.
 * A commit rewrites every page its rows touch (the copies' rows, two status indexes, the event log,
 * the schedule), whatever their number: at about 1,000 deliveries a second, 10 ms gave batches of
 * about 8; 50 ms gives about 50, and took a third or more off the simulator's time in profiles of
 * the smtp benchmark. An event is emitted at most 50 ms after it fell due, its due time its timestamp.
 */
const MIN_TICK_INTERVAL_MS = 50;

export interface SimulatorDeps {
  repo: SimulationRepo;
  /** Each batch's scheduled rows, log entries and deliveries commit together. */
  unitOfWork: UnitOfWork;
  clock: Clock;
  emailEvents: Pick<EmailEventsService, 'statesOf' | 'factsOf' | 'isUntoldDelivery' | 'recordUntoldDeliveries' | 'recordScheduled'>;
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

  /** The next simulated event (kind, copy, recipient), if any is scheduled. */
  nextEvent(): NextScheduledEvent | undefined {
    return this.deps.repo.nextEvent();
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
    const due = repo.due(clock.now(), BATCH);
    // Each stored send wakes the simulator, a second before its events fall due: nothing to write yet.
    if (due.length === 0) return false;
    // What a delivery needs of the batch's copies, read at once; an event about a copy deleted since it was scheduled just goes.
    const { together, alone } = this.sort(due, emailEvents.statesOf(due.map((row) => row.message_id)));
    unitOfWork.run(() => {
      repo.removeMany(due.map((row) => row.id));
      const rest = this.recordTogether(together) ? alone : [...together, ...alone];
      // Their payloads carry the rest of their copies' facts: read at once, one object a copy, which
      // follows its status from one of its events to the next.
      const facts = emailEvents.factsOf(rest.map((event) => event.copy.messageId));
      for (const event of rest) this.recordAlone(event, facts.get(event.copy.messageId));
    });
    return due.length === BATCH;
  }

  /**
   * The batch's events about copies that still exist, their fields read: the untold deliveries (see
   * EmailEventsService.isUntoldDelivery) of copies with no other event in the batch, to be recorded
   * together, and the rest, one at a time in the batch's order (so a copy's events keep theirs).
   */
  private sort(due: readonly ScheduledEventRow[], copies: ReadonlyMap<string, CopyState>): { together: DueEvent[]; alone: DueEvent[] } {
    const eventsOf = new Map<string, number>();
    for (const row of due) eventsOf.set(row.message_id, (eventsOf.get(row.message_id) ?? 0) + 1);
    const together: DueEvent[] = [];
    const alone: DueEvent[] = [];
    for (const row of due) {
      const copy = copies.get(row.message_id);
      if (!copy) continue;
      let fields: Record<string, unknown>;
      try {
        fields = JSON.parse(row.fields) as Record<string, unknown>;
      } catch (err) {
        this.skipped(err, row);
        continue;
      }
      const event: DueEvent = { copy, kind: row.event as EmailEventKind, fields, at: row.due_at, row };
      const untold = eventsOf.get(row.message_id) === 1 && this.deps.emailEvents.isUntoldDelivery(copy, event.kind, fields);
      (untold ? together : alone).push(event);
    }
    return { together, alone };
  }

  /**
   * The untold deliveries in one go. False when the store refused any of their writes (written all or
   * none): each is then recorded alone, and a refused entry costs only its own event.
   */
  private recordTogether(events: readonly DueEvent[]): boolean {
    try {
      this.deps.emailEvents.recordUntoldDeliveries(events.map(({ copy, at }) => ({ message: copy, at })));
      return true;
    } catch (err) {
      if (isStoreFull(err)) throw err;
      return false;
    }
  }

  private recordAlone(event: DueEvent, message: MessageFacts | undefined): void {
    if (!message) return;
    try {
      this.deps.emailEvents.recordScheduled(message, event.kind, event.fields, event.at);
    } catch (err) {
      // A full disk fails the batch (it is tried again whole). Otherwise, a rule whose fields no
      // longer fit the payload, say: drop the event, keep the rest.
      if (isStoreFull(err)) throw err;
      this.skipped(err, event.row);
    }
  }

  private skipped(err: unknown, row: ScheduledEventRow): void {
    this.deps.logger.warn({ err, messageId: row.message_id, event: row.event }, 'simulated event could not be built; skipped');
  }
}

/** A scheduled event of the batch being emitted, about a copy that still exists. */
interface DueEvent {
  copy: CopyState;
  kind: EmailEventKind;
  fields: Record<string, unknown>;
  at: number;
  row: ScheduledEventRow;
}
