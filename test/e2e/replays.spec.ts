import { Webhook } from 'standardwebhooks';
import { expect, registerWebhook, test, watchErrors } from './fixtures';

// One attempt per delivery, so a failure is final at once.
test.use({ serveArgs: ['--retry-schedule', 'none'] });

/** The default account's id and, after two rotations, its secrets. */
async function defaultAccount(page: import('@playwright/test').Page, url: string) {
  const accounts = (await (await page.request.get(`${url}/emulator/accounts`)).json()).data as Array<{ id: string; is_default: boolean }>;
  return accounts.find((a) => a.is_default)!.id;
}

test('Webhooks: send a test event of a chosen kind, and see the old secret still signing after a rotation', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  await registerWebhook(page, served, receiver.url, { bounce: true, click: true });
  const accountId = await defaultAccount(page, served.url);
  const old = (await (await page.request.put(`${served.url}/emulator/accounts/${accountId}/signing-secret`, { data: {} })).json()).data.signing_secret;

  await page.goto(`${served.url}/webhooks`);
  const card = page.getByTestId('test-event');
  // Only the kinds the webhook takes are offered.
  await expect(card.getByLabel('Test event kind').locator('option')).toHaveText(['click', 'bounce']);
  await card.getByLabel('Test event kind').selectOption('bounce');
  await card.getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByTestId('test-event-result')).toContainText('Sent bounce: delivery');
  const [req] = await receiver.waitFor(1);
  const body = new Webhook(old).verify(req!.body, req!.headers as Record<string, string>) as { event: string; bounce_type: string };
  expect(body.event).toBe('bounce');
  expect(body.bounce_type).toBe('hard');
  await card.screenshot({ path: 'test-results/replays-test-event.png' });

  await page.getByRole('button', { name: /^Rotate/ }).click();
  await expect(page.getByTestId('previous-secret')).toContainText(`The old secret ${old.slice(0, 10)}… still signs until`);
  await page.locator('section', { has: page.getByRole('heading', { name: 'Signing secret' }) }).screenshot({ path: 'test-results/replays-rotation.png' });
  // A test event now carries both signatures: the receiver still holding the old secret verifies it.
  await page.getByTestId('test-event').getByRole('button', { name: 'Send test event' }).click();
  const [, second] = await receiver.waitFor(2);
  expect(String(second!.headers['webhook-signature']).split(' ')).toHaveLength(2);
  expect(() => new Webhook(old).verify(second!.body, second!.headers as Record<string, string>)).not.toThrow();
  expect(errors).toEqual([]);
});

test('Deliveries: edit a payload and resend it, then retry all failing of an endpoint after a count', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  receiver.status = 503;
  await registerWebhook(page, served, receiver.url, { bounce: true, open: true });
  const first = (await (await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce' } })).json()).data;
  await page.request.post(`${served.url}/emulator/events`, { data: { event: 'open' } });
  await receiver.waitFor(2);

  await page.goto(`${served.url}/deliveries/${first.delivery_id}`);
  const detail = page.getByTestId('delivery-detail');
  await expect(page.getByTestId('delivery-status')).toHaveText('failed');
  await detail.getByRole('button', { name: 'Edit and resend…' }).click();
  const editor = page.getByLabel('Payload to resend');
  const edited = { ...first.payload, bounce_type: 'soft', bounce_reason: 'edited in the UI' };
  await editor.fill(JSON.stringify(edited, null, 2));
  await page.getByTestId('edit-resend').screenshot({ path: 'test-results/replays-edit-resend.png' });
  // Not JSON: said at once, nothing sent.
  await editor.fill('{"event": ');
  await page.getByRole('button', { name: 'Send edited payload' }).click();
  await expect(page.getByTestId('edit-resend').getByRole('alert')).toContainText('Not valid JSON');
  await editor.fill(JSON.stringify(edited, null, 2));
  receiver.status = 200;
  await page.getByRole('button', { name: 'Send edited payload' }).click();
  // The new delivery opens, and succeeds with the edited body.
  await expect(page).not.toHaveURL(new RegExp(`/deliveries/${first.delivery_id}$`));
  await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');
  const [, , resent] = await receiver.waitFor(3);
  expect(JSON.parse(resent!.body)).toEqual(edited);
  expect(resent!.headers['webhook-id']).not.toBe(first.delivery_id);

  // By endpoint: the two failed originals are counted, then retried.
  await page.goto(`${served.url}/deliveries?view=endpoints`);
  await page.getByTestId('endpoint').getByRole('button', { name: 'Retry all failing…' }).click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog.getByRole('heading')).toHaveText(`Retry 2 failing deliveries to ${receiver.url}?`);
  await page.screenshot({ path: 'test-results/replays-retry-failing.png' });
  await dialog.getByRole('button', { name: 'Retry now' }).click();
  await expect(page.getByTestId('retry-failing-notice')).toHaveText('Retrying 2');
  const retried = (await receiver.waitFor(5)).slice(3).map((r) => JSON.parse(r.body).event);
  expect(retried.sort()).toEqual(['bounce', 'open']);
  // The row follows: all three succeeded, none failed (Endpoint, Deliveries, Succeeded, Failed...).
  const cells = page.getByTestId('endpoint').locator('td');
  await expect(cells.nth(2)).toHaveText('3');
  await expect(cells.nth(3)).toHaveText('0');
  await page.screenshot({ path: 'test-results/replays-endpoints.png' });
  expect(errors).toEqual([]);
});
