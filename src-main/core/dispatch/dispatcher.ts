import type { AttemptRecord, DeliverySummary } from '../../../src-shared/schemas/dispatch';
import { appError } from '../error-catalogue';
import type { LiveBus } from '../live-bus';
import type { DeliveriesRepo } from '../store/deliveries.repo';
import type { HttpAttemptRequest } from './attempt';
import type { DeliveryFaultsRegistry } from './delivery-faults';
import type { DeliveryOutbox, EnqueueInput } from './delivery-outbox';
import type { DeliveryQueries } from './delivery-queries';
import { payloadRecipientAndSubject, toDeliverySummary } from './delivery-records';
import type { DeliveryWorker } from './delivery-worker';

export type { DeliveryFaults, FaultStats } from './delivery-faults';
export type { EnqueueInput } from './delivery-outbox';
export type { DeliveryTarget, DeliveryTargetSource } from './delivery-targets';

/** What the dispatcher acts through: the store, the live bus, and the outbox, worker and faults it shares with the emulator. */
export interface DispatcherDeps {
  repo: DeliveriesRepo;
  live: LiveBus;
  outbox: DeliveryOutbox;
  worker: DeliveryWorker;
  faults: DeliveryFaultsRegistry;
  /** A manual attempt answers the delivery as the list shows it afterwards. */
  queries: Pick<DeliveryQueries, 'afterAttempt'>;
}

/**
 * The webhook dispatcher: what services call to send webhook requests, inbound posts and IMAP
 * webhooks, and the control API's actions on a delivery. Its parts have one direction each:
 *
 * - the outbox (delivery-outbox.ts) owns insertion: every request is a `deliveries` row before its
 *   first attempt; new rows are inserted together at the end of the synchronous run that made them,
 *   and the outbox tells the worker (OutboxListener);
 * - the worker (delivery-worker.ts): ticks that commit outcomes and claim from the outbox, attempts
 *   within each target's slots, retries on the emulator clock, recovery at start, stop with a grace
 *   period; the lifecycle starts and stops it, the clock's controls wake it;
 * - the read side (delivery-queries.ts), which the HTTP layer and the clock's controls read directly;
 * - the scenario faults (delivery-faults.ts), which a run sets directly and the dispatcher applies here.
 *
 * Where a delivery goes is asked at each attempt of the registered delivery targets
 * (delivery-targets.ts). Targets are isolated: each has its own slots (`perTargetConcurrency`) and
 * nothing is shared between them, so a receiver that never answers holds only its own slots, each
 * until the attempt's time-out, and never delays another target's deliveries, however many hang at
 * once. What that costs is bounded per target: at most `perTargetConcurrency` sockets and twice that
 * many claimed rows in memory for each target with due deliveries.
 */
export class Dispatcher {
  private readonly outbox: DeliveryOutbox;
  private readonly worker: DeliveryWorker;
  private readonly faults: DeliveryFaultsRegistry;

  constructor(private readonly deps: DispatcherDeps) {
    this.outbox = deps.outbox;
    this.worker = deps.worker;
    this.faults = deps.faults;
  }

  /**
   * Persists a new delivery, due now, and wakes the dispatcher. Returns its id. The row is inserted
   * at the end of the current synchronous run, with the others of that run: before any reply of the
   * caller's goes out, and before the first attempt.
   */
  enqueue(input: EnqueueInput): string {
    const delays = this.faults.active ? this.faults.plan(input) : undefined;
    if (delays === undefined) return this.enqueueOne(input, 0);
    const id = this.enqueueOne(input, delays[0]!);
    // A duplicate: the same event delivered again, as a provider's redelivery: its webhook-id and
    // payload, in a delivery of its own (its own attempts and retries).
    for (let i = 1; i < delays.length; i++) this.enqueueOne(input, delays[i]!, id);
    return id;
  }

  private enqueueOne(input: EnqueueInput, delayMs: number, webhookId: string | null = null): string {
    const row = this.outbox.enqueue(input, delayMs, webhookId);
    const { live } = this.deps;
    if (live.hasListeners('delivery.created')) live.emit('delivery.created', toDeliverySummary({ ...row, ...payloadRecipientAndSubject(input.payload) }));
    return row.id;
  }

  /**
   * Runs `write`, a unit of work that enqueues deliveries: when it throws (its transaction rolled
   * back), the deliveries it enqueued and had not inserted yet are forgotten, never sent.
   */
  enqueuing<T>(write: () => T): T {
    const before = this.outbox.enqueuedCount;
    try {
      return write();
    } catch (err) {
      this.outbox.discardEnqueued(before);
      throw err;
    }
  }

  /** Inserts the deliveries enqueued so far now, inside the caller's transaction (atomic with it). */
  commitEnqueued(): void {
    this.outbox.flush();
  }

  /** A target's URL, method or headers changed: the next attempts read it afresh. */
  targetChanged(kind: string, id: string): void {
    this.worker.forgetTarget(kind, id);
  }

  /** Cancels the pending deliveries of a target that is gone. */
  cancelTarget(kind: string, id: string): number {
    // Forgotten first: a delivery of it claimed as it is inserted is then cancelled, not sent.
    this.worker.forgetTarget(kind, id);
    this.outbox.flush();
    return this.outbox.cancelTarget(kind, id);
  }

  /**
   * Which delivery sent a request that carries `webhookId`, asked once per request received: an attempt
   * on the wire now (with its number in the delivery's log), else the delivery of that id with no
   * attempt (a copy of its request, sent by someone else: Copy as curl); undefined when no delivery has
   * that id.
   */
  sender(webhookId: string): { deliveryId: string; attempt: number | null } | undefined {
    const onWire = this.worker.attemptOnWire(webhookId);
    if (onWire) return onWire;
    return this.deps.repo.exists(webhookId) ? { deliveryId: webhookId, attempt: null } : undefined;
  }

  /**
   * The request an attempt of the delivery would send now, signed at this moment with the account's
   * secrets (a fresh `webhook-timestamp`): nothing is sent or recorded.
   */
  requestNow(id: string): HttpAttemptRequest {
    const row = this.deps.repo.get(id);
    if (!row) throw appError('deliveryNotFound');
    return this.worker.requestNow(row);
  }

  /**
   * A new delivery of `payload` (stored and sent as its JSON) to the same target, with the same account, category, event
   * and ref_id as delivery `id`: an edited resend. A new event to the receiver, so its own `webhook-id`
   * (the original's would make a receiver that keeps the ids it has acted on drop it), and its own
   * attempts and retries; no scenario faults apply. Inserted before this returns; the worker sends it at once.
   */
  resend(id: string, payload: Record<string, unknown>): string {
    const row = this.deps.repo.get(id);
    if (!row) throw appError('deliveryNotFound');
    if (!this.worker.hasTarget(row)) throw appError('deliveryTargetGone');
    const newId = this.enqueueOne(
      {
        accountId: row.account_id,
        target: { kind: row.target_kind, id: row.target_id, url: row.target_url },
        category: row.category,
        event: row.event,
        refId: row.ref_id,
        payload,
      },
      0,
    );
    this.outbox.flush();
    return newId;
  }

  /** How many of a target's deliveries `retryFailing` would retry: failed ones and those waiting for a retry. */
  countFailing(kind: string, id: string): number {
    return this.deps.repo.countRetryable(kind, id);
  }

  /**
   * Sends a manual attempt of each of a target's failed deliveries and those waiting for a retry
   * (oldest first, at most `limit`), at most the target's slot count at a time. Answers the ids at
   * once; the attempts go on in the background (each recorded and announced as it ends). A delivery
   * that is on the wire by its turn is left alone; each one's outcome is a manual attempt's (a
   * success ends it; a failure leaves its schedule as it was).
   */
  retryFailing(kind: string, id: string, limit: number): string[] {
    const ids = this.deps.repo.retryable(kind, id, limit);
    const queue = [...ids];
    const next = async (): Promise<void> => {
      for (let one = queue.shift(); one !== undefined && this.worker.isRunning; one = queue.shift()) {
        try {
          const row = this.deps.repo.get(one);
          if (row && (row.status === 'failed' || row.status === 'pending')) await this.worker.attemptNow(row);
        } catch {
          // On the wire by now (deliveryInFlight) or its target gone: skipped, the others go on.
        }
      }
    };
    for (let i = 0; i < Math.min(ids.length, this.worker.perTargetConcurrency); i++) void next();
    return ids;
  }

  /** Sends a delivery now, whatever its status, and waits for the outcome (a manual attempt). */
  async retryNow(id: string): Promise<{ delivery: DeliverySummary; attempt: AttemptRecord }> {
    const row = this.deps.repo.get(id);
    if (!row) throw appError('deliveryNotFound');
    await this.worker.attemptNow(row);
    return this.deps.queries.afterAttempt(id);
  }
}
