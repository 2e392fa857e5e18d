import type { Page } from '@playwright/test';
import { startRelayTarget } from '../helpers/relay-target';
import { api, expect, type Served, test, watchErrors } from './fixtures';

interface Account {
  id: string;
  name: string;
  api_key: string;
}

async function accounts(page: Page, served: Served): Promise<{ main: Account; second: Account }> {
  const second = (await (await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Second' } })).json()).data as Account;
  const all = (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Account[];
  return { main: all.find((a) => a.api_key === served.apiKey)!, second };
}

/** An account's webhooks, read back through the service API with its key. */
async function hooksOf(page: Page, served: Served, account: Account): Promise<Array<{ event: string; webhook_url: string }>> {
  const res = await page.request.get(`${served.url}/v1/webhook`, { headers: { authorization: `Bearer ${account.api_key}` } });
  return (await res.json()).data;
}

const emailHookUrl = async (page: Page, served: Served, account: Account) =>
  (await hooksOf(page, served, account)).find((h) => h.event === 'EMAIL_EVENT')?.webhook_url;

test('webhooks: switching accounts shows each account its own webhook, and saving writes to the account shown only; the choice is in ?account=', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  const R = receiver.url;
  const { main, second } = await accounts(page, served);
  await api(page, served, 'POST', '/v1/webhook/register', {
    webhook_url: `${R}/main`,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: { bounce: true } },
  });
  const reg = await page.request.post(`${served.url}/v1/webhook/register`, {
    headers: { authorization: `Bearer ${second.api_key}` },
    data: { webhook_url: `${R}/second`, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } },
  });
  expect(reg.ok()).toBe(true);

  await page.goto(`${served.url}/webhooks`);
  const form = page.getByTestId('webhook-EMAIL_EVENT');
  const url = form.getByLabel('Webhook URL');
  const picker = page.getByRole('combobox', { name: 'Account' });
  await expect(url).toHaveValue(`${R}/main`);

  // Each account in turn, twice round: the form shows that account's webhook.
  for (const [account, shown, event] of [
    [second, `${R}/second`, 'delivery'],
    [main, `${R}/main`, 'bounce'],
    [second, `${R}/second`, 'delivery'],
  ] as const) {
    await picker.selectOption({ label: account.name });
    await expect(page).toHaveURL(new RegExp(`[?&]account=${account.id}`));
    await expect(form.getByLabel('Webhook URL')).toHaveValue(shown);
    await expect(form.getByRole('checkbox', { name: event })).toBeChecked();
  }

  // Saved on Second (shown): Second changes, Default keeps its own.
  await form.getByLabel('Webhook URL').fill(`${R}/second-new`);
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(form.getByTestId('webhook-notice')).toBeVisible();
  expect(await emailHookUrl(page, served, second)).toBe(`${R}/second-new`);
  expect(await emailHookUrl(page, served, main)).toBe(`${R}/main`);

  // A reload keeps the account chosen.
  await page.reload();
  await expect(picker).toHaveValue(second.id);
  await expect(form.getByLabel('Webhook URL')).toHaveValue(`${R}/second-new`);

  // Back to Default, saved there: Default changes, Second keeps its own.
  await picker.selectOption({ label: main.name });
  await expect(form.getByLabel('Webhook URL')).toHaveValue(`${R}/main`);
  await form.getByLabel('Webhook URL').fill(`${R}/main-new`);
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(form.getByTestId('webhook-notice')).toBeVisible();
  expect(await emailHookUrl(page, served, main)).toBe(`${R}/main-new`);
  expect(await emailHookUrl(page, served, second)).toBe(`${R}/second-new`);

  // An account without webhooks shows an empty form, not another account's.
  await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Third' } });
  await page.reload();
  await picker.selectOption({ label: 'Third' });
  await expect(form.getByLabel('Webhook URL')).toHaveValue('');
  await expect(form).toContainText('not registered');
  expect(errors).toEqual([]);
});

test('mailers, domains and send: switching accounts shows the account chosen, and what is saved goes to that account only', async ({ served, page }) => {
  const errors = watchErrors(page);
  const { main, second } = await accounts(page, served);
  const target = await startRelayTarget({ user: 'acc-user', pass: 'acc-pass-123' });
  try {
    // Mailers: one added on Default, one on Second; each list shows only its own.
    await page.goto(`${served.url}/mailers`);
    const picker = page.getByRole('combobox', { name: 'Account' });
    const form = page.getByRole('form', { name: 'Add a mailer' });
    const addMailer = async (name: string) => {
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByLabel('Email', { exact: true }).fill('app@example.com');
      await form.getByLabel('Port').fill(String(target.port));
      await form.getByLabel('Username').fill('acc-user');
      await form.getByLabel('Password').fill('acc-pass-123');
      await form.getByRole('button', { name: 'Add SMTP mailer' }).click();
      await expect(page.getByRole('table', { name: 'Mailers' }).getByRole('row').filter({ hasText: name })).toBeVisible();
    };
    await addMailer('Main relay');
    await picker.selectOption({ label: 'Second' });
    await expect(page.getByText('No mailers yet.')).toBeVisible();
    await addMailer('Second relay');
    await expect(page.getByRole('table', { name: 'Mailers' })).not.toContainText('Main relay');
    await picker.selectOption({ label: main.name });
    await expect(page.getByRole('table', { name: 'Mailers' })).toContainText('Main relay');
    await expect(page.getByRole('table', { name: 'Mailers' })).not.toContainText('Second relay');
    const mailers = (await (await page.request.get(`${served.url}/emulator/mailers`)).json()).data as Array<{ name: string; account_id: string }>;
    expect(mailers.find((m) => m.name === 'Main relay')?.account_id).toBe(main.id);
    expect(mailers.find((m) => m.name === 'Second relay')?.account_id).toBe(second.id);

    // Domains: added with Second chosen, it is Second's.
    await page.goto(`${served.url}/domains`);
    await page.getByRole('combobox', { name: 'Account' }).selectOption({ label: 'Second' });
    await page.getByLabel('Domain', { exact: true }).fill('second.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect(page.getByText('second.example').first()).toBeVisible();
    await page.getByRole('combobox', { name: 'Account' }).selectOption({ label: main.name });
    await page.getByLabel('Domain', { exact: true }).fill('main.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect(page.getByText('main.example').first()).toBeVisible();
    const domains = (await (await page.request.get(`${served.url}/emulator/domains`)).json()).data as Array<{ domain: string; account_id: string }>;
    expect(domains.find((d) => d.domain === 'second.example')?.account_id).toBe(second.id);
    expect(domains.find((d) => d.domain === 'main.example')?.account_id).toBe(main.id);

    // Send: as the account chosen, switched there and back.
    await page.goto(`${served.url}/send`);
    const account = page.getByRole('combobox', { name: 'Account' });
    await account.selectOption({ label: 'Second' });
    await account.selectOption({ label: main.name });
    await account.selectOption({ label: 'Second' });
    await expect(page.getByText('POST /v1/email/send as Second')).toBeVisible();
    await page.getByLabel('To', { exact: true }).fill('ann@example.com');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const refId = await page.getByTestId('send-ref-id').textContent();
    const sent = (await (await page.request.get(`${served.url}/emulator/messages?q=${refId}`)).json()).data.messages as Array<{
      ref_id: string;
      account_id: string;
    }>;
    expect(sent.filter((m) => m.ref_id === refId).map((m) => m.account_id)).toEqual([second.id]);
  } finally {
    await target.close();
  }
  expect(errors).toEqual([]);
});

test('accounts by name on message rows, the message page and deliveries; deliveries filtered by account; ?account= survives a reload', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  const { main, second } = await accounts(page, served);
  for (const account of [main, second]) {
    const reg = await page.request.post(`${served.url}/v1/webhook/register`, {
      headers: { authorization: `Bearer ${account.api_key}` },
      data: { webhook_url: `${receiver.url}/${account.name}`, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } },
    });
    expect(reg.ok()).toBe(true);
    const send = await page.request.post(`${served.url}/v1/email/send`, {
      headers: { authorization: `Bearer ${account.api_key}` },
      data: {
        from: { email: 'app@example.com' },
        to: [{ email: `to-${account.name.toLowerCase()}@example.com` }],
        subject: `From ${account.name}`,
        content: [{ type: 'text/plain', value: 'Hi' }],
      },
    });
    expect(send.ok()).toBe(true);
  }

  // Messages: each row names its account; the filter is in the URL and survives a reload.
  await page.goto(`${served.url}/messages`);
  const rows = page.getByTestId('message-list').getByRole('option');
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'to-second@example.com' }).getByTestId('message-account')).toHaveText('Second');
  await expect(rows.filter({ hasText: `to-${main.name.toLowerCase()}@example.com` }).getByTestId('message-account')).toHaveText(main.name);
  await page.getByRole('combobox', { name: 'Account' }).selectOption({ label: 'Second' });
  await expect(page).toHaveURL(new RegExp(`[?&]account=${second.id}`));
  await expect(rows).toHaveCount(1);
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Account' })).toHaveValue(second.id);
  await expect(rows).toHaveCount(1);
  await rows.first().click();
  await expect(page.getByTestId('message-detail').getByTestId('message-account')).toHaveText('Second');

  // Deliveries: rows and detail name the account; the account filter (API side too) is in the URL.
  await page.goto(`${served.url}/deliveries`);
  const deliveries = page.getByTestId('delivery-list').getByRole('option');
  await expect(deliveries).toHaveCount(2);
  await expect(deliveries.filter({ hasText: 'to-second@example.com' }).getByTestId('delivery-account')).toHaveText('Second');
  await page.getByRole('combobox', { name: 'Account' }).selectOption({ label: 'Second' });
  await expect(page).toHaveURL(new RegExp(`[?&]account=${second.id}`));
  await expect(deliveries).toHaveCount(1);
  await expect(page.getByTestId('delivery-count')).toHaveText('1 delivery');
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Account' })).toHaveValue(second.id);
  await expect(deliveries).toHaveCount(1);
  await deliveries.first().click();
  await expect(page.getByTestId('delivery-detail').getByTestId('delivery-account')).toHaveText('Second');
  expect(errors).toEqual([]);
});
