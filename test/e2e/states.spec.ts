import type { Page } from '@playwright/test';
import { api, expect, registerWebhook, sendEmail, test, watchErrors } from './fixtures';

/** Records every green element (a success note, a verified badge) that appears in the screen's main area from now on. */
async function watchGreens(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { __greens: string[] };
    w.__greens = [];
    const look = () => {
      for (const e of document.querySelectorAll('main .notice, main .status-verified')) {
        const seen = `${e.className}: ${e.textContent}`;
        if (!w.__greens.includes(seen)) w.__greens.push(seen);
      }
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  return () => page.evaluate(() => (window as unknown as { __greens: string[] }).__greens);
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

test('a failed domain verification is never shown in green, says its reason once, and quotes no API path', async ({ served, page }) => {
  const errors = watchErrors(page, [/status of 400/]);
  await api(page, served, 'POST', '/v1/domain/add', { domain: 'fail.example' });
  await page.goto(`${served.url}/domains`);
  const card = page.getByTestId('domain-fail.example');
  await expect(card.locator('.card-head .badge')).toHaveText('pending');
  const greens = await watchGreens(page);

  // The next verification set to fail (without a reason), then the verification itself.
  const outcome = card.getByRole('form', { name: 'Verification outcome of fail.example' });
  await outcome.getByRole('combobox').selectOption('failed');
  await outcome.getByRole('button', { name: 'Set outcome' }).click();
  await expect(page.getByTestId('notice')).toContainText('will be failed');
  await card.getByRole('button', { name: 'Verify now' }).click();
  await expect(card.locator('.card-head .badge')).toHaveText('failed');
  await expect(card.getByTestId('record-dkim').locator('.badge')).toHaveText('failed');

  // Nothing about the failure was green, not even for a moment.
  expect(await greens()).toEqual([]);
  // The alert names the records that did not check out; the reason itself is on the card.
  await expect(page.getByRole('alert')).toHaveText('fail.example did not verify: Invalid DNS records (spf, dkim, return_path)');
  // The reason, in words, once on the screen (the history, folded, keeps each check's own).
  const reason = await card.getByTestId('domain-reason').innerText();
  expect(reason).toMatch(/outcome was set to failed/);
  const main = await page.locator('main').innerText();
  expect(occurrences(main, reason)).toBe(1);
  expect(main).not.toContain('/emulator/');
  expect(main).not.toContain('{domain}');
  expect(errors).toEqual([]);
});

test('Overview counts the deliveries failing against a receiver answering 500 (retrying), apart from the failed ones', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  receiver.status = 500;
  await registerWebhook(page, served, receiver.url, { delivery: true });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push((await (await page.request.post(`${served.url}/emulator/events`, { data: { event: 'delivery' } })).json()).data.delivery_id);
  await receiver.waitFor(3);
  await expect
    .poll(async () => {
      const list = (await (await page.request.get(`${served.url}/emulator/deliveries`)).json()).data.deliveries as Array<{ attempts: number; status: string }>;
      return list.filter((d) => d.attempts === 1 && d.status === 'pending').length;
    })
    .toBe(3);

  await page.goto(served.url);
  await expect(page.getByTestId('stat-failing')).toHaveText('3');
  await expect(page.getByTestId('stat-failed')).toHaveText('0');
  const tile = page.getByRole('link', { name: /Failing webhook deliveries/ });
  await expect(tile).toContainText('Failing webhook deliveries');
  await expect(tile).toContainText('retrying');
  await tile.click();
  await expect(page).toHaveURL(`${served.url}/deliveries?status=failing`);
  await expect(page.getByTestId('delivery-list').getByRole('option')).toHaveCount(3);
  expect(errors).toEqual([]);
});

test('the "first email" and "first webhook" cards go away once the account has sent an email and has a webhook', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  await page.goto(served.url);
  const firstSend = page.getByRole('heading', { name: 'Send your first email' });
  const firstHook = page.getByRole('heading', { name: 'Register your first webhook' });
  await expect(firstSend).toBeVisible();
  await expect(firstHook).toBeVisible();

  // A send: its card goes, live; the webhook card stays.
  await sendEmail(page, served, 'ann@example.com', 'The first one');
  await expect(firstSend).toHaveCount(0);
  await expect(firstHook).toBeVisible();

  // A webhook: its card is gone the next time Overview opens, and after a reload.
  await registerWebhook(page, served, receiver.url, { delivery: true });
  const nav = page.getByRole('navigation', { name: 'Screens' });
  await nav.getByRole('link', { name: 'Messages' }).click();
  await nav.getByRole('link', { name: 'Overview' }).click();
  await expect(page.getByRole('heading', { name: 'Listeners' })).toBeVisible();
  await expect(firstHook).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
  await expect(firstSend).toHaveCount(0);
  await expect(firstHook).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('an unknown route shows "Page not found" with a link home, not Overview', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/no-such-screen`);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByTestId('not-found')).toContainText('/no-such-screen');
  await expect(page).toHaveTitle('Page not found · Mailyard');
  await expect(page.getByRole('heading', { name: 'Listeners' })).toHaveCount(0);
  await expect(page.getByTestId('stat-messages')).toHaveCount(0);
  // No screen is marked as the current one.
  await expect(page.getByRole('navigation', { name: 'Screens' }).locator('[aria-current="page"]')).toHaveCount(0);

  await page.getByTestId('not-found').getByRole('link', { name: 'Go to Overview' }).click();
  await expect(page).toHaveURL(`${served.url}/`);
  await expect(page.getByRole('heading', { name: 'Listeners' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Page not found' })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('Fire event refuses a ref_id that names no message, says what the preview cannot show, and a soft mailbox_full bounce gets a 452 reply', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page, [/status of 404/]);
  await registerWebhook(page, served, receiver.url, { delivery: true, bounce: true });
  await page.goto(`${served.url}/events`);
  const preview = page.getByTestId('payload-preview');

  // A free-standing event: the preview says that its ref_id and timestamp are set when it is sent.
  await page.getByRole('textbox', { name: 'Recipient' }).fill('qa@example.com');
  await expect(preview).toContainText('"email": "qa@example.com"');
  await expect(page.getByTestId('preview-note')).toContainText('ref_id and timestamp are set when it is sent');

  // A ref_id no message has: refused in words, nothing sent.
  await page.getByRole('radio', { name: 'a stored message' }).check();
  await page.getByLabel('Message ref_id').fill('no-such-send');
  await expect(page.getByText('Message Not Found: no stored message has ref_id no-such-send', { exact: false })).toBeVisible();
  await page.getByRole('button', { name: 'Fire delivery' }).click();
  await expect(page.getByRole('alert')).toContainText('Message Not Found: no stored message has ref_id no-such-send');
  await expect(page.getByTestId('fire-result')).toHaveCount(0);
  expect((await (await page.request.get(`${served.url}/emulator/deliveries`)).json()).data.deliveries).toEqual([]);

  // A stored message's ref_id: only the timestamp is set when it is sent.
  const { refId } = await sendEmail(page, served, 'ann@example.com', 'Stored');
  await page.getByLabel('Message ref_id').fill(refId);
  await expect(preview).toContainText(`"ref_id": "${refId}"`);
  await expect(page.getByTestId('preview-note')).toContainText('timestamp is set when it is sent');
  await expect(page.getByTestId('preview-note')).not.toContainText('ref_id');

  // A soft mailbox_full override: the reason follows it (452 4.2.2), never the hard 550 5.1.1.
  await page.getByLabel('Event kind').selectOption('bounce');
  await page.getByLabel('Field overrides').fill('{"bounce_type": "soft", "bounce_category": "mailbox_full"}');
  await expect(preview).toContainText('"bounce_type": "soft"');
  await expect(preview).toContainText('452 4.2.2 <ann@example.com>: Mailbox full');
  await expect(preview).not.toContainText('550 5.1.1');
  await page.getByRole('button', { name: 'Fire bounce' }).click();
  await expect(page.getByTestId('fire-result')).toContainText('recorded · webhook delivery');
  await expect.poll(() => receiver.requests.map((r) => JSON.parse(r.body)).find((b) => b.event === 'bounce')).toBeTruthy();
  const bounce = receiver.requests.map((r) => JSON.parse(r.body)).find((b) => b.event === 'bounce');
  expect(bounce).toMatchObject({ ref_id: refId, bounce_type: 'soft', bounce_category: 'mailbox_full', bounce_reason: expect.stringMatching(/^452 4\.2\.2 /) });
  expect(errors).toEqual([]);
});
