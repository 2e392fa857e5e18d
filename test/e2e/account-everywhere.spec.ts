import { expect, test, watchErrors } from './fixtures';

/** Every screen's header link, by the name it shows. */
const HEADER_LINKS = [
  'Messages',
  'Webhook deliveries',
  'Send',
  'Fire event',
  'Webhooks',
  'Simulation',
  'Suppressions',
  'Scenarios',
  'Domains',
  'Mailers',
  'Settings',
  'Overview',
];

test('the account chosen in the header survives every header link, a reload, and Fire event uses it', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1600, height: 900 });
  const teamB = (await (await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Team B' } })).json()).data as {
    id: string;
    api_key: string;
  };
  // Only Team B has a webhook: an event fired as the default account would not be sent.
  const hook = await page.request.post(`${served.url}/v1/webhook/register`, {
    headers: { authorization: `Bearer ${teamB.api_key}` },
    data: { webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } },
  });
  expect(hook.ok()).toBe(true);

  await page.goto(`${served.url}/messages`);
  const header = page.getByRole('banner');
  const switcher = header.getByRole('combobox', { name: 'Account' });
  await switcher.selectOption({ label: 'Team B' });
  await expect(page).toHaveURL(new RegExp(`[?&]account=${teamB.id}`));

  const nav = page.getByRole('navigation', { name: 'Screens' });
  for (const name of HEADER_LINKS) {
    await nav.getByRole('link', { name, exact: true }).click();
    await expect(page, name).toHaveURL(new RegExp(`[?&]account=${teamB.id}`));
    await expect(switcher, name).toHaveValue(teamB.id);
  }
  await page.reload();
  await expect(switcher).toHaveValue(teamB.id);

  // Fire event works as the header's account: Team B's webhook filter sends it.
  await nav.getByRole('link', { name: 'Fire event', exact: true }).click();
  await expect(page.getByTestId('filter-verdict')).toHaveText('The webhook filter will send this event.');
  await page.getByRole('button', { name: 'Fire delivery' }).click();
  await expect(page.getByTestId('fire-result')).toBeVisible();
  await receiver.waitFor(1);
  expect(errors).toEqual([]);
});
