import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Logger } from 'pino';
import type { SpamRule, SpamVerdict } from '../../../src-shared/schemas/checks';

/** Where Debian (and most systems) put SpamAssassin's daemon; then the PATH. */
export function findSpamd(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [
    env.MAILYARD_SPAMD,
    '/usr/sbin/spamd',
    '/usr/bin/spamd',
    ...(env.PATH ?? '').split(delimiter).map((d) => (d ? join(d, 'spamd') : undefined)),
  ];
  for (const c of candidates) {
    if (!c) continue;
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return null;
}

/** Largest message sent to spamd (spamc's own default limit is 500 KB; bigger mail is not scored). */
const MAX_SCAN_BYTES = 2 * 1024 * 1024;
const START_TIMEOUT_MS = 120_000;
const CHECK_TIMEOUT_MS = 60_000;

/** A free port on the loopback interface, for spamd to listen on. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** One SPAMC/1.5 request over TCP; answers spamd's reply (headers and body). */
export function spamcRequest(
  port: number,
  command: 'PING' | 'REPORT',
  message?: Buffer,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<{ status: string; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`spamd did not answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    socket.on('connect', () => {
      const head = message ? `${command} SPAMC/1.5\r\nContent-length: ${message.length}\r\n\r\n` : `${command} SPAMC/1.5\r\n\r\n`;
      socket.write(head);
      if (message) socket.write(message);
      // spamd reads until the Content-length; a half-close tells it nothing more comes.
      socket.end();
    });
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const headText = split === -1 ? text : text.slice(0, split);
      const [status = '', ...lines] = headText.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const colon = l.indexOf(':');
        if (colon > 0) headers[l.slice(0, colon).trim().toLowerCase()] = l.slice(colon + 1).trim();
      }
      resolve({ status, headers, body: split === -1 ? '' : text.slice(split + 4) });
    });
  });
}

/** The rules of a spamd REPORT: the table after the `---- ----` line (descriptions may wrap). */
export function parseReport(body: string): SpamRule[] {
  const lines = body.split(/\r?\n/);
  const start = lines.findIndex((l) => /^-{3,}\s+-{3,}/.test(l));
  if (start === -1) return [];
  const rules: SpamRule[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$/.exec(line);
    if (m) rules.push({ score: Number(m[1]), name: m[2]!, description: m[3]!.trim() });
    else if (/^\s{5,}\S/.test(line) && rules.length > 0) rules[rules.length - 1]!.description += ` ${line.trim()}`;
    else if (line.trim() === '') continue;
    else break;
  }
  return rules;
}

export interface SpamdOptions {
  /** The spamd binary; null when SpamAssassin is not installed. */
  binary: string | null;
  /** The score at and over which a message is spam (spamd's required_score). */
  threshold: number;
  logger: Logger;
}

/**
 * SpamAssassin's daemon as a child process of the emulator: started on first use (or by `start()`),
 * on 127.0.0.1 at a free port, with a temporary home and site configuration, local tests only (no
 * DNS, RBL, Razor, Pyzor or DCC: nothing leaves the machine), accepting connections from
 * 127.0.0.1 only; stopped with the emulator.
 */
export class Spamd {
  private child: ChildProcess | null = null;
  private ready: Promise<number> | null = null;
  private dir: string | null = null;
  private stopped = false;
  private version: string | null = null;
  private readonly killOnExit = () => this.child?.kill('SIGTERM');

  constructor(private readonly options: SpamdOptions) {}

  get available(): boolean {
    return this.options.binary !== null;
  }

  get threshold(): number {
    return this.options.threshold;
  }

  /** Starts spamd if it is not running yet; resolves with its port once it answers PING. */
  start(): Promise<number> {
    if (!this.options.binary) return Promise.reject(new Error('SpamAssassin is not installed (Debian: apt-get install spamassassin spamd)'));
    if (this.stopped) return Promise.reject(new Error('the emulator is stopping'));
    this.ready ??= this.launch(this.options.binary).catch((err: Error) => {
      this.ready = null;
      this.cleanup();
      throw err;
    });
    return this.ready;
  }

  private async launch(binary: string): Promise<number> {
    const dir = mkdtempSync(join(tmpdir(), 'mailyard-spamd-'));
    this.dir = dir;
    const site = join(dir, 'site');
    const home = join(dir, 'home');
    mkdirSync(site);
    mkdirSync(home);
    // spamd started as root runs its children as nobody: they need the home and the configuration readable.
    chmodSync(dir, 0o755);
    chmodSync(home, 0o777);
    // The plugin loaders of the installed SpamAssassin (init.pre, v3xx.pre…), then settings of our own.
    const etc = '/etc/spamassassin';
    if (existsSync(etc)) for (const f of readdirSync(etc)) if (f.endsWith('.pre')) copyFileSync(join(etc, f), join(site, f));
    writeFileSync(
      join(site, 'local.cf'),
      [
        `required_score ${this.options.threshold}`,
        'use_bayes 0',
        'bayes_auto_learn 0',
        'skip_rbl_checks 1',
        'dns_available no',
        'use_razor2 0',
        'use_pyzor 0',
        'report_contact the Mailyard emulator',
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const args = [
      '--local',
      `--listen=127.0.0.1:${port}`,
      '--allowed-ips=127.0.0.1',
      '--nouser-config',
      `--siteconfigpath=${site}`,
      `--helper-home-dir=${home}`,
      '--max-children=2',
      '--min-children=1',
      '--min-spare=1',
      '--max-spare=1',
      '--syslog=stderr',
      `--pidfile=${join(dir, 'spamd.pid')}`,
    ];
    if (process.getuid?.() === 0) args.push('--username=nobody');
    const started = Date.now();
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, HOME: home, LANG: 'C' } });
    this.child = child;
    process.once('exit', this.killOnExit);
    let log = '';
    child.stderr!.on('data', (d: Buffer) => {
      log = (log + d.toString('utf8')).slice(-4000);
      const v = /running version ([\d.]+)/.exec(log);
      if (v) this.version = v[1]!;
    });
    let exited: string | null = null;
    child.on('exit', (code, signal) => {
      exited = `spamd exited (${signal ?? `status ${code}`})`;
      process.removeListener('exit', this.killOnExit);
      if (this.child === child) {
        this.child = null;
        this.ready = null;
        if (!this.stopped) this.options.logger.warn({ log: log.slice(-1000) }, exited);
      }
    });
    child.on('error', (err) => (exited = `spamd could not start: ${err.message}`));
    while (Date.now() - started < START_TIMEOUT_MS) {
      if (exited) throw new Error(`${exited}: ${log.trim().split('\n').slice(-3).join(' ')}`);
      if (this.stopped) throw new Error('the emulator is stopping');
      const pong = await spamcRequest(port, 'PING', undefined, 2000).catch(() => null);
      if (pong?.status.includes('PONG')) {
        this.options.logger.info({ port, ms: Date.now() - started }, 'spamd started');
        return port;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    child.kill('SIGTERM');
    throw new Error(`spamd did not start within ${START_TIMEOUT_MS / 1000} s`);
  }

  /** SpamAssassin's verdict on a raw message: score, threshold and the rules that fired. */
  async check(raw: Buffer): Promise<SpamVerdict> {
    if (!this.options.binary) return { status: 'unavailable', reason: 'SpamAssassin is not installed here (Debian: apt-get install spamassassin spamd)' };
    if (raw.length > MAX_SCAN_BYTES)
      return { status: 'unavailable', reason: `The message is over ${MAX_SCAN_BYTES / 1024 / 1024} MB; SpamAssassin does not score mail this big` };
    try {
      const port = await this.start();
      const reply = await spamcRequest(port, 'REPORT', raw);
      const verdict = /^(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/i.exec(reply.headers.spam ?? '');
      if (!/EX_OK/.test(reply.status) || !verdict) return { status: 'error', reason: `spamd answered: ${reply.status || 'nothing'}` };
      const score = Number(verdict[2]);
      return {
        status: 'ok',
        score,
        threshold: this.options.threshold,
        is_spam: score >= this.options.threshold,
        rules: parseReport(reply.body),
        version: this.version,
      };
    } catch (err) {
      return { status: 'error', reason: (err as Error).message };
    }
  }

  /** Stops spamd (SIGTERM: it stops its children) and removes its temporary files. */
  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    this.cleanup();
  }

  private cleanup(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}
