import type { Db } from './database';

interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: writes queued during one turn of the event loop are committed in one transaction,
 * each in its own savepoint (one failing write does not undo the others). Every caller's promise
 * settles after the commit, so an answer that says "queued" means the rows are in the store.
 */
export class WriteBatcher {
  private queue: Pending[] = [];
  private scheduled: ReturnType<typeof setImmediate> | undefined;

  constructor(private readonly db: Db) {}

  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (also on shutdown). */
  flush(): void {
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const p of batch) {
          try {
            outcomes.push({ ok: true, value: this.db.transaction(p.write)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      // The commit itself failed: nothing of the batch is stored.
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.error);
    });
  }
}
