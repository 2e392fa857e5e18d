import type { Db } from './database';
import type { StoreSpace } from './store-space';

interface Pending {
  write: () => unknown;
  /** The bytes of message content it stores (see GROUP_BYTES). */
  bytes: number;
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
 * A group takes writes up to this many bytes of message content (at least one write); the rest are
 * committed in the next turn of the event loop. Storing content costs SQLite about 10 ms a MB here,
 * and 16 messages of 24 MB arriving together made groups that held the event loop over a second
 * (health answered after 2 s): a group of small messages stays whole, a large message commits alone.
 */
export const GROUP_BYTES = 8 * 1024 * 1024;

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

  /** Queues `write` for the next group commit; `bytes` is how much message content it stores (GROUP_BYTES). */
  run<T>(write: () => T, bytes = 0): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, bytes, resolve: resolve as (value: unknown) => void, reject });
      if (this.immediate !== undefined) return;
      if (this.timer !== undefined && this.queue.length < GROUP_LIMIT) return;
      clearTimeout(this.timer);
      this.timer = undefined;
      const busy = this.queue.length < GROUP_LIMIT && performance.now() - this.lastCommitEnd < BUSY_WITHIN_MS;
      if (busy) this.timer = setTimeout(() => this.flush(false), GROUP_WINDOW_MS);
      else this.immediate = setImmediate(() => this.flush(false));
    });
  }

  /**
   * Commits what is queued now (also on shutdown), a group of at most GROUP_BYTES of content at a time:
   * `all` commits every group before it returns (shutdown, and a wipe that must see every write in);
   * otherwise a group is committed and the rest wait for the next turn of the event loop.
   */
  flush(all = true): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    do {
      const batch = this.takeGroup();
      if (batch.length === 0) return;
      try {
        this.commit(batch);
      } finally {
        this.lastCommitEnd = performance.now();
      }
    } while (all);
    if (this.queue.length > 0) this.immediate = setImmediate(() => this.flush(false));
  }

  /** The writes of the next group: queued first to last, up to GROUP_BYTES of content (at least one). */
  private takeGroup(): Pending[] {
    let bytes = 0;
    let n = 0;
    while (n < this.queue.length && (n === 0 || bytes + this.queue[n]!.bytes <= GROUP_BYTES)) bytes += this.queue[n++]!.bytes;
    return this.queue.splice(0, n);
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
