import { spawn, type ChildProcess } from 'node:child_process';

export interface AppProcessOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  readyUrl?: string;
  timeoutMs: number;
  /** Each line the app writes (stdout and stderr), for progress and the error of a failed start. */
  onLine?: (line: string) => void;
}

/** The app under test, as Playwright's webServer: started in a shell of its own process group, ready when readyUrl answers 2xx, stopped with its children. */
export class AppProcess {
  private readonly child: ChildProcess;
  private exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private readonly tail: string[] = [];

  constructor(private readonly opts: AppProcessOptions) {
    this.child = spawn(opts.command, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code) => {
        this.exitCode = code;
        resolve(code);
      });
      this.child.once('error', (err) => {
        this.tail.push(String(err));
        this.exitCode = -1;
        resolve(-1);
      });
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      let rest = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) {
          this.tail.push(line);
          if (this.tail.length > 20) this.tail.shift();
          opts.onLine?.(line);
        }
      });
    }
  }

  /** Whether it has exited (and how). */
  get exitedWith(): number | null | undefined {
    return this.exitCode;
  }

  /** Its last lines of output, for an error message. */
  lastLines(): string {
    return this.tail.slice(-5).join('\n');
  }

  /** Resolves once ready; throws (with the app's last lines) when it exits first or the timeout passes. */
  async ready(isStopped: () => boolean): Promise<void> {
    const deadline = Date.now() + this.opts.timeoutMs;
    const url = this.opts.readyUrl;
    while (!isStopped()) {
      if (this.exitCode !== undefined) throw new Error(`the app exited (code ${this.exitCode}) before it was ready${this.tail.length ? `: ${this.lastLines()}` : ''}`);
      if (!url) return;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
        await res.body?.cancel();
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the app was not ready at ${url} within ${this.opts.timeoutMs} ms${this.tail.length ? `: ${this.lastLines()}` : ''}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stops it and its children: SIGTERM to its group, SIGKILL after 5 s. */
  async stop(): Promise<void> {
    if (this.exitCode !== undefined || this.child.pid === undefined) return;
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
