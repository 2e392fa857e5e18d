import type { Logger } from 'pino';
import { Agent } from 'undici';
import type { AttemptRecord, DeliveryDetail, DeliverySummary } from '../../../src-shared/schemas/dispatch';
import { ClockAlarm, isoTimestamp, type Clock } from '../clock';
import type { LiveBus } from '../live-bus';
import { AppError } from '../errors';
import { monotonicUlids } from '../ids';
import type { AttemptRow, DeliveriesRepo, DeliveryFilter, DeliveryRow, DeliveryUpdate } from '../store/deliveries.repo';
import { FreshQueue } from './fresh-queue';
import { sendAttempt, type HttpAttemptResult } from './attempt';
import { strictConnector, type CheckedResolve } from './strict-connector';
import { toAttemptRecord, toDeliveryDetail, toDeliverySummary } from './delivery-records';
import type { DeliveryTarget, DeliveryTargets } from './delivery-targets';
import { nextRetryDelay } from './retry-policy';
import { signWebhook } from './sign';

export type { DeliveryTarget, DeliveryTargetSource } from './delivery-targets';

export interface DispatcherOptions {
  retrySchedule: readonly number[];
  /**
   * Requests in flight to one target at most: the only cap on attempts in flight. There is no shared
   * pool of slots, so targets whose receivers hang (each holding its own slots until `timeoutMs`)
   * never delay another target's attempts, however many hang.
   */
  perTargetConcurrency: number;
  /**
   * Deliveries one commit claims at most (bounds the work of a tick; a full batch is followed by
   * another tick at once). Not a cap on attempts in flight.
   */
  claimBatch: number;
  timeoutMs: number;
  /** How much of a response body is kept. */
  responseBodyLimit: number;
  /** Verify receivers' TLS certificates (strict mode); off by default for self-signed local receivers. */
  verifyTls: boolean;
  /**
   * Strict mode: the addresses a receiver's host may be connected to, checked at every connection
   * (a refusal fails the attempt before any connection). Absent: connect to whatever the host is.
   */
  resolve?: CheckedResolve;
  userAgent: string;
}

export interface DispatcherDeps {
  repo: DeliveriesRepo;
  clock: Clock;
  live: LiveBus;
  logger: Logger;
  /** Where each delivery goes, asked at each attempt (cached until `targetChanged`). */
  targets: Pick<DeliveryTargets, 'resolve'>;
  /** The account's Standard Webhooks secret, if it signs. */
  signingSecret: (accountId: string) => string | null;
}

export interface EnqueueInput {
  accountId: string;
  target: { kind: string; id: string; url: string };
  category: string;
  event: string;
  refId: string | null;
  payload: unknown;
}

type Trigger = AttemptRow['trigger'];

interface InFlight {
  /** Resolves once the attempt's outcome is committed. */
  done: Promise<void>;
}

/** An attempt's outcome waiting for the next commit. */
interface Completion {
  row: DeliveryRow;
  attempt: AttemptRow;
  update: DeliveryUpdate;
  committed: () => void;
}

/**
 * How long a tick may wait to gather more finished attempts into one commit, when nothing needs it
 * sooner (the claimed-ahead deliveries keep every slot busy meanwhile). Wall time: this is I/O
 * batching, not scheduled work.
 */
const BATCH_WINDOW_MS = 2;

/**
 * Fresh deliveries (see `Dispatcher.fresh`) held at most (about 64 bytes each). Beyond it, claims
 * go back to querying the store until it has no due delivery left.
 */
const FRESH_LIMIT = 50_000;

const targetKey = (row: Pick<DeliveryRow, 'target_kind' | 'target_id'>) => `${row.target_kind}:${row.target_id}`;

/**
 * The durable webhook dispatcher. Every request is a `deliveries` row before its first attempt.
 * Work happens in ticks: one transaction records the outcomes of finished attempts and claims due
 * deliveries (`sending`), up to each target's slots plus one round ahead; after the commit they are
 * sent with undici, and a slot that frees is refilled at once from the claimed-ahead ones. One commit
 * per tick, however many attempts it covers (group commit). Waiting is done on the emulator clock,
 * never on wall time.
 *
 * Targets are isolated: each has its own slots (`perTargetConcurrency`) and nothing is shared
 * between them, so a receiver that never answers holds only its own slots, each until the attempt's
 * time-out, and never delays another target's deliveries, however many hang at once. What that
 * costs is bounded per target: at most `perTargetConcurrency` sockets and twice that many claimed
 * rows in memory for each target with due deliveries.
 */
export class Dispatcher {
  private readonly agent: Agent;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly perTarget = new Map<string, number>();
  private completions: Completion[] = [];
  /** Claimed (committed as `sending`) and waiting for a free slot: refills a slot the moment it frees. */
  private ready: DeliveryRow[] = [];
  /** Deliveries to cancel in the next commit (their target is gone). */
  private cancellations: DeliveryRow[] = [];
  /** Targets by `kind:id`, read once and dropped when the target changes (`targetChanged`). */
  private readonly targets = new Map<string, DeliveryTarget | null>();
  /** New deliveries of the current synchronous run, inserted together in a microtask. */
  private enqueued: DeliveryRow[] = [];
  /**
   * Deliveries this process inserted, due at once and not claimed yet, per target in creation order,
   * as ids (the claim reads the rest back). While `freshComplete`, these are all the due
   * pending deliveries in the store, so a claim is an update by id: no query for due rows, no row
   * read back. Anything that may add a due delivery behind its back (a clock jump, the alarm for a
   * scheduled retry, a release, an immediate retry, too many fresh ones) drops it, and claims query
   * the store until a query finds no more due deliveries.
   */
  private readonly fresh = new Map<string, FreshQueue>();
  private freshCount = 0;
  private freshComplete = false;
  /** Set when a tick claimed a full batch: another tick follows at once. */
  private batchFull = false;
  /** Parsed target URLs, for the attempts. */
  private readonly urls = new Map<string, URL>();
  /**
   * Set when the earliest scheduled attempt after now may have changed (a retry was scheduled, the
   * clock moved, the alarm rang): the next tick asks the store again. Otherwise the alarm stands.
   */
  private scheduleChanged = true;
  /** The last timestamp made, by its millisecond (many rows of one tick share one). */
  private stampMs = -1;
  private stampIso = '';
  /** Wakes the dispatcher on the emulator clock when the next delivery becomes due. */
  private readonly alarm: ClockAlarm;
  private tickSoon: ReturnType<typeof setImmediate> | undefined;
  private tickLater: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  /** Set while attempts still on the wire are being cut short at the end of `stop`. */
  private aborting = false;
  /** Set once `stop` has finished: nothing may touch the store any more. */
  private stopped = false;
  /** Delivery ids: ULIDs in creation order even within one millisecond (the list pages by id). */
  private readonly newId = monotonicUlids();

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {
    this.alarm = new ClockAlarm(deps.clock, () => {
      // Scheduled retries are due now: the store has due deliveries that are not fresh.
      this.dropFresh();
      this.scheduleChanged = true;
      this.queueTick(true);
    });
    const connect = { rejectUnauthorized: options.verifyTls, timeout: options.timeoutMs };
    this.agent = new Agent({
      keepAliveTimeout: 4_000,
      // No per-origin cap in undici: the per-target slots are the only limit, so a target's
      // attempts never queue behind another target's at the same origin.
      connections: null,
      connect: options.resolve ? strictConnector(connect, options.resolve) : connect,
    });
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
    if (unsent.length > 0) this.deps.repo.transaction(() => this.deps.repo.release(unsent, isoTimestamp(this.deps.clock.now())));
    this.dropFresh();
    const pending = [...this.inFlight.values()];
    if (pending.length > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([Promise.allSettled(pending.map((f) => f.done)), graceOver]);
      clearTimeout(timer);
    }
    // Aborts what is still on the wire; those attempts are recorded as interrupted.
    this.aborting = true;
    const left = [...this.inFlight.values()].map((f) => f.done);
    await this.agent.destroy();
    await Promise.allSettled(left);
    this.tick();
    this.stopped = true;
  }

  /** Persists a new delivery, due now, and wakes the dispatcher. Returns its id. */
  enqueue(input: EnqueueInput): string {
    const now = this.deps.clock.now();
    const iso = this.stamp(now);
    const row: DeliveryRow = {
      id: this.newId(now),
      account_id: input.accountId,
      target_kind: input.target.kind,
      target_id: input.target.id,
      category: input.category,
      event: input.event,
      ref_id: input.refId,
      payload: JSON.stringify(input.payload),
      target_url: input.target.url,
      status: 'pending',
      attempts: 0,
      scheduled_attempts: 0,
      next_attempt_at: now,
      last_status_code: null,
      last_error: null,
      created_ms: now,
      created_at: iso,
      updated_at: iso,
    };
    // Inserted at the end of the current synchronous run, in one transaction with the others of
    // that run: before any reply of the caller's goes out, and before the first attempt.
    if (this.enqueued.push(row) === 1) queueMicrotask(() => this.flushEnqueued());
    if (this.deps.live.hasListeners('delivery.created')) this.deps.live.emit('delivery.created', toDeliverySummary(row));
    this.queueTick((this.perTarget.get(targetKey(row)) ?? 0) < this.options.perTargetConcurrency);
    return row.id;
  }

  /** Inserts the deliveries enqueued so far now, inside the caller's transaction (atomic with it). */
  commitEnqueued(): void {
    this.flushEnqueued();
  }

  /**
   * Commits the deliveries enqueued in this synchronous run (reads call it first). While nothing
   * older is due, those that fit the claim limits are inserted claimed (`sending`) and sent at once
   * after the commit: one write and one commit less, and no wait for a tick. Never inside a
   * caller's transaction, which may still roll back.
   */
  private flushEnqueued(): void {
    if (this.enqueued.length === 0) return;
    const rows = this.enqueued;
    this.enqueued = [];
    const claimed = this.running && this.freshComplete && !this.deps.repo.inTransaction() ? this.claimAtInsert(rows) : [];
    this.deps.repo.transaction(() => {
      for (const row of rows) this.deps.repo.insert(row);
    });
    if (claimed.length > 0) {
      this.ready.push(...claimed);
      this.launchReady();
    }
    if (!this.freshComplete) return;
    if (this.freshCount + rows.length - claimed.length > FRESH_LIMIT) return this.dropFresh();
    // (Inside a caller's transaction that is later rolled back, a row is never claimed: the claim
    // by id finds nothing.)
    for (const row of rows) {
      if (row.status === 'sending') continue;
      const key = targetKey(row);
      let queue = this.fresh.get(key);
      if (!queue) this.fresh.set(key, (queue = new FreshQueue()));
      queue.push(row);
      this.freshCount++;
    }
  }

  /** Marks `sending` the new rows that fit the claim limits, oldest first per target; returns them. */
  private claimAtInsert(rows: DeliveryRow[]): DeliveryRow[] {
    let room = this.options.claimBatch;
    const perTargetLimit = this.options.perTargetConcurrency * 2;
    const counts = new Map(this.perTarget);
    for (const row of this.ready) counts.set(targetKey(row), (counts.get(targetKey(row)) ?? 0) + 1);
    const claimed: DeliveryRow[] = [];
    for (const row of rows) {
      const key = targetKey(row);
      // Older fresh deliveries of the target go first.
      if ((this.fresh.get(key)?.length ?? 0) > 0) continue;
      const n = counts.get(key) ?? 0;
      if (n >= perTargetLimit) continue;
      counts.set(key, n + 1);
      row.status = 'sending';
      claimed.push(row);
      if (--room === 0) break;
    }
    return claimed;
  }

  /** The store may hold due deliveries that are not fresh: claims query it again. */
  private dropFresh(): void {
    this.freshComplete = false;
    this.fresh.clear();
    this.freshCount = 0;
  }

  /** `isoTimestamp`, made once per millisecond. */
  private stamp(ms: number): string {
    if (ms !== this.stampMs) {
      this.stampMs = ms;
      this.stampIso = isoTimestamp(ms);
    }
    return this.stampIso;
  }

  /** Sends a delivery now, whatever its status, and waits for the outcome (a manual attempt). */
  async retryNow(id: string): Promise<{ delivery: DeliverySummary; attempt: AttemptRecord }> {
    this.flushEnqueued();
    const row = this.deps.repo.get(id);
    if (!row) throw new AppError('not_found', 'Delivery Not Found');
    if (!this.running) throw new AppError('conflict', 'The dispatcher is stopping; try again after a restart');
    const target = this.resolve(row);
    if (!target) throw new AppError('conflict', 'The target of this delivery no longer exists (its webhook was deleted)');
    if (!this.deps.repo.claimForManual(id, isoTimestamp(this.deps.clock.now()))) {
      throw new AppError('conflict', 'An attempt of this delivery is in flight; retry when it has finished');
    }
    await this.launch({ ...row, status: 'sending' }, target, 'manual', row.status);
    const after = this.deps.repo.get(id)!;
    const attempts = this.deps.repo.attempts(id);
    return { delivery: toDeliverySummary(after), attempt: toAttemptRecord(attempts.at(-1)!, after.payload) };
  }

  /** A target's URL, method or headers changed: the next attempts read it afresh. */
  targetChanged(kind: string, id: string): void {
    this.targets.delete(`${kind}:${id}`);
  }

  /** Cancels the pending deliveries of a target that is gone. */
  cancelTarget(kind: string, id: string): number {
    // Forgotten first: a delivery of it claimed as it is inserted is then cancelled, not sent.
    this.targetChanged(kind, id);
    this.flushEnqueued();
    const queue = this.fresh.get(`${kind}:${id}`);
    if (queue) {
      this.freshCount -= queue.length;
      this.fresh.delete(`${kind}:${id}`);
    }
    return this.deps.repo.cancelForTarget(kind, id, isoTimestamp(this.deps.clock.now()));
  }

  private resolve(row: DeliveryRow): DeliveryTarget | undefined {
    const key = targetKey(row);
    let target = this.targets.get(key);
    if (target === undefined) {
      target = this.deps.targets.resolve(row.target_kind, row.target_id) ?? null;
      this.targets.set(key, target);
    }
    return target ?? undefined;
  }

  /** When the next scheduled attempt is due, if any is pending. */
  nextDueAt(): number | null {
    this.flushEnqueued();
    return this.deps.repo.nextDueAt();
  }

  pendingCount(): number {
    this.flushEnqueued();
    return this.deps.repo.pendingCount();
  }

  /** Attempts on the wire right now. */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  /** One delivery with its payload and attempts. */
  find(id: string): DeliveryDetail | undefined {
    this.flushEnqueued();
    const row = this.deps.repo.get(id);
    return row && toDeliveryDetail(row, this.deps.repo.attempts(id));
  }

  /** Newest first; `before` is the id of the last delivery of the previous page. */
  list(filter: DeliveryFilter): DeliverySummary[] {
    this.flushEnqueued();
    return this.deps.repo.list(filter).map(toDeliverySummary);
  }

  /** Re-reads what is due (after the clock jumped, for example). */
  wake(): void {
    this.dropFresh();
    this.scheduleChanged = true;
    this.queueTick(true);
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
    this.flushEnqueued();
    const completed = this.completions;
    this.completions = [];
    const cancelled = this.cancellations;
    this.cancellations = [];
    this.deps.repo.transaction(() => {
      for (const c of completed) this.deps.repo.writeAttempt(c.attempt, c.update);
      for (const row of cancelled) this.cancelWithoutAttempt(row);
      if (this.running) this.claimDue();
    });
    for (const c of completed) {
      this.announce(c);
      c.committed();
    }
    this.launchReady();
    if (this.running) this.armTimer();
    // A full batch was claimed: more may be due.
    if (this.batchFull) {
      this.batchFull = false;
      this.queueTick(true);
    }
  }

  /**
   * Claims due deliveries, oldest first, into `ready`: enough to fill each target's free slots and
   * one round more (inside the tick's transaction), at most `claimBatch` in one tick. A target at
   * its limit is left out, so targets whose attempts hang never take the claims of the others.
   */
  private claimDue(): void {
    const perTargetLimit = this.options.perTargetConcurrency * 2;
    const batch = this.options.claimBatch;
    const now = this.deps.clock.now();
    const counts = new Map(this.perTarget);
    for (const row of this.ready) counts.set(targetKey(row), (counts.get(targetKey(row)) ?? 0) + 1);
    const stamp = this.stamp(now);
    if (this.freshComplete) return this.claimFresh(counts, perTargetLimit, batch, now, stamp);
    const saturated = [...counts].filter(([, n]) => n >= perTargetLimit).map(([key]) => key);
    let claimed = 0;
    while (claimed < batch) {
      const asked = Math.min(batch - claimed, 100);
      const rows = this.deps.repo.claimDue(now, saturated, asked, stamp);
      // Every due delivery of every target is claimed: from now on, the fresh ones are all there are.
      if (rows.length < asked && saturated.length === 0) this.freshComplete = true;
      if (rows.length === 0) break;
      const overflow: string[] = [];
      for (const row of rows) {
        const key = targetKey(row);
        const n = counts.get(key) ?? 0;
        if (n >= perTargetLimit) {
          // Claimed in the same batch as others of its target beyond the limit: back to pending.
          overflow.push(row.id);
          if (!saturated.includes(key)) saturated.push(key);
          continue;
        }
        counts.set(key, n + 1);
        this.ready.push(row);
        claimed++;
      }
      if (overflow.length > 0) {
        this.deps.repo.release(overflow, stamp);
        this.freshComplete = false;
      }
    }
    if (claimed >= batch) this.batchFull = true;
  }

  /** Claims fresh deliveries by id, oldest first per target, within the same limits. */
  private claimFresh(counts: Map<string, number>, perTargetLimit: number, batch: number, now: number, stamp: string): void {
    let claimed = 0;
    for (const [key, queue] of this.fresh) {
      if (claimed >= batch) {
        this.batchFull = true;
        break;
      }
      let room = Math.min(batch - claimed, perTargetLimit - (counts.get(key) ?? 0));
      while (room > 0 && queue.length > 0) {
        const id = queue.take()!;
        this.freshCount--;
        // Untried since it was queued, the usual case: only its payload needs reading back.
        const payload = this.deps.repo.claimUntried(id, now, stamp);
        if (payload !== undefined) {
          this.ready.push(queue.untried(payload, stamp));
          room--;
          claimed++;
          continue;
        }
        // Not pending any more (claimed, cancelled, never committed), or tried meanwhile.
        const c = this.deps.repo.claimOne(id, now, stamp);
        if (c === undefined) continue;
        const o = queue.origin();
        this.ready.push({
          id,
          account_id: o.account_id,
          target_kind: o.target_kind,
          target_id: o.target_id,
          category: o.category,
          event: o.event,
          ref_id: c.ref_id,
          payload: c.payload,
          target_url: c.target_url,
          status: 'sending',
          attempts: c.attempts,
          scheduled_attempts: c.scheduled_attempts,
          next_attempt_at: c.next_attempt_at,
          last_status_code: c.last_status_code,
          last_error: c.last_error,
          created_ms: c.created_ms,
          created_at: c.created_at,
          updated_at: stamp,
        });
        room--;
        claimed++;
      }
      if (queue.length === 0) this.fresh.delete(key);
    }
  }

  /** Sends claimed deliveries while their targets have free slots (there is no slot shared between targets). */
  private launchReady(): void {
    const { perTargetConcurrency } = this.options;
    for (let i = 0; i < this.ready.length; ) {
      const row = this.ready[i]!;
      if ((this.perTarget.get(targetKey(row)) ?? 0) >= perTargetConcurrency) {
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

  /** Waits on the emulator clock for the next delivery that becomes due after now. */
  private armTimer(): void {
    // Deliveries already due but not claimed are waiting for a target's slot: a finishing attempt
    // wakes the dispatcher for them. The alarm is only for what becomes due later.
    if (!this.scheduleChanged) return;
    this.scheduleChanged = false;
    this.alarm.set(this.deps.repo.nextDueAfter(this.deps.clock.now()));
  }

  /** Sends one attempt of a claimed delivery; resolves once its outcome is committed. */
  private launch(row: DeliveryRow, target: DeliveryTarget, trigger: Trigger, previousStatus: DeliveryRow['status']): Promise<void> {
    const key = targetKey(row);
    this.perTarget.set(key, (this.perTarget.get(key) ?? 0) + 1);
    const request = this.buildRequest(row, target);
    const startedAt = this.stamp(this.deps.clock.now());
    const done = sendAttempt(request, {
      agent: this.agent,
      timeoutMs: this.options.timeoutMs,
      responseBodyLimit: this.options.responseBodyLimit,
      stopping: () => this.aborting,
      urls: this.urls,
    }).then((result) => {
      const left = (this.perTarget.get(key) ?? 1) - 1;
      if (left > 0) this.perTarget.set(key, left);
      else this.perTarget.delete(key);
      this.inFlight.delete(row.id);
      this.launchReady();
      return this.record(row, trigger, previousStatus, request, startedAt, result);
    });
    this.inFlight.set(row.id, { done });
    return done;
  }

  private buildRequest(row: DeliveryRow, target: DeliveryTarget) {
    // The receiver checks this against its own clock, so it is wall time, not emulated time.
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': this.options.userAgent,
      'webhook-id': row.id,
      'webhook-timestamp': String(timestamp),
    };
    const secret = this.deps.signingSecret(row.account_id);
    if (secret) headers['webhook-signature'] = signWebhook(secret, row.id, timestamp, row.payload);
    for (const [name, value] of Object.entries(target.headers)) headers[name.toLowerCase()] = value;
    return { method: target.method, url: target.url, headers, body: row.payload };
  }

  /** Queues an attempt's outcome and the delivery's next state for the next commit. */
  private record(
    row: DeliveryRow,
    trigger: Trigger,
    previousStatus: DeliveryRow['status'],
    request: { method: string; url: string; headers: Record<string, string>; body: string },
    startedAt: string,
    result: HttpAttemptResult,
  ): Promise<void> {
    const attempt: AttemptRow = {
      delivery_id: row.id,
      number: row.attempts + 1,
      trigger,
      outcome: result.succeeded ? 'succeeded' : 'failed',
      started_at: startedAt,
      duration_ms: result.durationMs,
      request_method: request.method,
      request_url: request.url,
      request_headers: JSON.stringify(request.headers),
      response_status: result.response?.status ?? null,
      response_headers: result.response ? JSON.stringify(result.response.headers) : null,
      response_body: result.response?.body ?? null,
      response_truncated: result.response?.truncated ? 1 : 0,
      error_code: result.error?.code ?? null,
      error: result.error?.message ?? null,
    };
    const lastError = result.succeeded ? null : (result.error?.message ?? `HTTP ${result.response?.status ?? '?'}`);
    const next = this.nextState(row, trigger, previousStatus, result.succeeded);
    const update: DeliveryUpdate = {
      id: row.id,
      status: next.status,
      attempts: row.attempts + 1,
      scheduled_attempts: next.scheduledAttempts,
      next_attempt_at: next.nextAttemptAt,
      target_url: request.url,
      last_status_code: result.response?.status ?? null,
      last_error: lastError,
      updated_at: this.stamp(this.deps.clock.now()),
    };
    if (next.status === 'pending') {
      this.scheduleChanged = true;
      // Pending and due already (a manual attempt on a pending delivery, a zero-delay retry): the
      // store has a due delivery that is not fresh.
      if (next.nextAttemptAt !== null && next.nextAttemptAt <= this.deps.clock.now()) this.dropFresh();
    }
    return new Promise((committed) => {
      this.completions.push({ row, attempt, update, committed });
      // Soon when slots may starve or someone waits for this outcome; otherwise batch it.
      const urgent = !this.running || trigger === 'manual' || this.ready.length < this.options.claimBatch / 4;
      this.queueTick(urgent);
    });
  }

  /** Tells listeners (the live stream) about a committed attempt. */
  private announce({ row, attempt, update }: Completion): void {
    const { live } = this.deps;
    if (live.hasListeners('attempt.completed')) live.emit('attempt.completed', { delivery_id: row.id, attempt: toAttemptRecord(attempt, row.payload) });
    if (live.hasListeners('delivery.updated')) live.emit('delivery.updated', toDeliverySummary({ ...row, ...update }));
  }

  /**
   * After an attempt: a 2xx ends the delivery. A failed scheduled attempt waits for the next step of
   * the retry schedule, or fails the delivery when the schedule is spent, or cancels it when its
   * target is gone. A manual attempt never changes the schedule.
   */
  private nextState(row: DeliveryRow, trigger: Trigger, previousStatus: DeliveryRow['status'], succeeded: boolean) {
    const counts = trigger !== 'manual';
    const scheduledAttempts = row.scheduled_attempts + (counts ? 1 : 0);
    if (succeeded) return { status: 'succeeded' as const, nextAttemptAt: null, scheduledAttempts };
    if (!counts) {
      return previousStatus === 'pending'
        ? { status: 'pending' as const, nextAttemptAt: row.next_attempt_at, scheduledAttempts }
        : { status: 'failed' as const, nextAttemptAt: null, scheduledAttempts };
    }
    if (!this.resolve(row)) return { status: 'cancelled' as const, nextAttemptAt: null, scheduledAttempts };
    const delay = nextRetryDelay(this.options.retrySchedule, scheduledAttempts);
    return delay === null
      ? { status: 'failed' as const, nextAttemptAt: null, scheduledAttempts }
      : { status: 'pending' as const, nextAttemptAt: this.deps.clock.now() + delay, scheduledAttempts };
  }

  /** Cancels a due delivery whose target is gone, without an attempt. */
  private cancelWithoutAttempt(row: DeliveryRow): void {
    const update: DeliveryUpdate = {
      id: row.id,
      status: 'cancelled',
      attempts: row.attempts,
      scheduled_attempts: row.scheduled_attempts,
      next_attempt_at: null,
      target_url: row.target_url,
      last_status_code: row.last_status_code,
      last_error: 'the target was deleted',
      updated_at: isoTimestamp(this.deps.clock.now()),
    };
    this.deps.repo.completeUpdate(update);
    if (this.deps.live.hasListeners('delivery.updated')) this.deps.live.emit('delivery.updated', toDeliverySummary({ ...row, ...update }));
  }

  /**
   * At start: a delivery still `sending` belonged to a process that stopped mid-attempt (a crash or
   * kill -9). Its outcome is unknown, so the attempt counts as failed and the schedule goes on
   * (at-least-once delivery: the receiver may see it twice and deduplicates by webhook-id).
   */
  private recoverInterrupted(): void {
    const rows = this.deps.repo.interrupted();
    for (const row of rows) {
      const target = this.resolve(row);
      const request = {
        method: target?.method ?? 'POST',
        url: target?.url ?? row.target_url,
        headers: {},
        body: row.payload,
      };
      void this.record(row, 'recovered', 'sending', request, isoTimestamp(this.deps.clock.now()), {
        durationMs: 0,
        response: null,
        error: {
          code: 'interrupted',
          message: 'the emulator stopped (crash or kill) while this attempt was starting or in flight; its outcome is unknown, so it counts as failed',
        },
        succeeded: false,
      });
    }
    if (rows.length > 0) this.deps.logger.warn({ count: rows.length }, 'attempts interrupted by the last stop were counted as failed');
  }
}
