import type { Page } from '@playwright/test';
import { expect, type Served, test, watchErrors } from './fixtures';

interface Account {
  id: string;
  api_key: string;
}

/** The account's webhooks as its own key reads them (GET /v1/webhook). */
async function webhooksOf(page: Page, served: Served, apiKey: string): Promise<Array<{ event: string; webhook_url: string }>> {
  const res = await page.request.get(`${served.url}/v1/webhook`, { headers: { authorization: `Bearer ${apiKey}` } });
  return (await res.json()).data;
}

test('catchers follow the account chosen in the header: Catch webhooks here, New catcher, Use as its webhook, the list', async ({ served, page }) => {
  const errors = watchErrors(page);
  // Wide enough for the header's links beside the switcher.
  await page.setViewportSize({ width: 1600, height: 900 });
  const acme = (await (await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Acme Shop (production)' } })).json()).data as Account;
  // Default has a catcher of its own, which Acme's list must not show.
  const defaults = (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Array<Account & { is_default: boolean }>;
  const def = defaults.find((a) => a.is_default)!;
  const defaultsCatcher = (await (await page.request.post(`${served.url}/emulator/catchers`, { data: { name: 'Default’s own' } })).json()).data as {
    id: string;
  };

  // Overview, as Acme: Catch webhooks here makes a catcher Acme's webhook, not Default's.
  await page.goto(served.url);
  const switcher = page.getByRole('banner').getByRole('combobox', { name: 'Account' });
  await switcher.selectOption({ label: 'Acme Shop (production)' });
  await expect(page.getByTestId('demo-account')).toHaveText('Acme Shop (production)');
  await page.getByTestId('demo-catch').click();
  await expect(page.getByTestId('demo-catching')).toContainText('/catch/');
  const demoUrl = (await page.getByTestId('demo-catching').locator('code').textContent())!;
  expect((await webhooksOf(page, served, acme.api_key)).map((h) => h.webhook_url)).toEqual([demoUrl]);
  expect(await webhooksOf(page, served, def.api_key)).toEqual([]);

  // Catchers, as Acme: the list is Acme's only, and says so.
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Catchers', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/catchers\\?account=${acme.id}$`));
  await expect(page.getByTestId('catchers-account')).toContainText("Acme Shop (production)'s catchers");
  const list = page.getByRole('region', { name: 'Catchers' }).getByRole('listitem');
  await expect(list).toHaveCount(1);
  await expect(page.getByRole('link', { name: 'Default’s own' })).toHaveCount(0);

  // New catcher: Acme's; Use as Acme's webhook points Acme's webhook at it.
  await page.getByTestId('new-catcher').click();
  await expect(page).toHaveURL(new RegExp(`/catchers/[0-9A-Z]{26}\\?account=${acme.id}$`));
  await expect(page.getByTestId('catcher-account')).toHaveText("Acme Shop (production)'s catcher");
  await expect(list).toHaveCount(2);
  const url = (await page.getByTestId('catcher-url').textContent())!;
  await expect(page.getByTestId('use-as-webhook')).toHaveText("Use as Acme Shop (production)'s webhook (every event kind)");
  await page.getByTestId('use-as-webhook').click();
  await expect(page.getByText("Acme Shop (production)'s webhook now points here, every event kind on.")).toBeVisible();
  expect((await webhooksOf(page, served, acme.api_key)).map((h) => h.webhook_url)).toEqual([url]);
  expect(await webhooksOf(page, served, def.api_key)).toEqual([]);
  const acmeCatchers = (await (await page.request.get(`${served.url}/emulator/catchers?account_id=${acme.id}`)).json()).data.catchers as Array<{
    id: string;
  }>;
  expect(acmeCatchers).toHaveLength(2);
  expect(acmeCatchers.map((c) => c.id)).not.toContain(defaultsCatcher.id);

  // An event of Acme's arrives, as a first attempt; a copy of its request (Copy as curl, run) is said to be no attempt.
  const fired = (await (await page.request.post(`${served.url}/emulator/events`, { data: { event: 'open', account_id: acme.id } })).json()).data;
  const caught = page.getByTestId('caught-request');
  await expect(caught).toHaveCount(1);
  await expect(page.getByTestId('caught-attempt')).toHaveText(['first attempt']);
  const signed = (await (await page.request.post(`${served.url}/emulator/deliveries/${fired.delivery_id}/signed-request`)).json()).data;
  await page.request.post(signed.url, { headers: signed.headers, data: signed.body });
  await expect(page.getByTestId('caught-attempt')).toHaveText(['a copy of its request, not an attempt', 'first attempt']);
  await page.screenshot({ path: test.info().outputPath('catchers-acme.png') });

  // Back to Default: its list has only its own catcher.
  await switcher.selectOption({ label: 'Default' });
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Catchers', exact: true }).click();
  await expect(list).toHaveCount(1);
  await expect(page.getByRole('link', { name: 'Default’s own' })).toBeVisible();
  await expect(page.getByTestId('catchers-account')).toContainText("Default's catchers");
  expect(errors).toEqual([]);
});
