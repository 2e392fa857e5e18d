import { ClockAlarm, isoTimestamp } from '../clock';
import { appError } from '../error-catalogue';
import type { DeliveryRow } from '../store/deliveries.repo';
import { STORE_FULL_RETRY_MS } from '../store/store-space';
import type { HttpAttemptRequest, HttpAttemptResult } from './attempt';
import {
  type AttemptOutcome,
  attemptRow,
  cancelledWithoutAttempt,
  INTERRUPTED,
  nextState,
  type RetryRules,
  type Trigger,
  updateAfterAttempt,
} from './attempt-outcome';
import { type DeliveryFaultsRegistry, OUTAGE_REFUSAL } from './delivery-faults';
import type { DeliveryOutbox, OutboxListener } from './delivery-outbox';
import { toAttemptRecord, toDeliverySummary } from './delivery-records';
import { type DeliveryTarget, targetKey } from './delivery-targets';
import { isoTimestampCache } from './iso-timestamps';
import { AttemptsOnWire } from './on-wire';
import { TargetCache } from './target-cache';
import { TargetSlots } from './target-slots';
import type { WorkerDeps, WorkerOptions } from './worker-deps';

/** An attempt's outcome waiting for the next commit. */
interface Completion extends AttemptOutcome {
  row: DeliveryRow;
  committed: () => void;
}

/**
 * How long a tick may wait to gather more finished attempts into one commit, when nothing needs it
 * sooner (the claimed-ahead deliveries keep every slot busy meanwhile). Wall time: this is I/O
 * batching, not scheduled work.
 */
const BATCH_WINDOW_MS = 2;

/**
 * The dispatcher's worker loop. Work happens in ticks: one transaction records the outcomes of
 * finished attempts and claims due deliveries from the outbox, up to each target's slots plus one
 * round ahead; after the commit they are sent with undici, and a slot that frees is refilled at once
 * from the claimed-ahead ones. One commit per tick, however many attempts it covers (group commit).
 * A failed attempt is retried on the schedule of retry-policy.ts; waiting is done on the emulator
 * clock, never on wall time. At start, attempts a previous process left in flight count as failed.
 */
export class DeliveryWorker implements OutboxListener {
  /** Attempts on the wire, in their targets' slots. */
  private readonly slots: TargetSlots;
  private completions: Completion[] = [];
  /** Claimed (committed as `sending`) and waiting for a free slot: refills a slot the moment it frees. */
  private ready: DeliveryRow[] = [];
  /** Deliveries to cancel in the next commit (their target is gone). */
  private cancellations: DeliveryRow[] = [];
  /** Attempts on the wire by the webhook-id their requests carry (catchers ask which delivery sent one). */
  private readonly onWire = new AttemptsOnWire();
  /** Where each delivery goes (dropped when the target changes: `forgetTarget`). */
  private readonly targetCache: TargetCache;
  /** Set when a tick claimed a full batch: another tick follows at once. */
  private batchFull = false;
  private readonly isoAt = isoTimestampCache();
  /** Wakes the worker on the emulator clock when the next delivery becomes due. */
  private readonly alarm: ClockAlarm;
  private tickSoon: ReturnType<typeof setImmediate> | undefined;
  private tickLater: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  /** Set once `stop` has finished: nothing may touch the store any more. */
  private stopped = false;
  private readonly retry: RetryRules;

  constructor(
    private readonly deps: WorkerDeps,
    private readonly options: WorkerOptions,
    private readonly outbox: DeliveryOutbox,
    private readonly faults?: DeliveryFaultsRegistry,
  ) {
    // The outbox tells the worker of what it enqueues, inserts and claims (OutboxListener).
    outbox.listen(this);
    this.alarm = new ClockAlarm(deps.clock, () => {
      // Scheduled retries are due now: the store has due deliveries that are not new.
      this.wake();
    });
    this.slots = new TargetSlots(options, deps.clock, deps.signingSecrets);
    this.targetCache = new TargetCache(deps.targets);
    this.retry = { schedule: options.retrySchedule, clock: deps.clock, targetGone: (row) => !this.resolve(row) };
  }

  /** Treats attempts a previous process left in flight as failed, then starts sending what is due. */
  start(): void {
    this.recoverInterrupted();
    this.running = true;
    this.tick();
  }

  /**
   * Stops taking due work; attempts in flight get `graceMs`, then are aborted and recorded as
   * interrupted (so they are retried on the next start).
   */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.alarm.clear();
    // Claimed ahead but never sent: back to pending, so no attempt is recorded for them.
    const unsent = this.ready.splice(0).map((r) => r.id);
    if (unsent.length > 0) {
      try {
        this.outbox.release(unsent);
      } catch (err) {
        // A full disk: they stay `sending`, and the next start counts them as interrupted (retried).
        this.deps.logger.warn({ err, count: unsent.length }, 'claimed deliveries could not be released; the next start retries them');
      }
    }
    this.outbox.forgetNewUnclaimed();
    // Attempts in flight end or are cut short (recorded as interrupted, retried on the next start).
    await this.slots.drain(graceMs);
    this.tick();
    this.stopped = true;
    // Nothing may touch the store any more, not even a retry of a commit that failed just now.
    clearImmediate(this.tickSoon);
    clearTimeout(this.tickLater);
    this.tickSoon = undefined;
    this.tickLater = undefined;
  }

  /** New deliveries the outbox claimed as it inserted them: sent at once. */
  claimed(rows: DeliveryRow[]): void {
    this.ready.push(...rows);
    this.launchReady();
  }

  /** A delivery was enqueued: a tick soon if its target has a free slot, else within the batch window. */
  enqueued(row: DeliveryRow): void {
    this.queueTick(this.slots.hasFree(row));
  }

  /** The outbox's insert could not commit: tried again by a tick. */
  insertFailed(err: unknown): void {
    this.failed(err);
  }

  /** Re-reads what is due (after the clock jumped, for example). */
  wake(): void {
    this.outbox.forgetNewUnclaimed();
    this.queueTick(true);
  }

  /** A target's URL, method or headers changed, or it is gone: the next attempts read it afresh. */
  forgetTarget(kind: string, id: string): void {
    this.targetCache.forget(kind, id);
  }

  /** Attempts on the wire right now. */
  inFlightCount(): number {
    return this.slots.inFlightCount;
  }

  /**
   * The delivery and attempt number of an attempt on the wire now whose request carries `webhookId`,
   * each attempt said once (a duplicate and its original may both be on the wire with one webhook-id).
   */
  attemptOnWire(webhookId: string): { deliveryId: string; attempt: number } | undefined {
    return this.onWire.tell(webhookId);
  }

  /**
   * Whether every delivery due by `horizon` has been attempted and its outcome committed: nothing
   * enqueued, claimed, on the wire or waiting for its commit, and no pending one due by then.
   */
  idleBy(horizon: number): boolean {
    if (this.outbox.enqueuedCount > 0 || this.completions.length > 0 || this.cancellations.length > 0) return false;
    if (this.ready.length > 0 || this.slots.inFlightCount > 0) return false;
    const next = this.deps.repo.nextDueAt();
    return next === null || next > horizon;
  }

  /** Sends a delivery now, whatever its status (a manual attempt); resolves once its outcome is committed. */
  attemptNow(row: DeliveryRow): Promise<void> {
    if (!this.running) throw appError('dispatcherStopping');
    const target = this.resolve(row);
    if (!target) throw appError('deliveryTargetGone');
    if (!this.deps.repo.claimForManual(row.id, isoTimestamp(this.deps.clock.now()))) throw appError('deliveryInFlight');
    return this.launch({ ...row, status: 'sending' }, target, 'manual', row.status);
  }

  /**
   * The request an attempt of `row` would send now, signed at this moment (a fresh timestamp), with
   * nothing sent or recorded: what "Copy as curl" gives.
   */
  requestNow(row: DeliveryRow): HttpAttemptRequest {
    const target = this.resolve(row);
    if (!target) throw appError('deliveryTargetGone');
    return this.slots.requestFor(row, target);
  }

  /** Whether the delivery's target still exists (a resend needs one). */
  hasTarget(row: DeliveryRow): boolean {
    return this.resolve(row) !== undefined;
  }

  /** False once `stop` began: no manual attempt starts any more. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Slots per target: what a bulk of manual attempts to one target uses at most at once. */
  get perTargetConcurrency(): number {
    return this.options.perTargetConcurrency;
  }

  /** Deliveries claimed per target: on the wire, and waiting for a slot. */
  private readonly claimCounts = (): Map<string, number> => {
    const counts = this.slots.usedPerTarget();
    for (const row of this.ready) counts.set(targetKey(row), (counts.get(targetKey(row)) ?? 0) + 1);
    return counts;
  };

  /** What the outbox may claim as it inserts: only while the worker runs. */
  claimedPerTarget(): Map<string, number> | undefined {
    return this.running ? this.claimCounts() : undefined;
  }

  /** Asks for a tick: on the next turn of the event loop when `urgent`, else within the batch window. */
  private queueTick(urgent: boolean): void {
    if (this.stopped) return;
    if (urgent) this.tickSoon ??= setImmediate(() => this.tick());
    else if (this.tickSoon === undefined) this.tickLater ??= setTimeout(() => this.tick(), BATCH_WINDOW_MS);
  }

  /**
   * One commit: the outcomes of finished attempts, cancellations, and claims of due deliveries. The
   * claimed ones are sent only after the commit, so a crash never loses track of one.
   */
  private tick(): void {
    clearImmediate(this.tickSoon);
    clearTimeout(this.tickLater);
    this.tickSoon = undefined;
    this.tickLater = undefined;
    try {
      this.commitAndClaim();
      this.deps.space.wrote();
    } catch (err) {
      this.failed(err);
    }
  }

  /**
   * A write that could not commit (a full disk, most likely): nothing of it is in the store, and what it
   * held is kept in memory. Tried again by a tick after STORE_FULL_RETRY_MS.
   */
  private failed(err: unknown): void {
    if (!this.deps.space.failed(err)) this.deps.logger.error({ err }, 'the dispatcher could not commit; trying again in a second');
    if (this.stopped) return;
    clearTimeout(this.tickLater);
    this.tickLater = setTimeout(() => this.tick(), STORE_FULL_RETRY_MS);
  }

  private commitAndClaim(): void {
    this.outbox.flush();
    const completed = this.completions;
    this.completions = [];
    const cancelled = this.cancellations;
    this.cancellations = [];
    const claimedBefore = this.ready.length;
    const { live } = this.deps;
    try {
      this.commit(completed, cancelled);
    } catch (err) {
      // Rolled back whole: the outcomes and cancellations wait for the next commit, and what it claimed is pending again.
      this.completions = completed.concat(this.completions);
      this.cancellations = cancelled.concat(this.cancellations);
      this.ready.length = claimedBefore;
      this.outbox.forgetNewUnclaimed();
      throw err;
    }
    for (const c of completed) {
      if (live.hasListeners('attempt.completed')) live.emit('attempt.completed', { delivery_id: c.row.id, attempt: toAttemptRecord(c.attempt, c.row.payload) });
      if (live.hasListeners('delivery.updated')) live.emit('delivery.updated', toDeliverySummary({ ...c.row, ...c.update }));
      c.committed();
    }
    this.launchReady();
    if (this.running) this.armAlarm();
    // A full batch was claimed: more may be due.
    if (this.batchFull) {
      this.batchFull = false;
      this.queueTick(true);
    }
  }

  private commit(completed: Completion[], cancelled: DeliveryRow[]): void {
    const { repo, live } = this.deps;
    repo.transaction(() => {
      for (const c of completed) {
        repo.writeAttempt(c.attempt, c.update);
        if (c.update.status === 'pending' && c.update.next_attempt_at !== null) this.outbox.scheduled(c.update.next_attempt_at);
      }
      for (const row of cancelled) {
        const update = cancelledWithoutAttempt(row, isoTimestamp(this.deps.clock.now()));
        repo.completeUpdate(update);
        if (live.hasListeners('delivery.updated')) live.emit('delivery.updated', toDeliverySummary({ ...row, ...update }));
      }
      if (this.running && this.outbox.claimDue(this.claimCounts(), this.ready)) this.batchFull = true;
    });
  }

  /** Sends claimed deliveries while their targets have free slots (there is no slot shared between targets). */
  private launchReady(): void {
    for (let i = 0; i < this.ready.length; ) {
      const row = this.ready[i]!;
      if (!this.slots.hasFree(row)) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      const target = this.resolve(row);
      if (target) void this.launch(row, target, 'scheduled', 'pending');
      else {
        this.cancellations.push(row);
        this.queueTick(false);
      }
    }
  }

  /**
   * Waits on the emulator clock for the next delivery that is not new to fall due (the outbox reads
   * it at the same time as it claims, and lowers it as retries are committed, so none falls between).
   * Deliveries already due but not claimed are waiting for a target's slot: a finishing attempt
   * wakes the worker for them.
   */
  private armAlarm(): void {
    this.alarm.set(this.outbox.nextScheduledAt);
  }

  /** Sends one attempt of a claimed delivery; resolves once its outcome is committed. */
  private launch(row: DeliveryRow, target: DeliveryTarget, trigger: Trigger, previousStatus: DeliveryRow['status']): Promise<void> {
    // On the wire from now: the UI shows the attempt in flight at once.
    const { live } = this.deps;
    if (live.hasListeners('delivery.updated')) live.emit('delivery.updated', toDeliverySummary({ ...row, status: 'sending' }));
    if (this.faults?.active && this.faults.refuses(row.account_id)) {
      // A scenario's outage: failed without connecting, retried on the normal schedule.
      const request = { method: target.method, url: target.url, headers: {}, body: row.payload };
      return this.record(row, trigger, previousStatus, request, isoTimestamp(this.deps.clock.now()), OUTAGE_REFUSAL);
    }
    const offWire = this.onWire.add(row.webhook_id ?? row.id, row.id, row.attempts + 1);
    return this.slots.send(row, target, (request, startedAt, result) => {
      offWire();
      // The slot is free: refill it at once from the claimed-ahead deliveries.
      this.launchReady();
      return this.record(row, trigger, previousStatus, request, startedAt, result);
    });
  }

  /** Queues an attempt's outcome and the delivery's next state for the next commit. */
  private record(
    row: DeliveryRow,
    trigger: Trigger,
    previousStatus: DeliveryRow['status'],
    request: HttpAttemptRequest,
    startedAt: string,
    result: HttpAttemptResult,
  ): Promise<void> {
    const attempt = attemptRow(row, trigger, request, startedAt, result);
    const next = nextState(row, trigger, previousStatus, result.succeeded, this.retry);
    const update = updateAfterAttempt(row, request, result, next, this.isoAt(this.deps.clock.now()));
    return new Promise((committed) => {
      this.completions.push({ row, attempt, update, committed });
      // Soon when slots may starve or someone waits for this outcome; otherwise batch it.
      const urgent = !this.running || trigger === 'manual' || this.ready.length < this.options.claimBatch / 4;
      this.queueTick(urgent);
    });
  }

  /**
   * At start: a delivery still `sending` belonged to a process that stopped mid-attempt (a crash or
   * kill -9). Its outcome is unknown, so the attempt counts as failed and the schedule goes on
   * (at-least-once delivery: the receiver may get its webhook-id twice).
   */
  private recoverInterrupted(): void {
    const rows = this.deps.repo.interrupted();
    for (const row of rows) {
      const target = this.resolve(row);
      const request = { method: target?.method ?? 'POST', url: target?.url ?? row.target_url, headers: {}, body: row.payload };
      void this.record(row, 'recovered', 'sending', request, isoTimestamp(this.deps.clock.now()), INTERRUPTED);
    }
    if (rows.length > 0) this.deps.logger.warn({ count: rows.length }, 'attempts interrupted by the last stop were counted as failed');
  }

  /** Where a delivery goes now; undefined once it is gone. */
  private resolve(row: DeliveryRow): DeliveryTarget | undefined {
    return this.targetCache.resolve(row);
  }
}
