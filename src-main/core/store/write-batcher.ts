import type { Db } from './database';
import type { StoreSpace } from './store-space';

interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Under load, a commit waits this long for more writes to join it. */
export const GROUP_WINDOW_MS = 1;
/** The store counts as under load while its last commit ended less than this long ago. */
const BUSY_WITHIN_MS = 2;
/** A group this large is committed without waiting out the window. */
const GROUP_LIMIT = 256;

/**
 * Group commit: queued writes are committed in one transaction, and one failing write does not undo
 * the others. Every caller's promise settles after the commit, so an answer that says "queued" means
 * the rows are in the store.
 *
 * A group first runs without savepoints: a savepoint copies every page its write touches first, a
 * quarter of the cost of storing a small message, for a failure that almost never comes. When a write
 * fails, the whole group is rolled back and run again, each write in its own savepoint, so only the
 * failing one is left out. A write may therefore run twice: it must change nothing but the store, or
 * start its own results afresh each time it runs.
 *
 * When the store is idle, a write is committed at the end of the current turn of the event loop (no
 * added wait). Under load (the last commit ended under BUSY_WITHIN_MS ago), the commit waits
 * GROUP_WINDOW_MS for more writes to join it: most of a commit's cost is rewriting the same index
 * pages, whatever the number of rows, and 16 SMTP connections gave groups of 2 or 3 per turn but 12
 * per millisecond, for about a tenth more small messages per second.
 */
export class WriteBatcher {
  private queue: Pending[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private immediate: ReturnType<typeof setImmediate> | undefined;
  private lastCommitEnd = -Infinity;
  /** One transaction wrapper for the group and its savepoints (better-sqlite3 builds one per `db.transaction`). */
  private readonly transaction: (fn: () => unknown) => unknown;

  constructor(
    db: Db,
    /** Told when a commit fails for a full disk, and when one succeeds again. */
    private readonly space?: Pick<StoreSpace, 'failed' | 'wrote'>,
  ) {
    this.transaction = db.transaction((fn: () => unknown) => fn());
  }

  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (this.immediate !== undefined) return;
      if (this.timer !== undefined && this.queue.length < GROUP_LIMIT) return;
      clearTimeout(this.timer);
      this.timer = undefined;
      const busy = this.queue.length < GROUP_LIMIT && performance.now() - this.lastCommitEnd < BUSY_WITHIN_MS;
      if (busy) this.timer = setTimeout(() => this.flush(), GROUP_WINDOW_MS);
      else this.immediate = setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (also on shutdown). */
  flush(): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      this.commit(batch);
    } finally {
      this.lastCommitEnd = performance.now();
    }
  }

  private commit(batch: Pending[]): void {
    let values: unknown[] | undefined;
    try {
      values = this.transaction(() => batch.map((p) => p.write())) as unknown[];
    } catch (error) {
      // Rolled back. Alone, the write has failed for good; in a group, the others are run again without it.
      if (batch.length === 1) {
        this.space?.failed(error);
        batch[0]!.reject(error);
        return;
      }
    }
    if (values) {
      this.space?.wrote();
      const done = values;
      for (const [i, p] of batch.entries()) p.resolve(done[i]);
      return;
    }
    this.commitIsolated(batch);
  }

  /** Each write in its own savepoint of one transaction: a failing one is rolled back alone. */
  private commitIsolated(batch: Pending[]): void {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.transaction(() => {
        for (const p of batch) {
          try {
            // Nested: a savepoint of the group's transaction.
            outcomes.push({ ok: true, value: this.transaction(p.write) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The commit itself failed: nothing of the batch is stored.
      this.space?.failed(error);
      for (const p of batch) p.reject(error);
      return;
    }
    this.space?.wrote();
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.error);
    });
  }
}
