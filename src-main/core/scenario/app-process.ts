import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';

export interface AppProcessOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  readyUrl?: string;
  timeoutMs: number;
  /** Each line the app writes, as it comes. */
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
}

/** How the app ended: its exit code, or the signal that ended it, or why it could not start. */
export type AppExit = { code: number | null; signal: NodeJS.Signals | null; spawnError?: string };

/** How long after the app's exit its remaining output is waited for. */
const OUTPUT_DRAIN_MS = 500;
/** Lines of stderr kept for the error of an app that failed. */
const STDERR_TAIL_LINES = 10;

/** The signal a shell's exit code above 128 reports (`137`: SIGKILL). */
function shellSignal(code: number | null): string | undefined {
  if (code === null || code <= 128) return undefined;
  return Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
}

/** "exited with code 1", "was ended by SIGKILL", "could not be started (spawn sh ENOENT)". */
export function describeExit(exit: AppExit): string {
  if (exit.spawnError !== undefined) return `could not be started (${exit.spawnError})`;
  if (exit.signal !== null) return `was ended by ${exit.signal}`;
  const signal = shellSignal(exit.code);
  return `exited with code ${exit.code}${signal ? ` (its shell's way of saying it was ended by ${signal})` : ''}`;
}

/** The app under test, as Playwright's webServer: started in a shell of its own process group, ready when readyUrl answers 2xx, stopped with its children. */
export class AppProcess {
  private readonly child: ChildProcess;
  private readonly exited: Promise<AppExit>;
  private exit: AppExit | undefined;
  private readonly stderrTail: string[] = [];

  constructor(private readonly opts: AppProcessOptions) {
    this.child = spawn(opts.command, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const streams = [this.read('stdout', this.child.stdout), this.read('stderr', this.child.stderr)];
    const drained = Promise.all(streams);
    this.exited = new Promise((resolve) => {
      const settle = (exit: AppExit) => {
        // Its last lines come in before its end is known, unless a process it left behind holds the pipes.
        void Promise.race([drained, new Promise((r) => setTimeout(r, OUTPUT_DRAIN_MS))]).then(() => {
          this.exit ??= exit;
          resolve(this.exit);
        });
      };
      this.child.once('exit', (code, signal) => settle({ code, signal }));
      this.child.once('error', (err) => settle({ code: null, signal: null, spawnError: err.message }));
    });
  }

  private read(name: 'stdout' | 'stderr', stream: NodeJS.ReadableStream | null): Promise<void> {
    if (!stream) return Promise.resolve();
    let rest = '';
    const emit = (line: string) => {
      if (name === 'stderr') {
        this.stderrTail.push(line);
        if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
      }
      this.opts.onLine?.(name, line);
    };
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (rest + chunk).split(/\r?\n/);
      rest = lines.pop() ?? '';
      lines.forEach(emit);
    });
    return new Promise((resolve) =>
      stream.once('end', () => {
        if (rest !== '') emit(rest);
        resolve();
      }),
    );
  }

  /** How it ended, once it has (undefined while it runs). */
  get exitedWith(): AppExit | undefined {
    return this.exit;
  }

  /** Resolves with how it ended, whenever that is. */
  whenExited(): Promise<AppExit> {
    return this.exited;
  }

  /** Its last lines of stderr, for the error of a failed app. */
  lastStderr(): string[] {
    return [...this.stderrTail];
  }

  /** Resolves once ready; throws (saying how the app ended) when it exits first or the timeout passes. */
  async ready(isStopped: () => boolean): Promise<void> {
    const deadline = Date.now() + this.opts.timeoutMs;
    const url = this.opts.readyUrl;
    while (!isStopped()) {
      if (this.exit !== undefined) throw new AppFailure(`the app ${describeExit(this.exit)} before it was ready`, this);
      if (!url) return;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
        await res.body?.cancel();
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new AppFailure(`the app was not ready at ${url} within ${this.opts.timeoutMs} ms`, this);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stops it and its children: SIGTERM to its group, SIGKILL after 5 s. */
  async stop(): Promise<void> {
    if (this.exit !== undefined || this.child.pid === undefined) return;
    const signal = (sig: NodeJS.Signals) => {
      try {
        process.kill(-this.child.pid!, sig);
      } catch {
        // already gone
      }
    };
    signal('SIGTERM');
    const killer = setTimeout(() => signal('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(killer);
  }
}

/** The app failed the run: the message says how, with the app's last stderr lines. */
export class AppFailure extends Error {
  constructor(what: string, app: AppProcess) {
    const stderr = app.lastStderr();
    super(stderr.length > 0 ? `${what}; its last lines of stderr:\n${stderr.join('\n')}` : `${what} (it wrote nothing to stderr)`);
    this.name = 'AppFailure';
  }
}
