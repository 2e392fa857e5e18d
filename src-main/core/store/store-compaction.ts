import type { Logger } from 'pino';
import type { Checkpointer } from './checkpointer';
import { AUTO_VACUUM_INCREMENTAL, type Db } from './database';
import { isStoreFull } from './store-space';

export interface StoreCompactionOptions {
  logger: Logger;
  /** How long (wall time) the store must see no write before it is compacted. */
  idleMs: number;
  /** How often it looks (default 1 s, at most `idleMs`). */
  intervalMs?: number;
  /** The most freeing one turn does before it lets the event loop go (default 20 ms). */
  budgetMs?: number;
  /** The checkpoint thread of a store in a data directory (none in memory: no WAL). */
  checkpointer?: Checkpointer;
}

/** Pages one incremental vacuum step gives back (1 MiB): a few milliseconds' work. */
const PAGES_PER_STEP = 256;

/**
 * Gives disk back once the store is idle: the pages that pruning and deletions freed are returned to
 * the file system (incremental vacuum: the store is in auto_vacuum INCREMENTAL mode, see database.ts),
 * then the WAL is copied into the database and emptied (a TRUNCATE checkpoint, on the checkpoint
 * thread). Under load the WAL grows to a round of the checkpointer (about 40 MiB) and is cut back to
 * `journal_size_limit` (4 MiB) each time it starts over; idle, it goes to nothing.
 *
 * Idle means no write for `idleMs`; freeing runs in steps of at most `budgetMs`, a step at a time, so
 * a write arriving meanwhile waits at most one step. Freeing moves pages inside the file; a crash in
 * the middle leaves the store as consistent as any other interrupted write.
 */
export class StoreCompaction {
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly changes;
  private lastChanges = -1;
  private lastChangeAt = performance.now();
  /** `total_changes()` when the store was last left compact: no write since, nothing to do. */
  private compactAt = -1;
  private busy = false;
  private failed = false;

  constructor(
    private readonly db: Db,
    private readonly options: StoreCompactionOptions,
  ) {
    this.changes = db.prepare('SELECT total_changes()').pluck();
    this.timer = setInterval(() => void this.turn(), Math.min(options.intervalMs ?? 1000, options.idleMs));
    this.timer.unref();
  }

  private total(): number {
    return this.changes.get() as number;
  }

  private async turn(): Promise<void> {
    if (this.busy || this.failed || !this.db.open || this.db.inTransaction) return;
    const now = this.total();
    if (now !== this.lastChanges) {
      this.lastChanges = now;
      this.lastChangeAt = performance.now();
      return;
    }
    if (now === this.compactAt || performance.now() - this.lastChangeAt < this.options.idleMs) return;
    this.busy = true;
    try {
      if (await this.compact()) this.compactAt = this.total();
    } finally {
      this.lastChanges = this.total();
      this.busy = false;
    }
  }

  /**
   * Frees pages (a step per turn of the event loop, while no other write comes), then truncates the WAL.
   * True when the store was left compact; false when a write came (the next idle moment goes on).
   */
  async compact(): Promise<boolean> {
    const budget = this.options.budgetMs ?? 20;
    try {
      // A store whose mode could not be changed (see database.ts) reuses its free pages but cannot return them.
      const incremental = this.db.pragma('auto_vacuum', { simple: true }) === AUTO_VACUUM_INCREMENTAL;
      while (incremental) {
        const free = this.db.pragma('freelist_count', { simple: true }) as number;
        if (free === 0) break;
        const started = performance.now();
        do this.db.pragma(`incremental_vacuum(${PAGES_PER_STEP})`);
        while (performance.now() - started < budget && (this.db.pragma('freelist_count', { simple: true }) as number) > 0);
        const before = this.total();
        await new Promise((resolve) => setTimeout(resolve, 0));
        // Someone wrote meanwhile: the store is not idle any more.
        if (this.total() !== before || !this.db.open) return false;
      }
      return this.options.checkpointer === undefined ? true : await this.options.checkpointer.truncate();
    } catch (err) {
      if (isStoreFull(err)) return false;
      this.failed = true;
      this.options.logger.warn({ err }, 'store compaction stopped: freed pages stay in the file (reused by new mail)');
      return false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
