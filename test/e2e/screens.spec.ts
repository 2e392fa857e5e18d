import { api, expect, registerWebhook, sendEmail, test, watchErrors } from './fixtures';

test('Fire event: the payload preview, the filter verdict in words, and firing at a message', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/events`);
  await page.getByLabel('Event kind').selectOption('bounce');
  await page.getByRole('textbox', { name: 'Recipient' }).fill('qa@example.com');
  await expect(page.getByTestId('payload-preview')).toContainText('"recipient": {');
  await expect(page.getByTestId('payload-preview')).toContainText('"email": "qa@example.com"');
  await expect(page.getByTestId('filter-verdict')).toHaveText(
    'The webhook filter will not send it: the account has no EMAIL_EVENT webhook; register one to receive events. Webhooks',
  );
  // Overrides show in the preview; a field the payload does not have is refused in the API's words.
  await page.getByLabel('Field overrides').fill('{"bounce_type": "soft", "campaign_id": "spring"}');
  await expect(page.getByTestId('payload-preview')).toContainText('"bounce_type": "soft"');
  await expect(page.getByTestId('payload-preview')).toContainText('"campaign_id": "spring"');
  await page.getByLabel('Field overrides').fill('{"bounce_type": "medium"}');
  // A value the emulator refuses is said beside the overrides, in words, and the preview waits.
  await expect(page.getByTestId('overrides-error')).toHaveText('bounce_type must be "hard" or "soft"');
  await expect(page.getByLabel('Field overrides')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('No preview until the field overrides are fixed.')).toBeVisible();
  // Fired anyway: the refusal comes back as the alert, and the button is free again.
  await page.getByRole('button', { name: 'Fire bounce' }).click();
  await expect(page.getByRole('alert')).toContainText('fields.bounce_type must be "hard" or "soft"');
  await expect(page.getByRole('button', { name: 'Fire bounce' })).toBeEnabled();
  await page.getByLabel('Field overrides').fill('{"bounce_type": ');
  await expect(page.getByText(/Field overrides are not valid JSON/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Fire bounce' })).toBeDisabled();

  await registerWebhook(page, served, receiver.url, { bounce: true });
  await page.getByLabel('Field overrides').fill('{"campaign_id": "spring"}');
  await expect(page.getByTestId('filter-verdict')).toHaveText('The webhook filter will send this event.');
  await page.getByRole('button', { name: 'Fire bounce' }).click();
  await expect(page.getByTestId('fire-result')).toContainText('recorded · webhook delivery');
  await expect(page.getByRole('alert')).toHaveCount(0);
  const [req] = await receiver.waitFor(1);
  expect(JSON.parse(req!.body)).toMatchObject({ event: 'bounce', campaign_id: 'spring', recipient: { email: 'qa@example.com' } });

  // From a message's link: the ref_id is filled in and the payload carries the message's facts.
  const { refId } = await sendEmail(page, served, 'ann@example.com', 'Target');
  await page.goto(`${served.url}/events?ref_id=${refId}`);
  await page.getByLabel('Event kind').selectOption('delivery');
  await expect(page.getByTestId('payload-preview')).toContainText(`"ref_id": "${refId}"`);
  await expect(page.getByTestId('payload-preview')).toContainText('"subject": "Target"');
  await expect(page.getByTestId('filter-verdict')).toContainText('does not have delivery enabled in webhook_options.events');

  // A send of two recipients: the recipient names the copy (the send's first one when left empty).
  const two = await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'app@example.com' },
    to: [{ email: 'ann@example.com' }, { email: 'bob@example.com' }],
    subject: 'Two',
    content: [{ type: 'text/plain', value: 'Hi' }],
  });
  await page.goto(`${served.url}/events?ref_id=${two.ref_id}&recipient=bob@example.com`);
  await expect(page.getByLabel('Recipient of the send')).toHaveValue('bob@example.com');
  await expect(page.getByTestId('payload-preview')).toContainText(`"ref_id": "${two.ref_id}"`);
  await expect(page.getByTestId('payload-preview')).toContainText('"email": "bob@example.com"');
  await page.getByLabel('Recipient of the send').fill('');
  await expect(page.getByTestId('payload-preview')).toContainText('"email": "ann@example.com"');
  expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
});

test('Simulation: a rule drives the events of matching mail; the clock jumps ahead', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/simulation`);
  await expect(page.getByTestId('clock-speed')).toHaveText('1×');
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await expect(page.getByTestId('clock-speed')).toHaveText('paused');

  await page.getByRole('button', { name: 'Add rule' }).click();
  const rule = page.getByTestId('rule');
  await rule.getByPlaceholder('*@acme.test').fill('*@qa.test');
  await rule.getByLabel('Rule event').selectOption('spam');
  await rule.getByRole('spinbutton').fill('60000');
  await page.getByRole('button', { name: 'Save rules' }).click();
  await expect(page.getByText('Rules replaced: 1 rule')).toBeVisible();
  expect((await (await page.request.get(`${served.url}/emulator/rules`)).json()).data.rules).toEqual([
    { pattern: '*@qa.test', events: [{ event: 'spam', delay_ms: 60000 }] },
  ]);

  const { id } = await sendEmail(page, served, 'tester@qa.test', 'Rule');
  await expect(page.getByText('none scheduled')).toHaveCount(0);
  await page.getByRole('button', { name: 'To the next event' }).click();
  await expect(page.getByText('none scheduled')).toBeVisible();
  const detail = await page.request.get(`${served.url}/emulator/messages/${id}`);
  expect((await detail.json()).data.events.map((e: { event: string }) => e.event)).toEqual(['spam']);

  // A rule the API refuses says why, in words, beside that rule's pattern.
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.getByRole('button', { name: 'Save rules' }).click();
  await expect(page.getByTestId('rule').nth(1).getByTestId('error-rules-1-pattern')).toHaveText('The pattern must not be empty');
  expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
});

test('Settings: API keys with copy, a new account, ports, data directory and version', async ({ served, page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url });
  const errors = watchErrors(page);
  await page.goto(`${served.url}/settings`);
  await page.getByRole('button', { name: `Copy key: ${served.apiKey}` }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(served.apiKey);
  await page.getByLabel('New account name').fill('Staging');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('cell', { name: 'Staging', exact: true })).toBeVisible();
  const health = (await (await page.request.get(`${served.url}/emulator/health`)).json()).data;
  await expect(page.getByTestId('version')).toHaveText(health.version);
  await expect(page.getByText(`port ${health.ports.http}`)).toBeVisible();
  await expect(page.getByText('in memory: nothing is kept after exit')).toBeVisible();
  // With two accounts, the Send form asks which one sends, and Messages filters by account. The
  // header's switcher has a line of its own: the links stay in the header at this width.
  const nav = page.getByRole('navigation', { name: 'Screens' });
  await expect(nav.getByRole('button', { name: /Menu/ })).toBeHidden();
  await nav.getByRole('link', { name: 'Send', exact: true }).click();
  await page.getByLabel('Account').selectOption({ label: 'Staging' });
  await page.getByLabel('To', { exact: true }).fill('staging@example.com');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('send-answer')).toBeVisible();
  await sendEmail(page, served, 'default@example.com', 'From the default account');
  // The account chosen on Send is kept by the header's link: Messages shows Staging's alone.
  await nav.getByRole('link', { name: 'Messages', exact: true }).click();
  const list = page.getByTestId('message-list');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(list).toContainText('staging@example.com');
  await page.getByLabel('Account').selectOption({ label: 'Default' });
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(list).toContainText('default@example.com');
  expect(errors).toEqual([]);
});

test('Overview: the dashboard counts messages, events and failed deliveries', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(served.url);
  await expect(page.getByTestId('stat-messages')).toHaveText('0');
  await sendEmail(page, served, 'click@sim.mailyard.test', 'Counted');
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });
  await expect(page.getByTestId('stat-messages')).toHaveText('1');
  await expect(page.getByTestId('stat-events')).toHaveText('3');
  await expect(page.getByRole('figure', { name: /Email events per minute over the last hour: 3 in all/ })).toBeVisible();
  await api(page, served, 'GET', '/v1/webhook');
  expect(errors).toEqual([]);
});

test.describe('with a data directory', () => {
  test.use({ dataDir: true });
  test("Settings: the desktop app's Open folder button calls its preload function", async ({ served, page }) => {
    // A stand-in for the desktop preload's window.mailyardDesktop (a browser has none).
    await page.addInitScript(() => {
      (window as unknown as { mailyardDesktop: object }).mailyardDesktop = {
        openDataFolder: async () => {
          (window as unknown as { __opened: number }).__opened = 1;
        },
        revealFile: async () => {},
        openLink: async () => {},
      };
    });
    await page.goto(`${served.url}/settings`);
    await page.getByRole('button', { name: 'Open folder' }).click();
    expect(await page.evaluate(() => (window as unknown as { __opened?: number }).__opened)).toBe(1);
  });
});
