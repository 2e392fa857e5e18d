import { expect, registerWebhook, sendEmail, test, watchErrors } from './fixtures';

// A retry ten minutes after a failure: only a move of the clock runs it while the test watches.
test.use({ serveArgs: ['--retry-schedule', '10m,1h'] });

/** The emulator clock as the API reads it. */
async function clockOf(page: import('@playwright/test').Page, url: string) {
  return (await (await page.request.get(`${url}/emulator/clock`)).json()).data as { now_ms: number; speed: number };
}

test("the header's clock controls pace a demo from the Messages screen: pause (the badge says Paused), the next event by name, a step, the next retry, resume", async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  // The receiver is down for the first request: its delivery waits for a retry.
  receiver.answer = (_req, i) => (i === 0 ? 503 : 200);
  await registerWebhook(page, served, receiver.url, { delivery: true });
  await page.goto(`${served.url}/messages`);
  const header = page.getByRole('banner');
  const status = header.getByRole('status');
  await expect(status).toHaveText('Running');

  await header.getByTestId('clock-pause').click();
  await expect(status).toHaveText('Paused');
  expect((await clockOf(page, served.url)).speed).toBe(0);

  // Paused, the send's delivery waits; the header names it: its kind and recipient.
  await sendEmail(page, served, 'click@sim.mailyard.test', 'Paced by the presenter');
  const row = page.getByTestId('message-list').getByRole('option').filter({ hasText: 'Paced by the presenter' });
  await expect(row).toContainText('queued');
  const next = header.getByTestId('clock-next-event');
  await expect(next).toHaveText('Next: delivery click@sim.mailyard.test');
  await page.waitForTimeout(1500);
  await expect(row).toContainText('queued');
  expect(receiver.requests).toHaveLength(0);

  // To the next event: the delivery happens (the row says so), the receiver is asked and fails; the
  // next event named is the open.
  await next.click();
  await expect(row).toContainText('delivered');
  await expect(next).toHaveText('Next: open click@sim.mailyard.test');
  expect(receiver.requests).toHaveLength(1);
  await expect(status).toHaveText('Paused');

  // A step moves the paused clock ten seconds.
  const before = (await clockOf(page, served.url)).now_ms;
  await header.getByTestId('clock-step').click();
  await expect.poll(async () => (await clockOf(page, served.url)).now_ms - before).toBe(10_000);
  await expect(row).toContainText(/opened|clicked/);

  // To the next retry, ten minutes on: the failed delivery is sent again and succeeds.
  const retry = header.getByTestId('clock-next-retry-jump');
  await expect(retry).toContainText(/in (10|9) min/);
  await retry.click();
  await expect(retry).toHaveCount(0);
  expect(receiver.requests.length).toBeGreaterThanOrEqual(2);
  expect(receiver.requests.filter((r) => JSON.parse(r.body).event === 'delivery')).toHaveLength(2);

  // Resume: running again, at real speed.
  await header.getByTestId('clock-pause').click();
  await expect(status).toHaveText('Running');
  expect((await clockOf(page, served.url)).speed).toBe(1);
  expect(errors).toEqual([]);
});

test('at 1,440 px with two accounts (one named with 60 characters) every screen link shows, and a subject is not cut to a few words', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  const name = 'Acme Shop (production) — the account of a long-named customer'.slice(0, 60);
  expect(name).toHaveLength(60);
  const account = (await (await page.request.post(`${served.url}/emulator/accounts`, { data: { name } })).json()).data as { id: string; api_key: string };
  const subject = 'Welcome to Acme Shop, your account is ready';
  const sent = await page.request.post(`${served.url}/v1/email/send`, {
    headers: { authorization: `Bearer ${account.api_key}` },
    data: {
      from: { email: 'hello@acme.test', name: 'Acme Shop' },
      to: [{ email: 'ann@example.com' }],
      subject,
      content: [{ type: 'text/html', value: '<p>Hi</p>' }],
    },
  });
  expect(sent.ok()).toBe(true);
  for (const path of ['/messages', `/messages?account=${account.id}`, '/']) {
    await page.goto(`${served.url}${path}`);
    const nav = page.getByRole('navigation', { name: 'Screens' });
    await expect(nav.getByRole('button', { name: /Menu/ })).toBeHidden();
    for (const label of ['Overview', 'Messages', 'Webhook deliveries', 'Catchers', 'Simulation', 'Settings']) {
      await expect(nav.getByRole('link', { name: label, exact: true })).toBeVisible();
    }
  }
  // The subject is read, not cut to "Welcome to A…": the account's long name and the sender give way first.
  await page.goto(`${served.url}/messages`);
  const row = page.getByTestId('message-list').getByRole('option').filter({ hasText: 'ann@example.com' });
  const shown = row.locator('.subject');
  await expect(shown).toHaveText(subject);
  const { visible, whole } = await shown.evaluate((el) => ({ visible: el.clientWidth, whole: el.scrollWidth }));
  expect(visible / whole).toBeGreaterThan(0.9);
  expect(errors).toEqual([]);
});

test('the presentation zoom: one switch in the header makes list text and rows larger on every screen, and the browser remembers it', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await sendEmail(page, served, 'ann@example.com', 'Read from the back of the room');
  await page.goto(`${served.url}/messages`);
  const row = page.getByTestId('message-list').getByRole('option').first();
  await expect(row).toBeVisible();
  const small = (await row.boundingBox())!.height;
  const subjectPx = async () => (await row.locator('.subject').boundingBox())!.height;
  const smallText = await subjectPx();

  const toggle = page.getByRole('banner').getByRole('button', { name: 'Presentation zoom' });
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(async () => (await row.boundingBox())!.height).toBeGreaterThanOrEqual(small * 1.2);
  expect(await subjectPx()).toBeGreaterThanOrEqual(smallText * 1.2);
  // The open message's preview still fits the window (the zoom is laid out, not just drawn larger).
  await row.click();
  await expect(page.getByTestId('message-list')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

  // Remembered: a reload, and another screen, keep it.
  await page.goto(`${served.url}/deliveries`);
  await expect(page.getByRole('banner').getByRole('button', { name: 'Presentation zoom' })).toHaveAttribute('aria-pressed', 'true');
  await page.goto(`${served.url}/messages`);
  await expect.poll(async () => (await page.getByTestId('message-list').getByRole('option').first().boundingBox())!.height).toBeGreaterThanOrEqual(small * 1.2);
  // Off again: back to the usual size.
  await page.getByRole('banner').getByRole('button', { name: 'Presentation zoom' }).click();
  await expect.poll(async () => (await page.getByTestId('message-list').getByRole('option').first().boundingBox())!.height).toBe(small);
  expect(errors).toEqual([]);
});

test("a catcher's rows name the recipient of the event each carried, and a row arriving live is marked for a moment (still, with reduced motion)", async ({
  served,
  page,
}) => {
  test.setTimeout(60_000);
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  const catcher = (await (await page.request.post(`${served.url}/emulator/catchers`, { data: {} })).json()).data as { id: string; url: string };
  expect((await page.request.post(`${served.url}/emulator/catchers/${catcher.id}/use-as-webhook`)).ok()).toBe(true);
  await page.goto(`${served.url}/catchers/${catcher.id}`);
  await expect(page.getByTestId('no-requests')).toBeVisible();
  await sendEmail(page, served, 'ann@example.com', 'Welcome');
  const row = page.getByTestId('caught-request').first();
  await expect(row.getByTestId('caught-event')).toHaveText('delivery');
  await expect(row.getByTestId('caught-recipient')).toHaveText('ann@example.com');
  // Marked as it arrives (a fading tint), and not for long.
  const mark = (el: Element) => el.classList.contains('arrived') && { animation: getComputedStyle(el).animationName, bar: getComputedStyle(el).boxShadow };
  await expect.poll(() => row.evaluate(mark)).toEqual({ animation: 'row-arrived', bar: 'none' });
  await expect(row).not.toHaveClass(/\barrived\b/, { timeout: 6_000 });
  // Loaded with the page (not live), a row is not marked.
  await page.reload();
  await expect(page.getByTestId('caught-request').first()).toBeVisible();
  await expect(page.getByTestId('caught-request').first()).not.toHaveClass(/\barrived\b/);

  // With reduced motion the mark does not move: a still bar, no animation.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await sendEmail(page, served, 'bob@example.com', 'Welcome');
  const second = page.getByTestId('caught-request').filter({ hasText: 'bob@example.com' });
  await expect.poll(() => second.evaluate(mark)).toMatchObject({ animation: 'none', bar: expect.stringContaining('inset') });

  // A message arriving live in the Messages list is marked the same way.
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await page.goto(`${served.url}/messages`);
  await expect(page.getByTestId('message-list').getByRole('option')).toHaveCount(2);
  await expect(page.getByTestId('message-list').locator('.arrived')).toHaveCount(0);
  await sendEmail(page, served, 'cy@example.com', 'Arrives live');
  await expect(page.getByTestId('message-list').getByRole('option').filter({ hasText: 'Arrives live' })).toHaveClass(/\barrived\b/);
  expect(errors).toEqual([]);
});
