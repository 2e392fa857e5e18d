import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServeProcess } from '../helpers/serve-process';
import { expect, test } from './fixtures';

// The UI says the disk is full, on every screen, live (mail is being refused meanwhile), and stops
// saying it once there is room. The data directory is a small tmpfs (mounting one needs root, as CI runs).
const canMount = process.getuid?.() === 0;

test.skip(!canMount, 'mounting a tmpfs for a full disk needs root');

test('a full disk is said on every screen, live, and the banner goes once there is room', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'mailyard-e2e-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir]);
  const apiKey = 'e2e-key-0123456789';
  const serve = await startServeProcess(['--http-port', '0', '--smtp-port', '0', '--data-dir', dir, '--api-key', apiKey]);
  try {
    await page.goto(`${serve.url}/messages`);
    await expect(page.getByRole('status').filter({ hasText: 'Running' })).toBeVisible();
    await expect(page.getByText('The disk of the data directory is full')).toHaveCount(0);

    // Fill what the store leaves free, then send until a write needs a page the disk cannot give.
    const fd = openSync(join(dir, 'filler.bin'), 'w');
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch {
          break;
        }
      }
    }
    closeSync(fd);
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      const res = await page.request.post(`${serve.url}/v1/email/send`, {
        headers: { authorization: `Bearer ${apiKey}` },
        data: {
          from: { email: 'app@example.com' },
          to: [{ email: `ann${i}@example.org` }],
          subject: 'Disk',
          content: [{ type: 'text/plain', value: 'x'.repeat(400_000) }],
        },
      });
      status = res.status();
    }
    expect(status).toBe(507);

    const banner = page.getByRole('alert').filter({ hasText: 'The disk of the data directory is full' });
    await expect(banner).toBeVisible();
    await page.screenshot({ path: 'test-results/disk-full-banner.png' });
    // Another screen says it too.
    await page.getByRole('link', { name: 'Deliveries' }).first().click();
    await expect(banner).toBeVisible();

    unlinkSync(join(dir, 'filler.bin'));
    // The workers try again within a second; the first write that succeeds says there is room.
    await page.request.post(`${serve.url}/v1/email/send`, {
      headers: { authorization: `Bearer ${apiKey}` },
      data: { from: { email: 'app@example.com' }, to: [{ email: 'after@example.org' }], subject: 'Room', content: [{ type: 'text/plain', value: 'hello' }] },
    });
    await expect(banner).toHaveCount(0, { timeout: 10_000 });
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});
