import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { StoreUsage } from '../../../../src-shared/schemas/store';
import { type EmulatorClock, isoTimestamp } from '../../clock';
import type { CopyBound, RetentionRepo } from '../../store/retention.repo';
import { isStoreFull } from '../../store/store-space';
import type { RetentionLimits } from './limits';

/** Where the limits set on the Settings screen are kept (a given flag or variable wins over them at start). */
export const RETENTION_LIMITS_KEY = 'retention_limits';

/**
 * Copies removed in one transaction, with everything that is theirs (the search indexes' rows are
 * most of the work): few enough that a message arriving meanwhile waits only for a short commit
 * (test/bench/prune.bench.ts measures intake while sweeps run).
 */
export const PRUNE_BATCH = 100;
/**
 * The share of the main thread a long sweep takes at most: after each batch the pruner pauses three
 * times as long as it took. At half (a pause as long as the batch), intake into a store of a million
 * copies, whose search index makes each batch long, went at half its rate (docs/benchmarks.md).
 */
const PRUNE_SHARE = 1 / 4;

export interface RetentionDeps {
  repo: RetentionRepo;
  clock: EmulatorClock;
  logger: Logger;
  limits: RetentionLimits;
  /** Keeps limits set at run time for the next start. */
  save: (limits: RetentionLimits) => void;
  /** How often (wall time) the limits are checked. */
  intervalMs: number;
  /** The main connection's count of changes: unchanged since the last check, no copy came. */
  totalChanges: () => number;
  /** The database's files on disk (the WAL included), or null in memory. */
  fileBytes: () => { database: number; wal: number } | null;
  /** Told after a sweep that removed anything. */
  pruned: (usage: StoreUsage['pruned']) => void;
}

/**
 * Keeps the store within its limits: the newest `maxMessages` copies, none older than `maxAgeMs` on
 * the emulator clock (0: no limit). The oldest go first, with everything that is theirs (events,
 * scheduled events, tags, tracking tokens and links, relays, search index rows, their send's content
 * and deliveries once no copy of the send is left); the webhook deliveries, the catchers' requests
 * and the mail received (inbound routes' posts, IMAP messages) are held to the same limits. A batch at a time, the event loop turning between batches.
 */
export class RetentionService {
  private readonly timer: ReturnType<typeof setInterval>;
  private sweeping: Promise<void> | undefined;
  private changesSeen = -1;
  private limitsNow: RetentionLimits;
  private totals = { copies: 0, deliveries: 0, catcher_requests: 0, inbound_messages: 0, last_at: null as string | null };
  private stopped = false;

  constructor(private readonly deps: RetentionDeps) {
    this.limitsNow = deps.limits;
    this.timer = setInterval(() => void this.sweep(), deps.intervalMs);
    this.timer.unref();
  }

  limits(): RetentionLimits {
    return { ...this.limitsNow };
  }

  /** New limits, in force at once (a sweep starts) and kept for the next start. */
  async setLimits(limits: RetentionLimits): Promise<RetentionLimits> {
    this.limitsNow = { ...limits };
    this.deps.save(this.limitsNow);
    this.changesSeen = -1;
    // A sweep under way read the old limits: one more after it.
    await this.sweeping;
    await this.sweep();
    return this.limits();
  }

  /** The store's size, the limits in force and what was pruned since the start. */
  usage(): StoreUsage {
    const { bytes, freeBytes } = this.deps.repo.size();
    const files = this.deps.fileBytes();
    return {
      messages: this.deps.repo.copyCount(),
      database_bytes: files?.database ?? bytes,
      wal_bytes: files?.wal ?? 0,
      free_bytes: freeBytes,
      max_messages: this.limitsNow.maxMessages,
      max_age_ms: this.limitsNow.maxAgeMs,
      pruned: { ...this.totals },
    };
  }

  /** Removes what is beyond the limits; one sweep at a time (a second caller waits for the one under way). */
  sweep(): Promise<void> {
    if (this.sweeping === undefined && !this.stopped) {
      this.sweeping = this.prune()
        .catch((err) => {
          if (!isStoreFull(err)) this.deps.logger.warn({ err }, 'pruning failed; the next check tries again');
        })
        .finally(() => {
          this.sweeping = undefined;
        });
    }
    return this.sweeping ?? Promise.resolve();
  }

  private async prune(): Promise<void> {
    const { repo } = this.deps;
    const { maxMessages, maxAgeMs } = this.limitsNow;
    if (maxMessages === 0 && maxAgeMs === 0) return;
    const ageCut = maxAgeMs > 0 ? this.deps.clock.now() - maxAgeMs : 0;
    let copies = 0;
    let deliveries = 0;
    let requests = 0;
    let received = 0;
    // Where the copies beyond the limit end, counted once and pruned up to in batches; counted again
    // once reached (copies may have come meanwhile). Counting reads `maxMessages` entries of an index.
    let countBound: CopyBound | undefined;
    let recount = true;
    for (;;) {
      const changes = this.deps.totalChanges();
      // Only after something changed since the store was last found within its limits.
      const counting = maxMessages > 0 && recount && changes !== this.changesSeen;
      if (counting) countBound = repo.copiesBeyond(maxMessages);
      const keep = counting ? maxMessages : 0;
      const batchStarted = performance.now();
      const bound =
        ageCut > 0 && (countBound === undefined || countBound.createdMs < ageCut) ? { createdMs: ageCut - 1, key: Number.MAX_SAFE_INTEGER } : countBound;
      const batch = bound === undefined ? undefined : repo.pruneCopies(bound, PRUNE_BATCH);
      const d = repo.pruneDeliveries(keep, ageCut, PRUNE_BATCH);
      const r = repo.pruneCatcherRequests(keep, ageCut > 0 ? isoTimestamp(ageCut) : null, PRUNE_BATCH);
      const m = repo.pruneReceived(keep, ageCut, PRUNE_BATCH);
      copies += batch?.copies ?? 0;
      deliveries += (batch?.deliveries ?? 0) + d;
      requests += r;
      received += m;
      // The totals follow each batch (the Settings screen reads them while a long sweep goes on).
      this.addToTotals({ copies: batch?.copies ?? 0, deliveries: (batch?.deliveries ?? 0) + d, catcher_requests: r, inbound_messages: m });
      if ((batch?.copies ?? 0) === 0 && d === 0 && r === 0 && m === 0) {
        if (!recount) {
          recount = true;
          continue;
        }
        // Within the limits as of these changes.
        this.changesSeen = changes;
        break;
      }
      recount = (batch?.copies ?? 0) < PRUNE_BATCH;
      if (this.stopped) break;
      // Intake and the workers run between batches, for most of the time (PRUNE_SHARE).
      await sleep(Math.max(1, ((performance.now() - batchStarted) * (1 - PRUNE_SHARE)) / PRUNE_SHARE));
    }
    if (copies + deliveries + requests + received === 0) return;
    this.deps.logger.info({ copies, deliveries, catcherRequests: requests, inboundMessages: received }, 'pruned the oldest mail beyond the retention limits');
    this.deps.pruned({ ...this.totals });
  }

  private addToTotals(batch: Omit<StoreUsage['pruned'], 'last_at'>): void {
    if (batch.copies + batch.deliveries + batch.catcher_requests + batch.inbound_messages === 0) return;
    const t = this.totals;
    this.totals = {
      copies: t.copies + batch.copies,
      deliveries: t.deliveries + batch.deliveries,
      catcher_requests: t.catcher_requests + batch.catcher_requests,
      inbound_messages: t.inbound_messages + batch.inbound_messages,
      last_at: isoTimestamp(this.deps.clock.now()),
    };
  }

  /** Stops the checks; a sweep under way ends after its batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.sweeping;
  }
}
