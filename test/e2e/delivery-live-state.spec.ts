import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, registerWebhook, sendEmail, test, watchErrors } from './fixtures';

// A failed attempt is retried ten minutes later: only "Jump to the next attempt" makes it now.
test.use({ serveArgs: ['--retry-schedule', '10m'] });

const HOLD_MS = 3000;
/** Longer than the 2 s a clock move waits for attempts it made due: the move answers with this one in flight. */
const LONG_HOLD_MS = 5000;

interface HeldAnswer {
  status: number;
  holdMs: number;
}

/** A local receiver that holds each answer as `answers` says, in order (then 200 after `HOLD_MS`). */
async function holdingReceiver(answers: HeldAnswer[]): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const { status, holdMs } = answers[received++] ?? { status: 200, holdMs: HOLD_MS };
      const t = setTimeout(() => {
        timers.delete(t);
        res.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{"ok":true}' : '{"error":"busy"}');
      }, holdMs);
      timers.add(t);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('an attempt in flight shows live on the delivery page and in the list, then its outcome, without a reload', async ({ served, page }, testInfo) => {
  test.setTimeout(45_000);
  const errors = watchErrors(page);
  const receiver = await holdingReceiver([
    { status: 500, holdMs: HOLD_MS },
    { status: 200, holdMs: LONG_HOLD_MS },
  ]);
  try {
    await registerWebhook(page, served, receiver.url, { bounce: true });
    await page.goto(`${served.url}/deliveries`);
    await expect(page.getByTestId('deliveries-empty')).toBeVisible();
    // Marks this document: a reload would lose it.
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    const fired = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', recipient: 'ann@example.com' } });
    const deliveryId = (await fired.json()).data.delivery_id as string;
    const row = page.getByTestId('delivery-list').getByRole('option');
    await expect(row).toHaveCount(1);

    // The first attempt is on the wire (the receiver holds it): the row says so, live.
    await expect(row.getByTestId('delivery-row-state')).toHaveText('sending', { timeout: HOLD_MS });
    await expect(row.getByTestId('delivery-row-next')).toHaveText('attempt 1 in flight');
    // The attempt is announced as it starts, which may be a moment before its request has reached
    // the receiver (the receiver counts a request once its body has arrived): within the hold.
    await expect.poll(() => receiver.received(), { timeout: HOLD_MS }).toBe(1);

    // Its outcome replaces it: failing, the retry in ten minutes.
    await expect(row.getByTestId('delivery-row-state')).toHaveText('failing', { timeout: HOLD_MS + 3000 });
    await expect(row).toContainText('1 attempt · HTTP 500');
    await expect(row.getByTestId('delivery-row-next')).toHaveText(/^retry 2 in (10|9) min$/);

    await row.click();
    await expect(page).toHaveURL(`${served.url}/deliveries/${deliveryId}`);
    const detail = page.getByTestId('delivery-detail');
    await expect(page.getByTestId('delivery-status')).toHaveText('failing');
    await expect(page.getByTestId('delivery-next-attempt')).toContainText(/retry 2 in (10|9) min/);

    // The retry runs now and is held: the page and the list show attempt 2 in flight, and the clock
    // move's answer said it left one attempt in flight.
    await detail.getByRole('button', { name: 'Jump to the next attempt' }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Move the clock' }).click();
    await expect(page.getByTestId('delivery-status')).toHaveText('sending', { timeout: LONG_HOLD_MS });
    await expect(page.getByTestId('jump-in-flight')).toHaveText('1 attempt still in flight');
    await expect(page.getByTestId('delivery-in-flight')).toHaveText('attempt 2 in flight');
    await expect(detail.getByTestId('attempt-in-flight')).toContainText('#2');
    await expect(detail.getByTestId('attempt')).toHaveCount(1);
    await expect(row.getByTestId('delivery-row-state')).toHaveText('sending');
    await expect(row.getByTestId('delivery-row-next')).toHaveText('attempt 2 in flight');
    // Never a time in the past while it is being made.
    await expect(detail).not.toContainText(/next attempt.*ago/i);
    await expect(page.getByTestId('delivery-next-attempt')).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath('delivery-in-flight.png') });

    // Its outcome, live: succeeded, two attempts, nothing in flight.
    await expect(page.getByTestId('delivery-status')).toHaveText('succeeded', { timeout: LONG_HOLD_MS + 3000 });
    await expect(page.getByTestId('jump-in-flight')).toHaveCount(0);
    await expect(detail.getByTestId('attempt')).toHaveCount(2);
    await expect(detail.getByTestId('attempt').first()).toContainText('HTTP 200');
    await expect(detail.getByTestId('attempt-in-flight')).toHaveCount(0);
    await expect(page.getByTestId('delivery-in-flight')).toHaveCount(0);
    await expect(row.getByTestId('delivery-row-state')).toHaveText('succeeded');
    await expect(row).toContainText('2 attempts · HTTP 200');
    await expect(row.getByTestId('delivery-row-next')).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath('delivery-succeeded.png') });

    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(receiver.received()).toBe(2);
    expect(errors).toEqual([]);
  } finally {
    await receiver.close();
  }
});

test("a message's Events tab shows its delivery in flight, then the outcome, live", async ({ served, page }) => {
  const errors = watchErrors(page);
  const receiver = await holdingReceiver([{ status: 200, holdMs: HOLD_MS }]);
  try {
    await registerWebhook(page, served, receiver.url, { bounce: true });
    const { refId, id } = await sendEmail(page, served, 'ann@example.com', 'Held bounce');
    await page.goto(`${served.url}/messages/${id}`);
    const detail = page.getByTestId('message-detail');
    await expect(detail).toContainText('Held bounce');
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    const fired = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', ref_id: refId, recipient: 'ann@example.com' } });
    expect(fired.ok()).toBe(true);
    await detail.getByRole('tab', { name: /Events/ }).click();
    const events = page.getByTestId('message-events');
    await expect(events.getByTestId('event-delivery-state')).toHaveText('sending', { timeout: HOLD_MS });
    await expect(events.getByTestId('event-delivery-next')).toHaveText('attempt 1 in flight');

    await expect(events.getByTestId('event-delivery-state')).toHaveText('succeeded', { timeout: HOLD_MS + 3000 });
    await expect(events).toContainText('1 attempt');
    await expect(events.getByTestId('event-delivery-next')).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(errors).toEqual([]);
  } finally {
    await receiver.close();
  }
});

test('Overview and Simulation say how many attempts are in flight while a receiver holds one, and stop saying it after', async ({ served, page }) => {
  const errors = watchErrors(page);
  const receiver = await holdingReceiver([{ status: 200, holdMs: 6000 }]);
  try {
    await registerWebhook(page, served, receiver.url, { bounce: true });
    await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', recipient: 'ann@example.com' } });
    await expect.poll(() => receiver.received()).toBe(1);

    await page.goto(served.url);
    await expect(page.getByTestId('stat-in-flight')).toHaveText('1 sending');
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Simulation' }).click();
    const clock = page.getByRole('region', { name: 'Emulator clock' });
    await expect(clock).toContainText('1 attempt still in flight');
    await expect(clock).not.toContainText(/next retry.*ago/i);

    // The answer is in: neither says it any more.
    await expect(clock).not.toContainText('still in flight', { timeout: 8000 });
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Overview' }).click();
    await expect(page.getByTestId('stat-deliveries')).toHaveText('1');
    await expect(page.getByTestId('stat-in-flight')).toHaveCount(0);
    expect(errors).toEqual([]);
  } finally {
    await receiver.close();
  }
});
