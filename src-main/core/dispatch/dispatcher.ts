import type { Logger } from 'pino';
import { ulid } from 'ulid';
import { Agent } from 'undici';
import type { AttemptRecord, DeliveryDetail, DeliverySummary } from '../../../src-shared/schemas/dispatch';
import { isoTimestamp, type Clock } from '../clock';
import type { EmulatorEvents } from '../emulator-events';
import { AppError } from '../errors';
import type { AttemptRow, DeliveriesRepo, DeliveryFilter, DeliveryRow, DeliveryUpdate } from '../store/deliveries.repo';
import { sendAttempt, type HttpAttemptResult } from './attempt';
import { toAttemptRecord, toDeliveryDetail, toDeliverySummary } from './records';
import { nextRetryDelay } from './retry-policy';
import { signWebhook } from './sign';

/** Where a delivery goes, read afresh at every attempt (retries follow the target's current settings). */
export interface DeliveryTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** Finds a target by kind and id; undefined once it is gone (its pending deliveries are then cancelled). */
export type TargetResolver = (kind: string, id: string) => DeliveryTarget | undefined;

export interface DispatcherOptions {
  retrySchedule: readonly number[];
  /** Requests in flight to one target at most. */
  perTargetConcurrency: number;
  /** Requests in flight in all at most. */
  globalConcurrency: number;
  timeoutMs: number;
  /** How much of a response body is kept. */
  responseBodyLimit: number;
  /** Verify receivers' TLS certificates (strict mode); off by default for self-signed local receivers. */
  verifyTls: boolean;
  userAgent: string;
}

export interface DispatcherDeps {
  repo: DeliveriesRepo;
  clock: Clock;
  events: EmulatorEvents;
  logger: Logger;
  resolveTarget: TargetResolver;
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
  controller: AbortController;
  done: Promise<void>;
}

const targetKey = (row: Pick<DeliveryRow, 'target_kind' | 'target_id'>) => `${row.target_kind}:${row.target_id}`;

/**
 * The durable webhook dispatcher. Every request is a `deliveries` row before its first attempt; due
 * rows are claimed (`sending`), sent with undici, and their attempt is recorded with the delivery's
 * next state in one transaction. Waiting is done on the emulator clock, never on wall time.
 */
export class Dispatcher {
  private readonly agent: Agent;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly perTarget = new Map<string, number>();
  private cancelTimer: (() => void) | undefined;
  private timerAt: number | undefined;
  private pumpQueued = false;
  private running = false;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {
    this.agent = new Agent({
      keepAliveTimeout: 4_000,
      connections: options.perTargetConcurrency,
      connect: { rejectUnauthorized: options.verifyTls, timeout: options.timeoutMs },
    });
  }

  /** Treats attempts a previous process left in flight as failed, then starts sending what is due. */
  start(): void {
    this.recoverInterrupted();
    this.running = true;
    this.pump();
  }

  /**
   * Stops taking due work; attempts in flight get `graceMs`, then are aborted and recorded as
   * interrupted (so they are retried on the next start).
   */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.clearTimer();
    const pending = [...this.inFlight.values()];
    if (pending.length > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([Promise.allSettled(pending.map((f) => f.done)), graceOver]);
      clearTimeout(timer);
      for (const f of this.inFlight.values()) f.controller.abort();
      await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    }
    await this.agent.close();
  }

  /** Persists a new delivery, due now, and wakes the dispatcher. */
  enqueue(input: EnqueueInput): DeliverySummary {
    const now = this.deps.clock.now();
    const iso = isoTimestamp(now);
    const row: DeliveryRow = {
      id: ulid(now),
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
    this.deps.repo.insert(row);
    const summary = toDeliverySummary(row);
    this.deps.events.emit('delivery.created', summary);
    this.queuePump();
    return summary;
  }

  /** Sends a delivery now, whatever its status, and waits for the outcome (a manual attempt). */
  async retryNow(id: string): Promise<{ delivery: DeliverySummary; attempt: AttemptRecord }> {
    const row = this.deps.repo.get(id);
    if (!row) throw new AppError('not_found', 'Delivery Not Found');
    if (!this.running) throw new AppError('conflict', 'The dispatcher is stopping; try again after a restart');
    if (!this.deps.resolveTarget(row.target_kind, row.target_id)) {
      throw new AppError('conflict', 'The target of this delivery no longer exists (its webhook was deleted)');
    }
    if (!this.deps.repo.claimForManual(id, isoTimestamp(this.deps.clock.now()))) {
      throw new AppError('conflict', 'An attempt of this delivery is in flight; retry when it has finished');
    }
    await this.launch({ ...row, status: 'sending' }, 'manual', row.status);
    const after = this.deps.repo.get(id)!;
    const attempts = this.deps.repo.attempts(id);
    return { delivery: toDeliverySummary(after), attempt: toAttemptRecord(attempts.at(-1)!) };
  }

  /** Cancels the pending deliveries of a target that is gone. */
  cancelTarget(kind: string, id: string): number {
    return this.deps.repo.cancelForTarget(kind, id, isoTimestamp(this.deps.clock.now()));
  }

  /** When the next scheduled attempt is due, if any is pending. */
  nextDueAt(): number | null {
    return this.deps.repo.nextDueAt([]);
  }

  pendingCount(): number {
    return this.deps.repo.pendingCount();
  }

  /** One delivery with its payload and attempts. */
  find(id: string): DeliveryDetail | undefined {
    const row = this.deps.repo.get(id);
    return row && toDeliveryDetail(row, this.deps.repo.attempts(id));
  }

  /** Newest first; `before` is the id of the last delivery of the previous page. */
  list(filter: DeliveryFilter): DeliverySummary[] {
    return this.deps.repo.list(filter).map(toDeliverySummary);
  }

  /** Re-reads what is due (after the clock jumped, for example). */
  wake(): void {
    this.queuePump();
  }

  private queuePump(): void {
    if (this.pumpQueued || !this.running) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  /** Claims and launches due deliveries up to the concurrency caps, then waits for the next due one. */
  private pump(): void {
    if (!this.running) return;
    const { globalConcurrency, perTargetConcurrency } = this.options;
    const saturated = [...this.perTarget].filter(([, n]) => n >= perTargetConcurrency).map(([key]) => key);
    const now = this.deps.clock.now();
    while (this.inFlight.size < globalConcurrency) {
      const rows = this.deps.repo.due(now, saturated, Math.min(globalConcurrency - this.inFlight.size, 100));
      if (rows.length === 0) break;
      const chosen: DeliveryRow[] = [];
      const counts = new Map<string, number>();
      for (const row of rows) {
        const key = targetKey(row);
        const n = (this.perTarget.get(key) ?? 0) + (counts.get(key) ?? 0);
        if (n >= perTargetConcurrency) {
          if (!saturated.includes(key)) saturated.push(key);
          continue;
        }
        counts.set(key, (counts.get(key) ?? 0) + 1);
        chosen.push(row);
      }
      if (chosen.length === 0) continue;
      this.deps.repo.claim(
        chosen.map((r) => r.id),
        isoTimestamp(now),
      );
      for (const row of chosen) void this.launch({ ...row, status: 'sending' }, 'scheduled', 'pending');
    }
    if (this.inFlight.size < globalConcurrency) this.armTimer(saturated);
    else this.clearTimer();
  }

  private armTimer(saturated: string[]): void {
    const at = this.deps.repo.nextDueAt(saturated);
    if (at === null) return this.clearTimer();
    if (at === this.timerAt) return;
    this.clearTimer();
    this.timerAt = at;
    this.cancelTimer = this.deps.clock.setTimer(at, () => {
      this.timerAt = undefined;
      this.cancelTimer = undefined;
      this.queuePump();
    });
  }

  private clearTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = undefined;
  }

  /** Starts one attempt of a claimed delivery; resolves when it is recorded. */
  private launch(row: DeliveryRow, trigger: Trigger, previousStatus: DeliveryRow['status']): Promise<void> {
    const target = this.deps.resolveTarget(row.target_kind, row.target_id);
    if (!target) {
      this.finish(row, { status: 'cancelled', next_attempt_at: null, last_error: 'the target was deleted' });
      return Promise.resolve();
    }
    const key = targetKey(row);
    this.perTarget.set(key, (this.perTarget.get(key) ?? 0) + 1);
    const controller = new AbortController();
    const request = this.buildRequest(row, target);
    const startedAt = isoTimestamp(this.deps.clock.now());
    const done = sendAttempt(request, {
      agent: this.agent,
      timeoutMs: this.options.timeoutMs,
      responseBodyLimit: this.options.responseBodyLimit,
      signal: controller.signal,
    })
      .then((result) => this.record(row, trigger, previousStatus, request, startedAt, result))
      .catch((err: unknown) => this.deps.logger.error({ err, delivery: row.id }, 'recording a delivery attempt failed'))
      .finally(() => {
        const left = (this.perTarget.get(key) ?? 1) - 1;
        if (left > 0) this.perTarget.set(key, left);
        else this.perTarget.delete(key);
        this.inFlight.delete(row.id);
        this.queuePump();
      });
    this.inFlight.set(row.id, { controller, done });
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

  /** Records an attempt and moves the delivery to its next state, in one transaction. */
  private record(
    row: DeliveryRow,
    trigger: Trigger,
    previousStatus: DeliveryRow['status'],
    request: { method: string; url: string; headers: Record<string, string>; body: string },
    startedAt: string,
    result: HttpAttemptResult,
  ): void {
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
      request_body: request.body,
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
      updated_at: isoTimestamp(this.deps.clock.now()),
    };
    this.deps.repo.completeAttempt(attempt, update);
    const { events } = this.deps;
    if (events.hasListeners('attempt.completed')) events.emit('attempt.completed', { delivery_id: row.id, attempt: toAttemptRecord(attempt) });
    if (events.hasListeners('delivery.updated')) events.emit('delivery.updated', toDeliverySummary({ ...row, ...update }));
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
    if (!this.deps.resolveTarget(row.target_kind, row.target_id)) return { status: 'cancelled' as const, nextAttemptAt: null, scheduledAttempts };
    const delay = nextRetryDelay(this.options.retrySchedule, scheduledAttempts);
    return delay === null
      ? { status: 'failed' as const, nextAttemptAt: null, scheduledAttempts }
      : { status: 'pending' as const, nextAttemptAt: this.deps.clock.now() + delay, scheduledAttempts };
  }

  /** Ends a delivery without an attempt (its target is gone). */
  private finish(row: DeliveryRow, change: Pick<DeliveryUpdate, 'status' | 'next_attempt_at' | 'last_error'>): void {
    const update: DeliveryUpdate = {
      id: row.id,
      attempts: row.attempts,
      scheduled_attempts: row.scheduled_attempts,
      target_url: row.target_url,
      last_status_code: row.last_status_code,
      updated_at: isoTimestamp(this.deps.clock.now()),
      ...change,
    };
    this.deps.repo.completeUpdate(update);
    if (this.deps.events.hasListeners('delivery.updated')) this.deps.events.emit('delivery.updated', toDeliverySummary({ ...row, ...update }));
  }

  /**
   * At start: a delivery still `sending` belonged to a process that stopped mid-attempt (a crash or
   * kill -9). Its outcome is unknown, so the attempt counts as failed and the schedule goes on
   * (at-least-once delivery: the receiver may see it twice and deduplicates by webhook-id).
   */
  private recoverInterrupted(): void {
    const rows = this.deps.repo.interrupted();
    for (const row of rows) {
      const target = this.deps.resolveTarget(row.target_kind, row.target_id);
      const request = {
        method: target?.method ?? 'POST',
        url: target?.url ?? row.target_url,
        headers: {},
        body: row.payload,
      };
      this.record(row, 'recovered', 'sending', request, isoTimestamp(this.deps.clock.now()), {
        durationMs: 0,
        response: null,
        error: { code: 'interrupted', message: 'the emulator stopped during this attempt (crash or kill); its outcome is unknown, so it counts as failed' },
        succeeded: false,
      });
    }
    if (rows.length > 0) this.deps.logger.warn({ count: rows.length }, 'attempts interrupted by the last stop were counted as failed');
  }
}
