import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src-main/core/create-emulator';
import { DataDirInUseError, LOCK_FILE } from '../../src-main/core/store/data-dir-lock';
import { startEmulator } from '../helpers/emulator';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailyard-lock-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const start = () => createEmulator({ httpPort: 0, smtpPort: 0, logLevel: 'silent', dataDir: dir });

/** The id of a process that has exited. */
function exitedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the data directory lock', () => {
  it('refuses a second emulator on the same data directory, naming the process that has it, until the first stops', async () => {
    const first = await start();
    try {
      expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
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
      expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
      await emu.stop();
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
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
