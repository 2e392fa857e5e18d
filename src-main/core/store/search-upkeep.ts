import type { Logger } from 'pino';
import type { Db } from './database';
import { isStoreFull } from './store-space';

/** The search indexes (FTS5 tables) this keeps merged. */
export const SEARCH_INDEXES = ['message_search', 'message_addresses'] as const;

export interface SearchUpkeepOptions {
  logger: Logger;
  /** How often it looks whether the store is idle (default 1 s). */
  intervalMs?: number;
  /** The most merging one turn does before it lets the event loop go (default 20 ms). */
  budgetMs?: number;
}

/** Index pages one merge step reads: a few milliseconds' work. */
const PAGES_PER_STEP = 200;

/**
 * Merges the search indexes' segments while the store is idle. FTS5 writes each transaction's words
 * as a new segment and merges them only four at a time as writes come, so a store that received mail
 * one message at a time holds a dozen or more segments, and every search looks in each: a phrase
 * search at 100,000 messages took twice as long as in one merged index. With `usermerge` at 2 (set by
 * migration 0019) the merge leaves about one segment a level.
 *
 * A turn runs only when nothing was written since the last look (so a burst of sends is never slowed
 * by it) and stops after `budgetMs`, continuing at the next turn: the event loop is never held longer
 * than one step past the budget. Merging moves words between segments; it never changes what a search
 * finds, and a crash in the middle leaves the index as consistent as any other interrupted write.
 */
export class SearchUpkeep {
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly changes;
  private readonly merge;
  /** `total_changes()` at the last look: unchanged at the next one means the store was idle. */
  private seen = -1;
  /** `total_changes()` when the indexes were last found with nothing to merge. */
  private merged = -1;
  private failed = false;

  constructor(
    private readonly db: Db,
    private readonly options: SearchUpkeepOptions,
  ) {
    this.changes = db.prepare<[], { n: number }>('SELECT total_changes() AS n');
    this.merge = SEARCH_INDEXES.map((t) => db.prepare<[number]>(`INSERT INTO ${t} (${t}, rank) VALUES ('merge', ?)`));
    this.timer = setInterval(() => this.turn(), options.intervalMs ?? 1000);
    this.timer.unref();
  }

  private total(): number {
    return this.changes.get()!.n;
  }

  /** One look: merges when the store has been idle since the last look and something was written since the last merge. */
  private turn(): void {
    if (this.failed || !this.db.open || this.db.inTransaction) return;
    const now = this.total();
    const idle = now === this.seen;
    this.seen = now;
    if (idle && now !== this.merged) this.step(this.options.budgetMs ?? 20);
  }

  /**
   * Merges for at most `budgetMs` (at least one step). Returns true when no index has anything left
   * to merge. Public for the benchmark, which merges a filled store as an idle emulator would.
   */
  step(budgetMs: number): boolean {
    const started = performance.now();
    try {
      for (const merge of this.merge) {
        for (;;) {
          const before = this.total();
          merge.run(PAGES_PER_STEP);
          // FTS5's documented signal: a merge step that found no work changes fewer than 2 rows.
          if (this.total() - before < 2) break;
          if (performance.now() - started >= budgetMs) return false;
        }
      }
      this.merged = this.total();
      return true;
    } catch (err) {
      // A full disk passes: the next idle turn tries again. Otherwise a store that cannot merge still
      // searches; say so once and stop trying.
      if (isStoreFull(err)) return false;
      this.failed = true;
      this.options.logger.warn({ err }, 'search index upkeep stopped');
      return false;
    } finally {
      // Its own writes are not the store being busy.
      this.seen = this.total();
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
