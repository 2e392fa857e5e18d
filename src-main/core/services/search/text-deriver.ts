import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { DerivedText } from '../../store/search-index.repo';
import { deriveTexts, type TextJob } from './derive-text';

/** Derives the indexed text of copies (see deriveTexts): on a thread of its own when it can, else here. */
export interface TextDeriver {
  derive(job: TextJob): Promise<DerivedText[]>;
  close(): Promise<void>;
}

/** The built thread's file name (electron-vite and build/library.mjs emit it into out/main/). */
export const TEXT_WORKER_FILE = 'search-text-worker.js';

/**
 * Where the thread's program is: the built file beside the bundle that runs (out/main/, or its parent
 * from out/main/chunks/), or the TypeScript source when running from source (the tests, the
 * benchmarks), loaded through jiti. Null when neither is there: the text is then derived on the main
 * thread.
 */
export function findTextWorker(here: string): { file: string; execArgv: string[] } | null {
  for (const file of [join(here, TEXT_WORKER_FILE), join(here, '..', TEXT_WORKER_FILE)]) {
    if (existsSync(file)) return { file, execArgv: [] };
  }
  const source = join(here, 'text-worker.ts');
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

/** The deriver for this build: the thread when its program is found (see findTextWorker), else inline. */
export function textDeriver(logger: Logger): TextDeriver {
  const program = findTextWorker(import.meta.dirname);
  return program === null ? inlineDeriver() : new ThreadDeriver(program, logger);
}

/** On the main thread: the same work, between other turns of the event loop. */
export const inlineDeriver = (): TextDeriver => ({ derive: deriveTexts, close: async () => {} });

type Reply = { id: number; texts: DerivedText[] } | { id: number; error: string };

/**
 * The thread, started on first use. If it cannot start or dies, the work goes on inline: the index is
 * a convenience of reading, and a message is never left out of it.
 */
export class ThreadDeriver implements TextDeriver {
  private worker: Worker | null = null;
  private failed = false;
  private closed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (t: DerivedText[]) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly program: { file: string; execArgv: string[] },
    private readonly logger: Logger,
  ) {}

  derive(job: TextJob): Promise<DerivedText[]> {
    const worker = this.started();
    if (worker === null) return deriveTexts(job);
    const id = this.nextId++;
    return new Promise<DerivedText[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, job });
    }).catch((err: Error) => {
      if (this.closed) return [];
      this.logger.warn({ err }, 'search text thread failed a batch: deriving it on the main thread');
      return deriveTexts(job);
    });
  }

  private started(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    try {
      const worker = new Worker(this.program.file, { execArgv: this.program.execArgv });
      worker.unref();
      worker.on('message', (reply: Reply) => {
        const w = this.waiting.get(reply.id);
        if (!w) return;
        this.waiting.delete(reply.id);
        if ('error' in reply) w.reject(new Error(reply.error));
        else w.resolve(reply.texts);
      });
      worker.on('error', (err) => this.lost(err));
      worker.on('exit', (code) => {
        if (this.worker === worker) this.lost(new Error(`search text thread exited (${code})`));
      });
      this.worker = worker;
    } catch (err) {
      this.lost(err instanceof Error ? err : new Error(String(err)));
    }
    return this.worker;
  }

  private lost(err: Error): void {
    if (!this.failed) this.logger.warn({ err }, 'search text thread stopped: the search index is kept on the main thread');
    this.failed = true;
    this.worker = null;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failed = true;
    this.closed = true;
    for (const w of this.waiting.values()) w.reject(new Error('closed'));
    this.waiting.clear();
    if (worker) await worker.terminate();
  }
}
