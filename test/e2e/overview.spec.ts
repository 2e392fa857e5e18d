import { expect, test } from './fixtures';

test('the first page shows the listeners and the API key, and copies the key', async ({ served, page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

  await page.goto(served.url);
  await expect(page.getByRole('status')).toHaveText('Running');
  await expect(page.getByTestId('http-url')).toHaveText(served.url);
  await expect(page.getByTestId('api-key')).toHaveText(served.apiKey);
  await expect(page.getByText('in memory: nothing is kept after exit')).toBeVisible();

  await page.getByRole('button', { name: `Copy key: ${served.apiKey}` }).click();
  await expect(page.getByRole('button', { name: `Copy key: ${served.apiKey}` })).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(served.apiKey);

  // The ready-made command registers a webhook against this emulator with this key.
  await expect(page.locator('pre.snippet.webhook-cmd')).toContainText(`curl -X POST ${served.url}/v1/webhook/register`);
  await expect(page.locator('pre.snippet.webhook-cmd')).toContainText(`Authorization: Bearer ${served.apiKey}`);
  expect(errors).toEqual([]);
});

test('a deep link serves the UI, and the API documents itself', async ({ served, page }) => {
  await page.goto(`${served.url}/messages/some-id`);
  await expect(page.getByRole('status')).toHaveText('Running');
  const res = await page.request.get(`${served.url}/openapi.json`);
  expect(res.status()).toBe(200);
  expect((await res.json()).openapi).toBe('3.1.0');
});

test('the page runs under its content security policy', async ({ served, page }) => {
  const response = await page.goto(served.url);
  expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
  // An inline script is refused by the policy.
  const ran = await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inline = true';
    document.body.append(s);
    return (window as unknown as { __inline?: boolean }).__inline === true;
  });
  expect(ran).toBe(false);
});
