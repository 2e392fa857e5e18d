import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src-main/core';
import { DataDirInUseError, LOCK_FILE } from '../../src-main/core/store/data-dir-lock';
import { tokenOf, viewProcess } from '../../src-main/core/store/process-identity';
import { startEmulator } from '../helpers/emulator';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailyard-lock-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const start = () => createEmulator({ httpPort: 0, smtpPort: 0, logLevel: 'silent', dataDir: dir });

/** The process id on the lock file's first line. */
const lockPid = () => readFileSync(join(dir, LOCK_FILE), 'utf8').split('\n')[0];

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Starts a child process and resolves with its id once it runs (`sleep`) or once its first line of output is in. */
async function child(command: string, args: string[]): Promise<{ pid: number; firstLine: string }> {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(proc);
  const firstLine = await new Promise<string>((resolve) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    // A process that prints nothing (`sleep`) is ready once it runs.
    if (command === 'sleep') proc.on('spawn', () => resolve(''));
  });
  return { pid: proc.pid!, firstLine };
}

/** The id of a process that has exited. */
function exitedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the data directory lock', () => {
  it('refuses a second emulator on the same data directory, naming the process that has it, until the first stops', async () => {
    const first = await start();
    try {
      expect(lockPid()).toBe(String(process.pid));
      const second = start();
      await expect(second).rejects.toThrow(DataDirInUseError);
      await expect(second).rejects.toThrow(`in use by another Mailyard (process ${process.pid})`);
      // The first one is untouched: it still answers, and still holds the directory.
      expect((await fetch(`${first.urls.http}/emulator/health`)).status).toBe(200);
      expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    } finally {
      await first.close();
    }
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const third = await start();
    await third.close();
  });

  it('takes over a lock left by a process that no longer runs (a crash), and one naming this process from an earlier run', async () => {
    for (const stale of [exitedPid(), process.pid]) {
      writeFileSync(join(dir, LOCK_FILE), `${stale}\n`);
      const emu = await startEmulator({}, {}, dir);
      expect(lockPid()).toBe(String(process.pid));
      await emu.stop();
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    }
  });

  it('takes over a lock whose process id now belongs to an unrelated live process (a container restarted on a persistent volume)', async () => {
    const sleeper = await child('sleep', ['60']);
    const { boot } = tokenOf(process.pid);
    // As earlier versions wrote it (the id alone), and with a start time that is not the sleeper's.
    for (const lock of [`${sleeper.pid}\n`, `${sleeper.pid}\nboot=${boot} start=1 id=0123456789abcdef\n`]) {
      writeFileSync(join(dir, LOCK_FILE), lock);
      const emu = await startEmulator({}, {}, dir);
      expect(lockPid()).toBe(String(process.pid));
      expect((await fetch(`${emu.url}/emulator/health`)).status).toBe(200);
      await emu.stop();
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    }
  });

  it('takes over a lock whose process is a zombie (exited, not yet reaped by its parent)', async () => {
    // The shell starts a short `sleep` in the background, prints its id and becomes a long `sleep`,
    // which never reaps it: once the short one ends (after the exec), it is a zombie.
    const parent = await child('sh', ['-c', 'sleep 0.5 & echo $!; exec sleep 60']);
    const zombie = Number(parent.firstLine);
    expect(zombie).toBeGreaterThan(0);
    for (let i = 0; i < 250 && viewProcess(zombie)?.state !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(viewProcess(zombie)?.state).toBe('Z');
    writeFileSync(
      join(dir, LOCK_FILE),
      `${zombie}\n${Object.entries(tokenOf(zombie))
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}\n`,
    );
    const emu = await startEmulator({}, {}, dir);
    expect(lockPid()).toBe(String(process.pid));
    await emu.stop();
  });

  it('still refuses a lock held by another live process that is the one that wrote it', async () => {
    const other = await child(process.execPath, ['-e', 'console.log(process.pid); setInterval(() => {}, 1000)']);
    const token = tokenOf(other.pid);
    const locks = [
      `${other.pid}\n${Object.entries(token)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} id=0123456789abcdef\n`,
      `${other.pid}\n`,
    ];
    for (const lock of locks) {
      writeFileSync(join(dir, LOCK_FILE), lock);
      await expect(start()).rejects.toThrow(`in use by another Mailyard (process ${other.pid})`);
      // The lock is left as it was.
      expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(lock);
    }
  });

  it('releases the directory when start-up fails after taking it', async () => {
    writeFileSync(join(dir, 'mailyard.db'), 'not a database');
    await expect(start()).rejects.toThrow();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('does not lock anything in memory mode', async () => {
    const a = await createEmulator({ httpPort: 0, smtpPort: 0, logLevel: 'silent', memory: true });
    const b = await createEmulator({ httpPort: 0, smtpPort: 0, logLevel: 'silent', memory: true });
    await Promise.all([a.close(), b.close()]);
  });
});
