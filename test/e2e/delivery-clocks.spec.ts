import type { Page } from '@playwright/test';
import { startReceiver } from '../helpers/receiver';
import { expect, registerWebhook, test, watchErrors } from './fixtures';

/** Each place a header name's text breaks onto a new line: the character before the break (a hyphen is fine, a letter is mid-word). */
async function headerNameBreaks(page: Page): Promise<string[]> {
  return page.locator('[data-testid="attempt"] table.kv th').evaluateAll((cells) =>
    cells.flatMap((th) => {
      const text = th.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) return [];
      const s = text.textContent ?? '';
      const breaks: string[] = [];
      const range = document.createRange();
      let lastTop: number | null = null;
      for (let i = 0; i < s.length; i++) {
        range.setStart(text, i);
        range.setEnd(text, i + 1);
        const top = range.getBoundingClientRect().top;
        if (lastTop !== null && top > lastTop + 2) breaks.push(`${s}: after "${s[i - 1]}"`);
        lastTop = top;
      }
      return breaks;
    }),
  );
}

// Two clocks on one attempt: the emulator's (attempt times, may run ahead) and the wall clock (webhook-timestamp, the receiver's Date). Unlabelled, a tester compares them and thinks the emulator is wrong.
test('a delivery’s attempt labels its clocks, and header names never break inside a word', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  await registerWebhook(page, served, receiver.url, { delivery: true });
  // The emulator clock a day ahead of the wall clock: the two clocks differ, as they do in use.
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0, advance_ms: 86_400_000 } });
  const fired = (await (await page.request.post(`${served.url}/emulator/events`, { data: { event: 'delivery' } })).json()).data;
  await receiver.waitFor(1);

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${served.url}/deliveries/${fired.delivery_id}`);
    const attempt = page.getByTestId('attempt').first();
    await expect(attempt).toContainText('HTTP 200');
    await expect(attempt.getByTestId('attempt-clock')).toHaveText('(emulator clock)');
    const requestNote = attempt.locator('tr', { has: page.locator('th', { hasText: 'webhook-timestamp' }) }).getByTestId('header-note');
    await expect(requestNote).toContainText('wall clock');
    const dateNote = attempt.locator('tr', { has: page.locator('th', { hasText: /^date$/ }) }).getByTestId('header-note');
    await expect(dateNote).toContainText('wall clock');
    const breaks = await headerNameBreaks(page);
    // On a wide pane a name is one line; on a phone it may break after a hyphen, never inside a word.
    expect(width > 600 ? breaks : breaks.filter((b) => !b.endsWith('after "-"')), `at ${width} px`).toEqual([]);
  }
  expect(errors).toEqual([]);
});

// A long error in a row must not push "retry 2 in 30 s" out of sight: what comes next is what a tester waits for.
test('a delivery row with a long error still shows its next retry, at 1,280 and 375 px', async ({ served, page }) => {
  const errors = watchErrors(page);
  const gone = await startReceiver();
  await registerWebhook(page, served, `${gone.url}/a-rather-long-path/that/keeps/going/for/the/row/to/fill`, { delivery: true });
  await gone.close();
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  await page.request.post(`${served.url}/emulator/events`, { data: { event: 'delivery', recipient: 'a-long-recipient-address-for-the-row@example.com' } });

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${served.url}/deliveries`);
    const row = page.getByTestId('delivery-list').getByRole('option').first();
    const next = row.getByTestId('delivery-row-next');
    await expect(next).toHaveText(/^retry 2 in \d+ s$/);
    await expect(row.getByTestId('delivery-row-error')).toHaveAttribute('title', /connection refused/);
    // Wholly inside the row and not cut.
    const [rowBox, nextBox] = [await row.boundingBox(), await next.boundingBox()];
    expect(nextBox!.x + nextBox!.width, `at ${width} px`).toBeLessThanOrEqual(rowBox!.x + rowBox!.width + 0.5);
    expect(await next.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  }
  expect(errors).toEqual([]);
});
