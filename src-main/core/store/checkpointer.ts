import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { type Db, WAL_AUTOCHECKPOINT_PAGES } from './database';

export interface CheckpointerOptions {
  /** better-sqlite3's native module, as the main connection was opened with. */
  nativeBinding?: string;
  logger: Logger;
  /** How often the thread copies what the WAL holds into the database file (default 50 ms). */
  intervalMs?: number;
  /**
   * WAL pages after which the main connection ends a round (default `WAL_AUTOCHECKPOINT_PAGES`, about
   * 40 MiB): it copies the little the thread has not copied yet, and the next commit then writes the
   * WAL from its start again.
   */
  roundPages?: number;
}

// The thread's whole program. It runs from source (not a file of the build) so that the same code
// serves `mailyard serve`, the desktop app and the tests; it loads better-sqlite3 from the path the
// main thread resolved, with the same native binding.
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
parentPort.on('message', (message) => {
  if (message === 'checkpoint') {
    try {
      // PASSIVE: copies what no reader still needs; never waits for the writer, never blocks it.
      const [row] = db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ log: row.log, checkpointed: row.checkpointed });
    } catch (err) {
      parentPort.postMessage({ error: String((err && err.message) || err) });
    }
    return;
  }
  if (message === 'truncate') {
    try {
      // TRUNCATE: copies everything, then empties the WAL file; gives up at once (busy) if a writer or reader is in the way.
      const [row] = db.pragma('wal_checkpoint(TRUNCATE)');
      parentPort.postMessage({ truncated: row.busy === 0 });
    } catch (err) {
      parentPort.postMessage({ truncated: false, error: String((err && err.message) || err) });
    }
    return;
  }
  if (message === 'stop') {
    db.close();
    parentPort.postMessage('stopped');
    parentPort.close();
  }
});
parentPort.postMessage('ready');
`;

type Reply = { log: number; checkpointed: number } | { error: string } | { truncated: boolean; error?: string } | 'ready' | 'stopped';

/**
 * Copies the write-ahead log into the database file on a thread of its own, with its own connection,
 * instead of inside a commit on the main thread: SQLite's automatic checkpoint stopped the event loop
 * for tens of milliseconds every 10,000 pages (reading each page back from the WAL, writing it into
 * the database, two fsyncs), about a tenth of the dispatcher's time under load.
 *
 * A checkpoint from another connection can never let the WAL start over while commits keep coming
 * (SQLite restarts it only when a commit finds every frame copied), so every `roundPages` the main
 * connection runs one passive checkpoint itself: the thread has copied all but the last few
 * dozen milliseconds of commits, so it is short, and the next commit writes the WAL from its start.
 *
 * While the thread runs, the main connection's automatic checkpoints are off. If the thread cannot
 * start or fails, they are turned back on. Nothing is lost either way: the WAL keeps every commit
 * until some checkpoint copies it, and a checkpoint cut short by a crash is redone by the next.
 */
export class Checkpointer {
  private readonly timer: ReturnType<typeof setInterval>;
  private asked = false;
  /** The main connection's `total_changes()` when the thread was last asked: unchanged, nothing to copy. */
  private changesAsked = -1;
  private stopping = false;
  private failed = false;
  /** Set once a failed checkpoint is logged, until one succeeds: a lasting failure is logged once. */
  private warned = false;
  /** Told the outcome of the truncating checkpoint under way. */
  private truncating: ((done: boolean) => void) | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly roundPages: number,
    intervalMs: number,
  ) {
    db.pragma('wal_autocheckpoint = 0');
    const totalChanges = db.prepare('SELECT total_changes()').pluck();
    worker.on('message', (m: Reply) => this.onReply(m));
    worker.on('error', (err) => this.fail('the checkpoint thread failed', err));
    worker.on('exit', () => {
      if (!this.stopping) this.fail('the checkpoint thread stopped');
    });
    this.timer = setInterval(() => {
      if (this.asked || this.failed || !db.open) return;
      // An idle store does not wake the thread.
      const changes = totalChanges.get() as number;
      if (changes === this.changesAsked) return;
      this.changesAsked = changes;
      this.asked = true;
      worker.postMessage('checkpoint');
    }, intervalMs);
    // Neither holds the process open: a checkpoint cut short is as safe as a crash, which WAL survives.
    this.timer.unref();
    worker.unref();
  }

  /** Starts the thread for the database file `file` that `db` has open; undefined when it cannot run. */
  static async start(db: Db, file: string, options: CheckpointerOptions): Promise<Checkpointer | undefined> {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { modulePath: createRequire(import.meta.url).resolve('better-sqlite3'), file, nativeBinding: options.nativeBinding },
      });
    } catch (err) {
      options.logger.warn({ err }, 'checkpoints stay on the main thread: the checkpoint thread could not start');
      return undefined;
    }
    const started = await new Promise<boolean>((resolve) => {
      worker.once('message', (m) => resolve(m === 'ready'));
      worker.once('error', (err) => {
        options.logger.warn({ err }, 'checkpoints stay on the main thread: the checkpoint thread could not start');
        resolve(false);
      });
      worker.once('exit', () => resolve(false));
    });
    if (!started) {
      await worker.terminate();
      return undefined;
    }
    return new Checkpointer(worker, db, options.logger, options.roundPages ?? WAL_AUTOCHECKPOINT_PAGES, options.intervalMs ?? 50);
  }

  private onReply(m: Reply): void {
    if (typeof m !== 'object') return;
    if ('truncated' in m) {
      const resolve = this.truncating;
      this.truncating = undefined;
      resolve?.(m.truncated);
      return;
    }
    this.asked = false;
    if ('error' in m) {
      if (!this.warned) this.logger.warn({ reason: m.error }, 'a background checkpoint failed; it is retried until one succeeds');
      this.warned = true;
      // Asked again at the next interval, whether or not anything changes meanwhile.
      this.changesAsked = -1;
      return;
    }
    this.warned = false;
    // The WAL is long enough to start over: copy what is left from here, so that the next commit
    // finds every frame copied. Not inside a transaction (there is none between event-loop turns,
    // but a checkpoint there would fail).
    if (m.log >= this.roundPages && this.db.open && !this.db.inTransaction && !this.stopping) {
      try {
        this.db.pragma('wal_checkpoint(PASSIVE)');
      } catch (err) {
        this.logger.warn({ err }, 'a checkpoint failed; the next one retries');
      }
    }
  }

  private fail(message: string, err?: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.truncating?.(false);
    this.truncating = undefined;
    clearInterval(this.timer);
    this.logger.warn({ err }, `${message}; checkpoints are back on the main thread`);
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  }

  /**
   * Copies everything the WAL holds into the database and empties the WAL file, on the thread (the
   * main thread goes on). Resolves false when it could not (a write or a read was under way, the
   * thread is not running): the next idle moment tries again.
   */
  truncate(): Promise<boolean> {
    if (this.failed || this.stopping || this.truncating !== undefined) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.truncating = resolve;
      this.worker.postMessage('truncate');
    });
  }

  /** Closes the thread's connection (before the main one, which then checkpoints what is left as it closes). */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.timer);
    this.truncating?.(false);
    this.truncating = undefined;
    if (!this.failed) {
      // Held open until the thread has closed its connection (it is unref'd while it runs).
      this.worker.ref();
      const stopped = new Promise<void>((resolve) => {
        this.worker.on('message', (m) => m === 'stopped' && resolve());
        this.worker.once('exit', () => resolve());
      });
      this.worker.postMessage('stop');
      await stopped;
    }
    await this.worker.terminate();
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  }
}
