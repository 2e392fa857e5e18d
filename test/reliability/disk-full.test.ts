import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

/**
 * A full disk. The data directory is a small tmpfs (mounting one needs root, as CI runs); a file
 * fills what the store leaves free. The emulator must refuse new mail clearly (HTTP 507, SMTP 451),
 * never crash (a worker's uncaught SQLITE_FULL would fail this test run), say so in its health (and
 * `/readyz`), and go on by itself, losing nothing it had accepted, once there is room again.
 */

const canMount = process.getuid?.() === 0;

let dir: string;
let emu: TestEmulator;
let receiver: Receiver;
const filler = () => join(dir, 'filler.bin');

beforeAll(async () => {
  if (!canMount) return;
  dir = await mkdtemp(join(tmpdir(), 'mailyard-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir]);
  receiver = await startReceiver();
  emu = await startEmulator({}, {}, dir);
  await emu.registerEmailWebhook(receiver.url);
});

afterAll(async () => {
  if (!canMount) return;
  await emu?.stop();
  await receiver?.close();
  execFileSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a file until the disk refuses a byte more. */
function fillDisk(): void {
  const fd = openSync(filler(), 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const big = 'x'.repeat(400_000);
const send = (to: string, body = 'hello') =>
  emu.request('POST', '/v1/email/send', {
    body: { from: { email: 'app@example.com' }, to: [{ email: to }], subject: 'Disk', content: [{ type: 'text/plain', value: body }] },
  });

describe.skipIf(!canMount)('a full disk (a tmpfs data directory; needs root to mount)', () => {
  it('refuses new mail with 507 and SMTP 451, keeps running, and goes on by itself once there is room', async () => {
    // Accepted before the disk fills: their events are due in about a second.
    const early: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await send(`delivered+early${i}@sim.mailyard.test`);
      expect(res.status, res.text).toBe(200);
      early.push(res.json.ref_id);
    }
    fillDisk();

    // Writes that need new pages now fail: the API says why with 507, not "a Mailyard bug" 500.
    let refused: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const res = await send(`delivered+late${i}@sim.mailyard.test`, big);
      if (res.status !== 200) refused = res;
    }
    expect(refused?.status, refused?.text).toBe(507);
    expect(refused!.json).toMatchObject({ success: false, error: expect.stringContaining('disk of the data directory is full') });

    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });
    const smtpError = await smtp.sendMail({ from: 'app@example.com', to: 'ann@example.org', subject: 'Disk', text: big }).then(
      () => undefined,
      (err: { responseCode?: number; response?: string }) => err,
    );
    smtp.close();
    expect(smtpError?.responseCode).toBe(451);
    expect(smtpError?.response).toContain('full');

    const health = (await emu.control.getHealth()).data;
    expect(health.store.full).toBe(true);
    expect(health.store.since).not.toBeNull();
    // A readiness probe says it too, without a key: not ready to take mail.
    const unready = await fetch(`${emu.url}/readyz`);
    expect(unready.status).toBe(503);
    expect(await unready.json()).toEqual({ status: 'store_full' });

    // Let the early events fall due while the disk is full: the simulator and the dispatcher wait
    // (an uncaught error here would fail the run).
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await emu.control.getHealth()).data.status).toBe('ok');

    // Room again: the workers go on by themselves, and nothing accepted is lost.
    unlinkSync(filler());
    const deadline = Date.now() + 15_000;
    while ((await emu.control.getHealth()).data.store.full && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await emu.control.getHealth()).data.store.full).toBe(false);
    expect(await (await fetch(`${emu.url}/readyz`)).json()).toEqual({ status: 'ready' });
    await receiver.waitFor(early.length, 15_000);
    const delivered = receiver.requests.map((r) => JSON.parse(r.body) as { event: string; ref_id?: string });
    for (const ref of early)
      expect(
        delivered.some((p) => p.ref_id === ref),
        `the delivered event of ${ref}`,
      ).toBe(true);
    for (const ref of early) {
      const [log] = (await emu.service.getEmailLogs({ refId: ref })).emailLogs;
      expect(log?.status).toBe('delivered');
    }
    const after = await send('delivered+after@sim.mailyard.test');
    expect(after.status, after.text).toBe(200);
  }, 90_000);
});
