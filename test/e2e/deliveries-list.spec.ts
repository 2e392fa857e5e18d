import { api, expect, registerWebhook, test, watchErrors } from './fixtures';

// A failed attempt is retried in an hour: the delivery stays failing (pending after a failed attempt).
test.use({ serveArgs: ['--retry-schedule', '1h'] });

test('deliveries list: event, recipient, subject and URL on each row, a count, a pasted address filters, the endpoint view with its failure rate and failing link', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  // One receiver, two endpoints: /ok answers 200, /down answers 500.
  receiver.answer = (req) => (req.url.endsWith('/down') ? { status: 500, body: 'down' } : 200);
  await registerWebhook(page, served, `${receiver.url}/ok`, { bounce: true, delivery: true });
  const other = (await (await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Other' } })).json()).data as {
    id: string;
    api_key: string;
  };
  const hook = await page.request.post(`${served.url}/v1/webhook/register`, {
    headers: { authorization: `Bearer ${other.api_key}` },
    data: { webhook_url: `${receiver.url}/down`, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { bounce: true } } },
  });
  expect(hook.ok()).toBe(true);

  await page.goto(`${served.url}/deliveries`);
  const fire = (data: unknown) => page.request.post(`${served.url}/emulator/events`, { data });
  await fire({ event: 'bounce', recipient: 'ann@example.com' });
  await fire({ event: 'delivery', recipient: 'joann@example.com', fields: { subject: 'Your receipt' } });
  await fire({ event: 'bounce', recipient: 'dan@example.com', account_id: other.id });

  // Each row: event kind, recipient, subject, target URL.
  const rows = page.getByTestId('delivery-list').getByRole('option');
  await expect(rows).toHaveCount(3);
  const joann = rows.filter({ hasText: 'joann@example.com' });
  await expect(joann).toContainText('delivery');
  await expect(joann.getByTestId('delivery-subject')).toHaveText('Your receipt');
  await expect(joann.getByTestId('delivery-url')).toContainText(`${receiver.url}/ok`);
  const dan = rows.filter({ hasText: 'dan@example.com' });
  await expect(dan).toContainText('bounce');
  await expect(dan.getByTestId('delivery-url')).toContainText(`${receiver.url}/down`);
  await expect(dan).toContainText('HTTP 500');
  // The count.
  await expect(page.getByTestId('delivery-count')).toHaveText('3 deliveries');

  // A pasted address (with a name, as mail clients copy it) filters by that address, without Enter,
  // and never matches joann@example.com.
  const search = page.getByRole('searchbox', { name: 'Search webhook deliveries' });
  await search.focus();
  // Inserted at once, as a paste does (no key presses, no Enter).
  await page.keyboard.insertText('Ann <ann@example.com>');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('ann@example.com');
  await expect(rows.first()).not.toContainText('joann');
  await expect(page.getByTestId('delivery-count')).toHaveText('1 delivery');
  // An address no delivery has: nothing, said so (never every delivery).
  await search.fill('nobody@example.com');
  await expect(page.getByText('No delivery matches these filters.')).toBeVisible();
  await expect(page.getByTestId('delivery-count')).toHaveText('0 deliveries');
  // Text in the URL.
  await search.fill('/down');
  await search.press('Enter');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('dan@example.com');
  await search.fill('');
  await expect(rows).toHaveCount(3);

  // The endpoint view: each endpoint with its failure rate; its failing link filters the list.
  await page.getByRole('link', { name: 'By endpoint' }).click();
  await expect(page).toHaveURL(`${served.url}/deliveries?view=endpoints`);
  const endpoints = page.getByTestId('endpoint-list').getByTestId('endpoint');
  await expect(endpoints).toHaveCount(2);
  const down = endpoints.filter({ hasText: `${receiver.url}/down` });
  await expect(down.getByTestId('failure-rate')).toContainText('100%');
  await expect(down.getByTestId('failure-rate')).toContainText('(1/1)');
  const ok = endpoints.filter({ hasText: `${receiver.url}/ok` });
  await expect(ok.getByTestId('failure-rate')).toContainText('0%');
  await expect(ok.getByRole('link', { name: /failing/ })).toHaveCount(0);
  await down.getByRole('link', { name: '1 failing' }).click();
  await expect(page).toHaveURL(/\/deliveries\?target_id=[^&]+&status=failing$/);
  await expect(page.getByLabel('Delivery status')).toHaveValue('failing');
  await expect(page.getByTestId('endpoint-filter')).toContainText(`${receiver.url}/down`);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('dan@example.com');
  await expect(page.getByTestId('delivery-count')).toHaveText('1 delivery');
  // Any endpoint again: the failing deliveries of every endpoint (still the one).
  await page.getByRole('button', { name: 'Any endpoint' }).click();
  await expect(page.getByTestId('endpoint-filter')).toHaveCount(0);
  await expect(rows).toHaveCount(1);
  await page.getByLabel('Delivery status').selectOption('');
  await expect(rows).toHaveCount(3);
  expect(errors).toEqual([]);
});

test('the inbound mail view: each recipient accepted or refused by the inbound guide’s rule, a post linking to its delivery, which names the rule', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  await api(page, served, 'POST', '/v1/inbound/domain', { domain: 'in.example.com', url: receiver.url, method: 'POST' });
  await api(page, served, 'POST', '/v1/inbound/username', { domain: 'in.example.com', username: 'support' });
  await page.goto(`${served.url}/deliveries?view=inbound`);
  await expect(page.getByTestId('inbound-empty')).toBeVisible();
  // Shown as routing decides, without a reload.
  await api(page, served, 'POST', '/emulator/inbound', {
    from: { email: 'cust@example.org' },
    to: ['support@in.example.com', 'nobody@in.example.com'],
    subject: 'Where is my order?',
    text: 'Hello',
  });
  const rows = page.getByTestId('inbound-message');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('nobody@in.example.com');
  await expect(rows.nth(0).getByTestId('inbound-rule')).toHaveText("refused by Reject (the inbound guide's rule 4 of 4)");
  await expect(rows.nth(0)).toContainText('Reject (default): nobody is not a username of in.example.com');
  await expect(rows.nth(1).getByTestId('inbound-rule')).toHaveText("accepted by Username Match (the inbound guide's rule 3 of 4)");
  await page.getByTestId('inbound-list').screenshot({ path: test.info().outputPath('inbound-mail.png') });

  await rows.nth(1).getByRole('link', { name: 'its post to the route' }).click();
  await expect(page.getByTestId('delivery-detail').getByTestId('delivery-inbound')).toContainText('accepted by Username Match');
  await expect(page.getByTestId('delivery-detail').getByTestId('delivery-inbound')).toContainText('to support@in.example.com');
  await page
    .getByTestId('delivery-detail')
    .locator('.facts')
    .screenshot({ path: test.info().outputPath('inbound-delivery-rule.png') });
  expect(errors).toEqual([]);
});
