import { expect, test } from '@playwright/test';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process';
import { watchErrors } from './fixtures';

/**
 * `mailyard serve --host 0.0.0.0` asks the web UI for its control key (anyone on the network could
 * otherwise read the captured mail). The browser
 * connects through 127.0.0.1 only (the listener is on every address, the traffic stays on loopback).
 */

let serve: ServeProcess;
let base: string;
let controlKey: string;
const apiKey = 'e2e-network-key-0123456789';

test.beforeEach(async () => {
  serve = await startServeProcess(['--host', '0.0.0.0', '--http-port', '0', '--memory', '--api-key', apiKey]);
  const port = /:(\d+)$/.exec(serve.url)![1];
  base = `http://127.0.0.1:${port}`;
  controlKey = /^Control:\s+(\S+)/m.exec(serve.stdout())![1]!;
});

test.afterEach(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
});

test('the web UI asks for the control key, logs in with an HttpOnly SameSite=Strict cookie, and shows the captured mail', async ({
  page,
  context,
  browser,
}) => {
  // 401s are what the page runs into before the login: expected, not errors.
  const errors = watchErrors(page, [/401 \(Unauthorized\)/]);
  expect(serve.stdout()).toMatch(/^WARNING: +listening on 0\.0\.0\.0: reachable from the network/m);
  const sent = await page.request.post(`${base}/v1/email/send`, {
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    data: JSON.stringify({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.com' }],
      subject: 'Behind the key',
      content: [{ type: 'text/html', value: '<h1>Hello from behind the key</h1>' }],
    }),
  });
  expect(sent.status()).toBe(200);

  // Without the key: the login, and no data (the control API answers 401 to the browser too).
  await page.goto(`${base}/messages`);
  await expect(page.getByRole('heading', { name: 'Log in to Mailyard' })).toBeVisible();
  await expect(page.getByText('Behind the key')).toHaveCount(0);
  expect((await page.request.get(`${base}/emulator/messages`)).status()).toBe(401);

  // A wrong key is said so, in words.
  await page.getByLabel('Control key').fill('not-the-control-key-at-all');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('alert')).toContainText('not the control key');

  // The right one opens the screen that was asked for, live data and all.
  await page.getByLabel('Control key').fill(controlKey);
  await page.getByRole('button', { name: 'Log in' }).click();
  const list = page.getByTestId('message-list');
  await expect(list).toContainText('Behind the key');
  const cookies = await context.cookies(base);
  expect(cookies).toHaveLength(1);
  expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  expect(cookies[0]!.value).not.toContain(controlKey);

  // The message's preview (its own request, in a sandboxed frame) and the live stream work with the cookie.
  await list.getByRole('option').first().click();
  await expect(page.frameLocator('iframe[title="HTML preview"]').getByRole('heading', { name: 'Hello from behind the key' })).toBeVisible();
  await page.request.post(`${base}/v1/email/send`, {
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    data: JSON.stringify({
      from: { email: 'app@example.com' },
      to: [{ email: 'bob@example.com' }],
      subject: 'Arrives live',
      content: [{ type: 'text/plain', value: 'hi' }],
    }),
  });
  await expect(list).toContainText('Arrives live');

  // A reload keeps the login; another browser context (no cookie) gets the login screen.
  await page.reload();
  await expect(page.getByTestId('message-list')).toContainText('Arrives live');
  const other = await browser.newContext();
  const stranger = await other.newPage();
  await stranger.goto(`${base}/`);
  await expect(stranger.getByRole('heading', { name: 'Log in to Mailyard' })).toBeVisible();
  await other.close();
  expect(errors).toEqual([]);
});
