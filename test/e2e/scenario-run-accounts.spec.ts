import { expect, test, watchErrors } from './fixtures';

/** A short run with an account of its own: 10 sends at a 60x clock, over in about a second. */
const shortRun = (name: string, webhookUrl: string) => `version: 1
name: ${name}
clock: { speed: 60 }
duration: 1m
webhook:
  url: ${webhookUrl}
  events: [delivery]
traffic:
  count: 10
  rate: 50/s
  subject: Hello
  html: <p>Hello</p>
  to: "user{n}@example.test"
outcomes:
  - match: { pattern: "*@example.test" }
    fate: delivered
`;

// Each run keeps its account; the Scenarios screen removes them with their data, and the switcher follows.
test('Scenarios: “Remove run accounts” deletes the runs’ accounts with their data; the switcher drops them', async ({ served, receiver, page }) => {
  test.setTimeout(90_000);
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  const runIds: string[] = [];
  for (const name of ['Cleanup A', 'Cleanup B']) {
    const started = await page.request.post(`${served.url}/emulator/scenarios/runs`, { data: { source: shortRun(name, receiver.url) } });
    expect(started.status()).toBe(202);
    const id = (await started.json()).data.id as string;
    runIds.push(id);
    await expect.poll(async () => (await page.request.get(`${served.url}/emulator/scenarios/runs/${id}/report`)).status(), { timeout: 30_000 }).toBe(200);
  }
  const accountsNow = async () => (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Array<{ id: string; name: string }>;
  const runAccounts = (await accountsNow()).filter((a) => a.name.startsWith('scenario: Cleanup'));
  expect(runAccounts).toHaveLength(2);
  const messagesOf = async (id: string) =>
    (await (await page.request.get(`${served.url}/emulator/messages/count?account_id=${id}`)).json()).data.count as number;
  let messages = 0;
  for (const a of runAccounts) messages += await messagesOf(a.id);
  expect(messages).toBeGreaterThan(0);

  // Working as one of the run accounts: the switcher shows it chosen.
  await page.goto(`${served.url}/scenarios?account=${runAccounts[0]!.id}`);
  const switcher = page.getByRole('banner').getByLabel('Account');
  for (const a of runAccounts) await expect(switcher.locator('option', { hasText: a.name })).toHaveCount(1);
  await expect(switcher).toHaveValue(runAccounts[0]!.id);

  // The run shown offers to remove just its own account.
  await expect(page.getByTestId('remove-run-account')).toHaveText('Remove its account…');
  await page.screenshot({ path: 'test-results/scenario-run-accounts-before.png' });
  await page.getByTestId('remove-run-accounts').click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toContainText('Delete the accounts of 2 runs');
  for (const a of runAccounts) await expect(page.getByTestId('delete-accounts-names')).toContainText(a.name);
  // What they hold, counted before anything is deleted.
  await expect(dialog).toContainText(`They hold ${messages} messages and `);
  await page.screenshot({ path: 'test-results/scenario-run-accounts-confirm.png' });
  await dialog.getByRole('button', { name: 'Delete' }).click();

  await expect(page.getByTestId('remove-run-accounts-outcome')).toHaveText(new RegExp(`^2 accounts removed: ${messages} messages, .*2 webhooks`));
  await expect(page.getByTestId('remove-run-accounts')).toHaveCount(0);
  await expect(page.getByTestId('remove-run-account')).toHaveCount(0);
  // The switcher lost them (only the default and --api-key accounts are left: one, so it hides) and the URL no longer names one.
  await expect(switcher).toHaveCount(0);
  await expect.poll(() => new URL(page.url()).searchParams.get('account')).toBeNull();
  // The runs stay, each saying its account is gone.
  await expect(page.getByTestId('scenario-runs').getByTestId('run-account-removed')).toHaveCount(2);
  await page.getByTestId('scenario-runs').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/scenario-run-accounts-removed.png' });
  expect((await accountsNow()).map((a) => a.name)).toEqual(['Default']);
  for (const a of runAccounts) expect(await messagesOf(a.id)).toBe(0);
  expect(errors).toEqual([]);
});

// A deletion elsewhere (the API, another window) reaches the open page over the live stream.
test('Settings: deleting an account asks first, names what goes, and every open page’s switcher drops it', async ({ served, page, context }) => {
  const errors = watchErrors(page);
  const created = await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Throwaway' } });
  const throwaway = (await created.json()).data as { id: string };
  await page.goto(`${served.url}/messages?account=${throwaway.id}`);
  const switcher = page.getByRole('banner').getByLabel('Account');
  await expect(switcher).toHaveValue(throwaway.id);

  const settings = await context.newPage();
  await settings.goto(`${served.url}/settings`);
  await expect(settings.getByRole('button', { name: 'Delete Default' })).toHaveCount(0);
  await settings.getByRole('button', { name: 'Delete Throwaway' }).click();
  await expect(settings.getByTestId('confirm-dialog')).toContainText('Delete the account “Throwaway” and all its data?');
  await expect(settings.getByTestId('confirm-dialog')).toContainText('0 messages and 0 webhook deliveries');
  await settings.screenshot({ path: 'test-results/settings-delete-account.png' });
  await settings.getByTestId('confirm-dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(settings.getByTestId('accounts-notice')).toHaveText('Account “Throwaway” removed (it held no data)');
  await expect(settings.getByRole('cell', { name: 'Throwaway' })).toHaveCount(0);

  // The first page heard it live: it says the account it listed was deleted, keeps it named (no other
  // account in its place) until the user chooses, and then lists all accounts again.
  const notice = page.getByTestId('account-gone');
  await expect(notice).toContainText('The account “Throwaway” was deleted');
  expect(new URL(page.url()).searchParams.get('account')).toBe(throwaway.id);
  await notice.getByRole('button', { name: 'Show all accounts' }).click();
  await expect(notice).toHaveCount(0);
  await expect(switcher).toHaveCount(0); // one account left
  await expect.poll(() => new URL(page.url()).searchParams.get('account')).toBeNull();
  expect(errors).toEqual([]);
});

// A run started while the page is open made its account after the page read the accounts: the page
// learns of it live, and never calls a living run's account removed.
test('Scenarios: a run started with the page open is not shown as "account removed"; the switcher lists its new account', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/scenarios`);
  await expect(page.getByRole('heading', { name: 'Scenario', exact: true })).toBeVisible();
  const started = await page.request.post(`${served.url}/emulator/scenarios/runs`, { data: { source: shortRun('Live account', receiver.url) } });
  expect(started.status()).toBe(202);
  const runs = page.getByTestId('scenario-runs');
  await expect(runs).toContainText('Live account');
  const switcher = page.getByRole('banner').getByLabel('Account');
  await expect(switcher.locator('option', { hasText: 'scenario: Live account' })).toHaveCount(1);
  await expect(page.getByTestId('run-account-removed')).toHaveCount(0);
  const id = (await started.json()).data.id as string;
  await expect.poll(async () => (await page.request.get(`${served.url}/emulator/scenarios/runs/${id}/report`)).status(), { timeout: 30_000 }).toBe(200);
  await expect(page.getByTestId('run-account-removed')).toHaveCount(0);
  expect(errors).toEqual([]);
});

// A demo runs on the presenter's account: the one chosen in the header, or picked under the editor.
test('Scenarios: a run on a chosen existing account sends as it, its webhook gets the events, and it is never offered for removal', async ({
  served,
  receiver,
  page,
}) => {
  test.setTimeout(90_000);
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  const created = await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Acme Shop (production)' } });
  const acme = (await created.json()).data as { id: string; api_key: string };
  const registered = await page.request.post(`${served.url}/v1/webhook/register`, {
    headers: { authorization: `Bearer ${acme.api_key}` },
    data: { webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } },
  });
  expect(registered.ok()).toBe(true);

  // Chosen in the header: the run is offered on it.
  await page.goto(`${served.url}/scenarios?account=${acme.id}`);
  const runOn = page.getByLabel('Run on');
  await expect(runOn).toHaveValue(acme.id);
  await expect(page.getByTestId('scenario-run-on')).toHaveText(
    'Sends as “Acme Shop (production)”: its webhook gets the events, and its other sends during the run count too.',
  );
  // Not chosen in the header: the scenario's own account, until one is picked here.
  await page.goto(`${served.url}/scenarios`);
  await expect(runOn).toHaveValue('');
  await runOn.selectOption({ label: 'Acme Shop (production)' });
  await page.getByLabel('Scenario (YAML or JSON)').fill(`version: 1
name: Demo on Acme
clock: { speed: 60 }
traffic: { count: 4, rate: 20/s, to: "guest{n}@example.test" }
expect:
  receiver: { acknowledgedAll: true }
`);
  await page.screenshot({ path: test.info().outputPath('scenario-run-on.png') });
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('scenario-status')).toHaveText('passed', { timeout: 40_000 });
  await expect(page.getByTestId('scenario-verdict')).toHaveText('PASS');

  const runs = (await (await page.request.get(`${served.url}/emulator/scenarios/runs`)).json()).data as Array<{ accountId: string; newAccount: boolean }>;
  expect(runs[0]).toMatchObject({ accountId: acme.id, newAccount: false });
  const count = await page.request.get(`${served.url}/emulator/messages/count?account_id=${acme.id}`);
  expect((await count.json()).data.count).toBe(4);
  await expect.poll(() => receiver.requests.length).toBe(4);
  // No account was made for it, and the account it used is not a run account to remove.
  const accounts = (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Array<{ name: string }>;
  expect(accounts.map((a) => a.name).sort()).toEqual(['Acme Shop (production)', 'Default']);
  await expect(page.getByTestId('remove-run-account')).toHaveCount(0);
  await expect(page.getByTestId('remove-run-accounts')).toHaveCount(0);
  expect(errors).toEqual([]);
});
