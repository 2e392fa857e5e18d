import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { DerivedText } from '../../store/search-index.repo';
import { composeMessage } from '../email/compose';
import { deriveTexts, type TextJob } from '../search/derive-text';

/**
 * The CPU-heavy work of taking mail in, done off the main thread when it can be: composing a send's
 * MIME message (a quarter of a send's cost on the main thread) and deriving the search index's text of
 * stored copies. The main thread goes on answering requests while it runs, so sends and the SMTP sink
 * use both cores of a two-core machine.
 */
export interface MailWork {
  compose: typeof composeMessage;
  derive(job: TextJob): Promise<DerivedText[]>;
  /**
   * Starts the thread now rather than on first use; resolves once it takes requests (true), or with
   * false when the work is done on the main thread (no thread program, or it could not start).
   */
  warm(): Promise<boolean>;
  close(): Promise<void>;
}

/** The built program's file name (electron-vite and build/library.mjs emit it into out/main/). */
export const MAIL_WORKER_FILE = 'mail-worker.js';

/**
 * Where the thread's program is: the built file beside the bundle that runs (out/main/, or its parent
 * from out/main/chunks/), or the TypeScript source when running from source (the tests, the
 * benchmarks), loaded through jiti. Null when neither is there: the work is then done on the main thread.
 */
export function findMailWorker(here: string): { file: string; execArgv: string[] } | null {
  for (const file of [join(here, MAIL_WORKER_FILE), join(here, '..', MAIL_WORKER_FILE)]) {
    if (existsSync(file)) return { file, execArgv: [] };
  }
  const source = join(here, 'worker.ts');
  if (existsSync(source)) {
    try {
      // jiti/register is ESM-only (no `require` export): found by its package's folder.
      const jiti = dirname(createRequire(join(here, 'noop.js')).resolve('jiti/package.json'));
      return { file: source, execArgv: ['--import', pathToFileURL(join(jiti, 'lib/jiti-register.mjs')).href] };
    } catch {
      return null;
    }
  }
  return null;
}

/** The mail work for this build: on its thread when its program is found (see findMailWorker), else inline. */
export function mailWork(logger: Logger): MailWork {
  const program = findMailWorker(import.meta.dirname);
  return program === null ? inlineMailWork() : new MailThread(program, logger);
}

/** On the main thread: the same work, between other turns of the event loop. */
export const inlineMailWork = (): MailWork => ({ compose: composeMessage, derive: deriveTexts, warm: async () => false, close: async () => {} });

type Reply = { id: number; result: unknown } | { id: number; error: string } | { ready: true };

/**
 * The thread, started on first use. Until it has loaded (tens of milliseconds built, longer from
 * source), and if it cannot start or dies, the work is done inline: nothing ever waits for the thread.
 * A request it fails is done again on the main thread (a compose error then reaches the caller as
 * composing throws it).
 */
export class MailThread implements MailWork {
  private worker: Worker | null = null;
  /** The thread has loaded its program and takes requests. */
  private ready = false;
  private failed = false;
  private closed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (result: unknown) => void; reject: (e: Error) => void }>();
  /** Told whether the thread loaded (true) or was lost before it did (false); see warm. */
  private readonly loadWaiters: Array<(loaded: boolean) => void> = [];

  constructor(
    private readonly program: { file: string; execArgv: string[] },
    private readonly logger: Logger,
  ) {}

  compose: typeof composeMessage = async (body, options) => {
    const raw = await this.ask<Uint8Array>('compose', [body, options], () => composeMessage(body, options));
    return Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  };

  derive(job: TextJob): Promise<DerivedText[]> {
    return this.ask<DerivedText[]>('derive', [job], () => deriveTexts(job));
  }

  warm(): Promise<boolean> {
    if (this.started() === null) return Promise.resolve(false);
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => this.loadWaiters.push(resolve));
  }

  private ask<T>(kind: 'compose' | 'derive', args: unknown[], inline: () => Promise<T>): Promise<T> {
    const worker = this.started();
    if (worker === null || !this.ready) return this.closed && kind === 'derive' ? Promise.resolve([] as T) : inline();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (result: unknown) => void, reject });
      worker.postMessage({ id, kind, args });
    }).catch((err: Error) => {
      if (this.closed && kind === 'derive') return [] as T;
      if (!this.failed) this.logger.debug({ err, kind }, 'mail thread refused a request: done on the main thread');
      return inline();
    });
  }

  private started(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    try {
      const worker = new Worker(this.program.file, { execArgv: this.program.execArgv });
      worker.unref();
      worker.on('message', (reply: Reply) => {
        if ('ready' in reply) {
          this.ready = true;
          for (const told of this.loadWaiters.splice(0)) told(true);
          return;
        }
        const w = this.waiting.get(reply.id);
        if (!w) return;
        this.waiting.delete(reply.id);
        if ('error' in reply) w.reject(new Error(reply.error));
        else w.resolve(reply.result);
      });
      worker.on('error', (err) => this.lost(err));
      worker.on('exit', (code) => {
        if (this.worker === worker) this.lost(new Error(`mail thread exited (${code})`));
      });
      this.worker = worker;
    } catch (err) {
      this.lost(err instanceof Error ? err : new Error(String(err)));
    }
    return this.worker;
  }

  private lost(err: Error): void {
    if (!this.failed && !this.closed) this.logger.warn({ err }, 'mail thread stopped: composing and search indexing go on on the main thread');
    this.failed = true;
    this.ready = false;
    this.worker = null;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
    for (const told of this.loadWaiters.splice(0)) told(false);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.closed = true;
    this.failed = true;
    this.worker = null;
    for (const w of this.waiting.values()) w.reject(new Error('closed'));
    this.waiting.clear();
    for (const told of this.loadWaiters.splice(0)) told(false);
    if (worker) await worker.terminate();
  }
}
