import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../helpers/emulator';
import { logCapture } from '../helpers/log-capture';

// API keys, webhook and DKIM secrets and every captured message live in the data directory.

let parent: string;
beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), 'mailyard-modes-'));
});
afterEach(() => rm(parent, { recursive: true, force: true }));

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe.skipIf(process.platform === 'win32')('the data directory', () => {
  it('is made 0700 with every file in it 0600 (the database, its -wal and -shm, the keys, the lock), whatever the umask', async () => {
    const dataDir = join(parent, 'new', 'data');
    // The widest umask: nothing Mailyard creates may rely on the umask to take bits away.
    const umask = process.umask(0);
    try {
      // STARTTLS on, so the sink's certificate and key are written too.
      const emu = await startEmulator({ smtpTls: 'starttls' }, {}, dataDir);
      try {
        // A send, so the WAL has been written to.
        await emu.service.sendEmail({
          from: { email: 'app@example.com' },
          to: [{ email: 'ann@example.org' }],
          subject: 'x',
          content: [{ type: 'text/plain', value: 'x' }],
        });
        expect(modeOf(dataDir)).toBe('700');
        expect(modeOf(join(parent, 'new'))).toBe('700');
        const files = readdirSync(dataDir);
        expect(files).toEqual(
          expect.arrayContaining([
            'mailyard.db',
            'mailyard.db-wal',
            'mailyard.db-shm',
            'mailyard.lock',
            'mailer-secrets.key',
            'smtp-tls-key.pem',
            'smtp-tls-cert.pem',
          ]),
        );
        expect(Object.fromEntries(files.map((f) => [f, modeOf(join(dataDir, f))]))).toEqual(Object.fromEntries(files.map((f) => [f, '600'])));
        expect(emu.handle.warnings).toEqual([]);
      } finally {
        await emu.cleanup();
      }
    } finally {
      process.umask(umask);
    }
  });

  it('says once, at start, that an existing directory is open to other users (and nothing for a private one)', async () => {
    const shared = join(parent, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o755);
    const log = logCapture();
    const emu = await startEmulator({}, { logger: log.logger }, shared);
    try {
      const warning = `the data directory ${shared} is open to other users (mode 0755): it holds API keys, webhook and DKIM secrets and every captured message. Make it private: chmod 700 ${shared}`;
      expect(emu.handle.warnings).toEqual([warning]);
      expect(log.lines.filter((l) => l.msg === warning)).toEqual([expect.objectContaining({ level: 40, dataDir: shared })]);
      // Left as the user made it: the warning says how to change it.
      expect(modeOf(shared)).toBe('755');
    } finally {
      await emu.stop();
    }
    const quiet = logCapture();
    const again = await startEmulator({}, { logger: quiet.logger }, parent);
    try {
      expect(again.handle.warnings).toEqual([]);
      expect(quiet.lines.filter((l) => String(l.msg).includes('open to other users'))).toEqual([]);
    } finally {
      await again.stop();
    }
  });
});
