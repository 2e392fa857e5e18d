import type { Clock } from '../clock';
import { monotonicUlids } from '../ids';
import type { DeliveriesRepo, DeliveryRow } from '../store/deliveries.repo';
import { targetKey } from './delivery-targets';
import { FreshQueue } from './fresh-queue';
import { isoTimestampCache } from './iso-timestamps';

export interface EnqueueInput {
  accountId: string;
  target: { kind: string; id: string; url: string };
  category: string;
  event: string;
  refId: string | null;
  payload: unknown;
}

export interface OutboxLimits {
  /** A target's claimed deliveries (in flight and waiting for a slot) at most: twice its slots. */
  perTargetConcurrency: number;
  /** Deliveries one commit claims at most. */
  claimBatch: number;
}

/**
 * Who the outbox tells of its deliveries (the worker): it never calls the outbox back from these,
 * except to claim on its own ticks.
 */
export interface OutboxListener {
  /** A delivery was enqueued: its first attempt is wanted soon. */
  enqueued(row: DeliveryRow): void;
  /** Deliveries claimed per target while the worker runs (then new ones may be claimed as they are inserted); undefined otherwise. */
  claimedPerTarget(): Map<string, number> | undefined;
  /** New deliveries inserted claimed (`sending`): to send at once. */
  claimed(rows: DeliveryRow[]): void;
  /** The insert at the end of a synchronous run could not commit (a full disk): the rows are kept for the next try. */
  insertFailed(err: unknown): void;
}

/**
 * New deliveries (see `DeliveryOutbox.newUnclaimed`) held at most (about 64 bytes each). Beyond it,
 * claims go back to querying the store until it has no due delivery left.
 */
const NEW_UNCLAIMED_LIMIT = 50_000;

/**
 * The outbox side of the dispatcher: every request is a `deliveries` row before its first attempt.
 * New deliveries are inserted together at the end of the synchronous run that made them, and
 * claimed (`sending`, committed before any attempt) for the worker that sends them: by id while the
 * deliveries this process made are the only due ones, else by a query for due rows.
 */
export class DeliveryOutbox {
  /** New deliveries of the current synchronous run, inserted together in a microtask. */
  private enqueued: DeliveryRow[] = [];
  /**
   * Deliveries this process inserted, due at once and not claimed yet, per target in creation order,
   * as ids (the claim reads the rest back). While `onlyNewAreDue`, these are all the due pending
   * deliveries in the store, so a claim is an update by id: no query for due rows, no row read back.
   * Anything that may add a due delivery behind its back (a clock jump, the alarm for a scheduled
   * retry, a release, an immediate retry, too many new ones) forgets them (`forgetNewUnclaimed`),
   * and claims query the store until a query finds no more due deliveries.
   */
  private readonly newUnclaimed = new Map<string, FreshQueue>();
  private newUnclaimedCount = 0;
  /**
   * True while the store holds no due pending delivery but those in `newUnclaimed`, as long as the
   * clock is before `scheduledFrom`.
   */
  private onlyNewAreDue = false;
  /**
   * The earliest time a pending delivery that is not new falls due (a retry, one left unclaimed at a
   * target's limit): read with the last query for due rows, at that query's `now`, and lowered by every
   * retry committed since (`scheduled`). Claims by id only while the clock is before it, so a retry can
   * never fall due unseen between a claim and the next alarm: from that time on, claims query the
   * store. The worker's alarm rings at it.
   */
  private scheduledFrom = Infinity;
  /** Delivery ids: ULIDs in creation order even within one millisecond (the list pages by id). */
  private readonly newId = monotonicUlids();
  private readonly isoAt = isoTimestampCache();
  private listener: OutboxListener | undefined;
  /** The insert at the end of the synchronous run that enqueued (never throws into the microtask). */
  private readonly flushSoon = () => {
    try {
      this.flush();
    } catch (err) {
      this.listener?.insertFailed(err);
    }
  };

  constructor(
    private readonly repo: DeliveriesRepo,
    private readonly clock: Clock,
    private readonly limits: OutboxLimits,
  ) {}

  /** The one who sends what the outbox holds (the worker). */
  listen(listener: OutboxListener): void {
    this.listener = listener;
  }

  /**
   * Makes a new delivery, due now; it is inserted at the end of the current synchronous run, in one
   * transaction with the others of that run (`flush`, in a microtask): before any reply of the
   * caller's goes out, and before the first attempt. The listener hears of it at once. `delayMs` (delivery faults) makes its first attempt due later;
   * `webhookId` (a duplicate's: its original's id) is the webhook-id its requests carry instead of its own id.
   */
  enqueue(input: EnqueueInput, delayMs = 0, webhookId: string | null = null): DeliveryRow {
    const now = this.clock.now();
    const iso = this.isoAt(now);
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
      next_attempt_at: now + delayMs,
      last_status_code: null,
      last_error: null,
      created_ms: now,
      created_at: iso,
      updated_at: iso,
      webhook_id: webhookId,
    };
    this.enqueued.push(row);
    if (this.enqueued.length === 1) queueMicrotask(this.flushSoon);
    this.listener?.enqueued(row);
    return row;
  }

  /** Deliveries enqueued and not inserted yet. */
  get enqueuedCount(): number {
    return this.enqueued.length;
  }

  /** Forgets the deliveries enqueued after the first `count` (what a unit of work that failed enqueued). */
  discardEnqueued(count: number): void {
    if (this.enqueued.length > count) this.enqueued.length = count;
  }

  /**
   * Inserts the deliveries enqueued so far (inside a caller's transaction: atomic with it). While
   * nothing older is due and the worker runs, those that fit the claim limits are inserted claimed
   * (`sending`) and handed to the listener, to be sent at once after the commit: one write and one
   * commit less, and no wait for a tick. Never claims inside a caller's transaction, which may still roll back.
   */
  flush(): void {
    const claimed = this.insertEnqueued();
    if (claimed.length > 0) this.listener!.claimed(claimed);
  }

  private insertEnqueued(): DeliveryRow[] {
    if (this.enqueued.length === 0) return [];
    const rows = this.enqueued;
    this.enqueued = [];
    const counts = this.onlyNewAreDue && !this.repo.inTransaction() ? this.listener?.claimedPerTarget() : undefined;
    const claimed = counts ? this.claimAtInsert(rows, counts) : [];
    try {
      // Inside a caller's transaction, the rows are its writes (no savepoint of their own).
      const insert = () => {
        for (const row of rows) this.repo.insert(row);
      };
      if (this.repo.inTransaction()) insert();
      else this.repo.transaction(insert);
    } catch (err) {
      // Not stored. Inside a caller's transaction they go with it (it rolls back as one); otherwise
      // they are kept, unclaimed, for the next try.
      if (!this.repo.inTransaction()) {
        for (const row of claimed) row.status = 'pending';
        this.enqueued = rows.concat(this.enqueued);
      }
      throw err;
    }
    // Delayed ones (delivery faults) fall due later: the alarm rings for them, and they are never claimed by id.
    for (const row of rows) if (row.next_attempt_at! > row.created_ms) this.scheduled(row.next_attempt_at!);
    if (!this.onlyNewAreDue) return claimed;
    if (this.newUnclaimedCount + rows.length - claimed.length > NEW_UNCLAIMED_LIMIT) {
      this.forgetNewUnclaimed();
      return claimed;
    }
    // (Inside a caller's transaction that is later rolled back, a row is never claimed: the claim
    // by id finds nothing.)
    for (const row of rows) {
      if (row.status === 'sending' || row.next_attempt_at! > row.created_ms) continue;
      const key = targetKey(row);
      let queue = this.newUnclaimed.get(key);
      if (!queue) {
        queue = new FreshQueue();
        this.newUnclaimed.set(key, queue);
      }
      queue.push(row);
      this.newUnclaimedCount++;
    }
    return claimed;
  }

  /** Marks `sending` the new rows that fit the claim limits, oldest first per target; returns them. */
  private claimAtInsert(rows: DeliveryRow[], counts: Map<string, number>): DeliveryRow[] {
    let room = this.limits.claimBatch;
    const perTargetLimit = this.limits.perTargetConcurrency * 2;
    const claimed: DeliveryRow[] = [];
    for (const row of rows) {
      if (row.next_attempt_at! > row.created_ms) continue;
      const key = targetKey(row);
      // Older new deliveries of the target go first.
      if ((this.newUnclaimed.get(key)?.length ?? 0) > 0) continue;
      const n = counts.get(key) ?? 0;
      if (n >= perTargetLimit) continue;
      counts.set(key, n + 1);
      row.status = 'sending';
      claimed.push(row);
      if (--room === 0) break;
    }
    return claimed;
  }

  /** A pending delivery was committed with its next attempt at `at` (a retry, a manual attempt's follow-up). */
  scheduled(at: number): void {
    if (at < this.scheduledFrom) this.scheduledFrom = at;
  }

  /** When the next delivery that is not new falls due, as far as the store was read (the worker's alarm). */
  get nextScheduledAt(): number | null {
    return this.scheduledFrom === Infinity ? null : this.scheduledFrom;
  }

  /** The store may hold due deliveries that are not new: claims query it again. */
  forgetNewUnclaimed(): void {
    this.onlyNewAreDue = false;
    this.newUnclaimed.clear();
    this.newUnclaimedCount = 0;
  }

  /**
   * Claims due deliveries, oldest first, into `into`: enough to bring each target to twice its slots
   * (`counts`: its deliveries claimed already, updated), at most `claimBatch`. A target at its limit
   * is left out, so targets whose attempts hang never take the claims of the others. Runs inside the
   * tick's transaction. Returns true when it claimed a full batch (more may be due).
   */
  claimDue(counts: Map<string, number>, into: DeliveryRow[]): boolean {
    const perTargetLimit = this.limits.perTargetConcurrency * 2;
    const batch = this.limits.claimBatch;
    const now = this.clock.now();
    const claimedAt = this.isoAt(now);
    if (this.onlyNewAreDue) {
      if (now < this.scheduledFrom) return this.claimNew(counts, perTargetLimit, batch, now, claimedAt, into);
      // A delivery that is not new is due: query until none is left (the new ones are among the rows).
      this.forgetNewUnclaimed();
    }
    const saturated = [...counts].filter(([, n]) => n >= perTargetLimit).map(([key]) => key);
    let claimed = 0;
    while (claimed < batch) {
      const asked = Math.min(batch - claimed, 100);
      const rows = this.repo.claimDue(now, saturated, asked, claimedAt);
      // Every due delivery of every target is claimed: from now on, the new ones are all there are.
      if (rows.length < asked && saturated.length === 0) this.onlyNewAreDue = true;
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
        into.push(row);
        claimed++;
      }
      if (overflow.length > 0) {
        this.repo.release(overflow, claimedAt);
        this.onlyNewAreDue = false;
      }
    }
    // Read at the same `now` as the claims: what falls due after it, nothing in between.
    this.scheduledFrom = this.repo.nextDueAfter(now) ?? Infinity;
    return claimed >= batch;
  }

  /** Claims new deliveries by id, oldest first per target, within the same limits. */
  private claimNew(counts: Map<string, number>, perTargetLimit: number, batch: number, now: number, claimedAt: string, into: DeliveryRow[]): boolean {
    let claimed = 0;
    let full = false;
    for (const [key, queue] of this.newUnclaimed) {
      if (claimed >= batch) {
        full = true;
        break;
      }
      let room = Math.min(batch - claimed, perTargetLimit - (counts.get(key) ?? 0));
      while (room > 0 && queue.length > 0) {
        const id = queue.take()!;
        this.newUnclaimedCount--;
        // Untried since it was queued, the usual case: only its payload needs reading back.
        const payload = this.repo.claimUntried(id, now, claimedAt);
        if (payload !== undefined) {
          into.push(queue.untried(payload, claimedAt));
          room--;
          claimed++;
          continue;
        }
        // Not pending any more (claimed, cancelled, never committed), or tried meanwhile.
        const c = this.repo.claimOne(id, now, claimedAt);
        if (c === undefined) continue;
        const o = queue.origin();
        into.push({
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
          updated_at: claimedAt,
          webhook_id: c.webhook_id,
        });
        room--;
        claimed++;
      }
      if (queue.length === 0) this.newUnclaimed.delete(key);
    }
    return full;
  }

  /** Claimed ahead but never sent (the worker stops): back to pending, so no attempt is recorded for them. */
  release(ids: string[]): void {
    this.repo.transaction(() => this.repo.release(ids, this.isoAt(this.clock.now())));
  }

  /** Cancels the pending deliveries of a target that is gone (insert what was enqueued first). */
  cancelTarget(kind: string, id: string): number {
    const key = `${kind}:${id}`;
    const queue = this.newUnclaimed.get(key);
    if (queue) {
      this.newUnclaimedCount -= queue.length;
      this.newUnclaimed.delete(key);
    }
    return this.repo.cancelForTarget(kind, id, this.isoAt(this.clock.now()));
  }
}
