import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * The built desktop main process (out/main/desktop.js, as `npm start` runs it) under plain Node,
 * with `electron` replaced by test/desktop/fake-electron: the real emulator starts, the window is
 * pointed at its listener, the paths it uses exist in out/, and quitting closes it cleanly.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const BUNDLE = join(ROOT, 'out/main/desktop.js');

type Report = { fake: string } & Record<string, any>;

class DesktopProcess {
  readonly reports: Report[] = [];
  readonly stderr: string[] = [];
  private waiters: { test: (r: Report) => boolean; resolve: (r: Report) => void }[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{"fake"')) return;
      const report = JSON.parse(line) as Report;
      this.reports.push(report);
      this.waiters = this.waiters.filter((w) => {
        if (!w.test(report)) return true;
        w.resolve(report);
        return false;
      });
    });
    child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    this.exited = new Promise((done) => child.on('exit', (code) => done(code)));
  }

  next(fake: string, timeoutMs = 15_000): Promise<Report> {
    const seen = this.reports.find((r) => r.fake === fake);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${fake}" within ${timeoutMs} ms; stderr: ${this.stderr.join('')}`)), timeoutMs);
      this.waiters.push({
        test: (r) => r.fake === fake,
        resolve: (r) => {
          clearTimeout(timer);
          resolvePromise(r);
        },
      });
    });
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }
}

function start(appData: string, env: Record<string, string> = {}): DesktopProcess {
  const child = spawn(process.execPath, ['--import', './test/desktop/fake-electron/register.mjs', BUNDLE], {
    cwd: ROOT,
    env: { ...process.env, FAKE_ELECTRON_APPDATA: appData, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new DesktopProcess(child);
}

/** Holds a port if it is free (it may already be taken on a shared machine, which does as well). */
async function hold(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((done) => {
    server.once('error', () => done(undefined));
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

describe.runIf(existsSync(BUNDLE))('the built desktop main process under Node with a stand-in electron', () => {
  const cleanup: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('serves the UI to its window from the emulator, on free ports when the defaults are taken, and quits cleanly', async () => {
    const appData = mkdtempSync(join(tmpdir(), 'mailyard-desktop-'));
    cleanup.push(() => rmSync(appData, { recursive: true, force: true }));
    for (const port of [4400, 2525]) {
      const server = await hold(port);
      if (server) cleanup.push(() => new Promise<void>((done) => server.close(() => done())));
    }
    const desktop = start(appData);
    cleanup.push(() => void desktop.child.kill('SIGKILL'));

    const window = await desktop.next('window');
    const preload = window.options.webPreferences.preload as string;
    expect(preload).toBe(join(ROOT, 'out/preload/preload.cjs'));
    expect(existsSync(preload)).toBe(true);
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });

    const load = await desktop.next('loadURL');
    const url = new URL(load.url as string);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.port).not.toBe('4400');
    expect(load.locked).toEqual(expect.arrayContaining(['will-navigate', 'will-redirect', 'will-frame-navigate', 'will-attach-webview']));
    expect(load.windowOpen).toBe('function');

    // The built UI (out/renderer), with its CSP, from the emulator's listener.
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toMatch(/<script[^>]+src="\.?\/assets\//);
    const answer = (await (await fetch(new URL('/emulator/health', url))).json()) as { data: { data_dir: string; ports: { http: number; smtp: number } } };
    const health = answer.data;
    expect(health.data_dir).toBe(join(appData, 'Mailyard', 'data'));
    expect(health.ports.smtp).not.toBe(2525);

    const notice = await desktop.next('message-box');
    expect(notice.options.detail).toContain(`HTTP port 4400 was in use, so Mailyard listens on ${health.ports.http} instead`);
    expect(notice.options.detail).toContain('SMTP port 2525 was in use');
    expect(
      desktop.reports
        .filter((r) => r.fake === 'ipc-handle')
        .map((r) => r.channel)
        .sort(),
    ).toEqual(['mailyard:open-data-folder', 'mailyard:open-link', 'mailyard:reveal-file']);

    desktop.send('quit');
    expect(await desktop.exited).toBe(0);
    const order = desktop.reports.map((r) => r.fake).filter((f) => ['quit-called', 'quit-held', 'exit'].includes(f));
    // The first quit is held while the emulator closes; the second, after close(), goes through.
    expect(order).toEqual(['quit-called', 'quit-held', 'quit-called', 'exit']);
    expect(existsSync(join(appData, 'Mailyard', 'data', 'mailyard.db'))).toBe(true);
    await expect(fetch(url)).rejects.toThrow();
  }, 40_000);

  it('a second instance quits at once', async () => {
    const appData = mkdtempSync(join(tmpdir(), 'mailyard-desktop-'));
    cleanup.push(() => rmSync(appData, { recursive: true, force: true }));
    const desktop = start(appData, { FAKE_ELECTRON_LOCKED: '1' });
    cleanup.push(() => void desktop.child.kill('SIGKILL'));
    expect(await desktop.exited).toBe(0);
    expect(desktop.reports.some((r) => r.fake === 'window')).toBe(false);
  }, 20_000);
});
