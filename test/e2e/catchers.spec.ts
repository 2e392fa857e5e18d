import { Webhook } from 'standardwebhooks';
import { expect, test, watchErrors } from './fixtures';

// Retries three seconds apart: a failing catcher shows its retries while the test watches.
test.use({ serveArgs: ['--retry-schedule', '3s,3s,3s,3s,3s,3s'] });

test('from a fresh start: catch webhooks here, send a test email, events arrive live, a switch to 500 shows retries, back to 200, a replay re-signed', async ({
  served,
  page,
}) => {
  test.setTimeout(90_000);
  const errors = watchErrors(page);
  await page.goto(served.url);
  await expect(page.getByTestId('demo-catch')).toBeVisible();
  await page.screenshot({ path: 'test-results/catchers-overview.png' });

  // Two clicks on Overview: a catcher as the account's webhook, then a test email; the catcher's page opens.
  await page.getByTestId('demo-catch').click();
  await expect(page.getByTestId('demo-catching')).toContainText('/catch/');
  await page.getByTestId('demo-send').click();
  await expect(page).toHaveURL(/\/catchers\/[0-9A-Z]{26}$/);
  const url = await page.getByTestId('catcher-url').textContent();
  expect(url).toMatch(new RegExp(`^${served.url}/catch/`));

  // The delivery, open and click arrive live, each a first attempt answered 200.
  const rows = page.getByTestId('caught-request');
  await expect(rows).toHaveCount(3, { timeout: 20_000 });
  await expect(page.getByTestId('caught-status')).toHaveText(['200', '200', '200']);
  await expect(page.getByTestId('caught-attempt')).toHaveText(['first attempt', 'first attempt', 'first attempt']);
  await expect(page.getByTestId('caught-signature').first()).toHaveText('unsigned');
  // Each beside the delivery that sent it.
  await expect(rows.first().getByRole('link')).toHaveAttribute('href', /^\/deliveries\/[0-9A-Z]{26}$/);
  await page.screenshot({ path: 'test-results/catchers-events.png', fullPage: true });

  // The catcher fails now: the next email's events are answered 500 and retried.
  await page.getByTestId('catcher-mode').selectOption('fail');
  await expect(page.getByTestId('catcher-mode-now')).toHaveText('now: 500');
  await page.getByTestId('catcher-send').click();
  await expect(page.getByTestId('caught-status').first()).toHaveText('500', { timeout: 20_000 });
  await expect(page.getByTestId('caught-attempt').filter({ hasText: 'attempt 2 (retry)' }).first()).toBeVisible({ timeout: 20_000 });
  await page.screenshot({ path: 'test-results/catchers-retries.png', fullPage: true });

  // Back to 200: the next retry of each failing delivery succeeds.
  await page.getByTestId('catcher-mode').selectOption('ok');
  await expect(page.getByTestId('catcher-mode-now')).toHaveText('now: 200');
  const retried200 = rows.filter({ has: page.getByTestId('caught-status').filter({ hasText: /^200$/ }) }).filter({ hasText: '(retry)' });
  await expect(retried200.first()).toBeVisible({ timeout: 20_000 });

  // The Deliveries screen says the same: a delivery that failed first, then succeeded.
  const deliveryHref = await retried200.first().getByRole('link').getAttribute('href');
  await page.goto(`${served.url}${deliveryHref}`);
  await expect(page.getByText('500').first()).toBeVisible();

  // A replay is signed afresh: with signing on, Retry now sends the delivery again, and what the
  // catcher received verifies with the standardwebhooks package (the secret, the body and headers as caught).
  const accounts = (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Array<{ id: string }>;
  const secret = (await (await page.request.put(`${served.url}/emulator/accounts/${accounts[0]!.id}/signing-secret`, { data: {} })).json()).data
    .signing_secret as string;
  await page.getByRole('button', { name: 'Retry now' }).click();
  await expect(page.getByTestId('retry-notice')).toContainText('succeeded (HTTP 200)');
  const catcherId = /\/catch\/([0-9A-Z]{26})/.exec(url!)![1]!;
  // The replay is the newest request of that delivery: the other deliveries of that email may still be
  // retrying, so the newest request of all can be one of theirs.
  const requests = (await (await page.request.get(`${served.url}/emulator/catchers/${catcherId}/requests?limit=50`)).json()).data.requests as Array<{
    headers: Record<string, string>;
    body: string;
  }>;
  const caught = requests.find((r) => r.headers['webhook-id'] === deliveryHref!.split('/').pop());
  expect(caught, 'the replay reached the catcher').toBeDefined();
  expect(() => new Webhook(secret).verify(caught!.body, caught!.headers)).not.toThrow();
  await page.goBack();

  // A request's headers and body open in place (found by its number: a later request may arrive live above it).
  const head = rows.first().getByRole('button').first();
  const number = /#\d+/.exec(await head.innerText())![0];
  const opened = rows.filter({ has: page.getByRole('button', { name: new RegExp(`^${number} `) }) });
  await opened.getByRole('button').first().click();
  await expect(opened).toContainText('webhook-id');
  await page.screenshot({ path: 'test-results/catchers-detail.png', fullPage: true });
  expect(errors).toEqual([]);
});

test('a catcher made in one click, made the webhook in a second, shows each signature verified with the account secret', async ({ served, page }) => {
  const accounts = (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Array<{ id: string }>;
  const signed = await page.request.put(`${served.url}/emulator/accounts/${accounts[0]!.id}/signing-secret`, { data: {} });
  expect(signed.ok()).toBe(true);
  await page.goto(`${served.url}/catchers`);
  await page.getByTestId('new-catcher').click();
  await expect(page).toHaveURL(/\/catchers\/[0-9A-Z]{26}$/);
  await expect(page.getByTestId('no-requests')).toBeVisible();
  await page.getByTestId('use-as-webhook').click();
  await expect(page.getByText("Registered as Default's webhook for every event kind.")).toBeVisible();
  const fired = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', recipient: 'a@example.com' } });
  expect(fired.ok()).toBe(true);
  await expect(page.getByTestId('caught-signature')).toHaveText(['signature valid']);
});

test('a request that came while the live stream was not yet up shows once it connects', async ({ served, page }) => {
  const errors = watchErrors(page);
  const catcher = (await (await page.request.post(`${served.url}/emulator/catchers`, { data: {} })).json()).data as { id: string; url: string };
  // The stream held back, as on a busy machine: the page shows its (empty) list before it is up.
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route('**/emulator/stream', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${served.url}/catchers/${catcher.id}`);
  await expect(page.getByTestId('no-requests')).toBeVisible();
  expect((await page.request.post(catcher.url, { data: { event: 'delivery' } })).ok()).toBe(true);
  release();
  await expect(page.getByTestId('caught-request')).toHaveCount(1);
  expect(errors).toEqual([]);
});
