import { expect, registerWebhook, test, watchErrors } from './fixtures';

// One attempt per delivery, so a failure is final at once.
test.use({ serveArgs: ['--retry-schedule', 'none'] });

test('retry a failed delivery from its detail and see the new attempt', async ({ served, receiver, page, context }) => {
  const errors = watchErrors(page);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url });
  receiver.answer = (_req, i) => (i === 0 ? { status: 503, body: '{"error":"down for maintenance"}' } : 200);
  await registerWebhook(page, served, receiver.url, { bounce: true });

  await page.goto(`${served.url}/deliveries`);
  await expect(page.getByTestId('deliveries-empty')).toBeVisible();
  const fired = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', recipient: 'ann@example.com' } });
  const deliveryId = (await fired.json()).data.delivery_id as string;

  // It shows up live and fails.
  const row = page.getByTestId('delivery-list').getByRole('option');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('failed');
  await expect(row).toContainText('HTTP 503');

  // The dashboard counts it, and its tile opens the failed deliveries.
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Overview' }).click();
  await expect(page.getByTestId('stat-failed')).toHaveText('1');
  await page.getByTestId('stat-failed').click();
  await expect(page).toHaveURL(`${served.url}/deliveries?status=failed`);
  await expect(page.getByLabel('Delivery status')).toHaveValue('failed');
  await expect(row).toHaveCount(1);
  await row.click();
  // Opening a row keeps the list's filters in the URL.
  await expect(page).toHaveURL(`${served.url}/deliveries/${deliveryId}?status=failed`);
  const detail = page.getByTestId('delivery-detail');
  await expect(page.getByTestId('delivery-status')).toHaveText('failed');
  await expect(detail.getByTestId('attempt')).toHaveCount(1);
  await expect(detail.getByTestId('attempt').first()).toContainText('HTTP 503');
  await expect(detail.getByTestId('attempt').first()).toContainText('"error": "down for maintenance"');
  await expect(detail.getByTestId('delivery-payload')).toContainText('"event": "bounce"');

  // Copy as curl: the request as it was sent.
  await detail.getByRole('button', { name: /^Copy as curl/ }).click();
  // The command is signed by the emulator when the button is pressed: it reaches the clipboard a moment later.
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain(`curl -X POST '${receiver.url}'`);
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).toContain(`-H 'webhook-id: ${deliveryId}'`);
  expect(curl).toContain('--data-raw \'{"event":"bounce"');

  await detail.getByRole('button', { name: 'Retry now' }).click();
  await expect(page.getByTestId('retry-notice')).toHaveText('Attempt 2: succeeded (HTTP 200)');
  await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');
  await expect(detail.getByTestId('attempt')).toHaveCount(2);
  await expect(detail.getByTestId('attempt').first()).toContainText('#2');
  await expect(detail.getByTestId('attempt').first()).toContainText('manual');
  await expect(page.getByTestId('delivery-attempts')).toHaveText('2');
  await expect(row).toContainText('succeeded');
  expect(receiver.requests).toHaveLength(2);
  expect(receiver.requests[1]!.headers['webhook-id']).toBe(deliveryId);

  // Keyboard: Escape closes the delivery, Enter on the list opens it again. It succeeded, so it has
  // left the failed deliveries: it is found under the filter it matches now.
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(`${served.url}/deliveries?status=failed`);
  await page.getByLabel('Delivery status').selectOption('succeeded');
  await expect(row).toHaveCount(1);
  await page.getByTestId('delivery-list').focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`${served.url}/deliveries/${deliveryId}?status=succeeded`);
  await page.keyboard.press('Escape');

  // Filters: by status.
  await page.getByLabel('Delivery status').selectOption('pending');
  await expect(page.getByText('No delivery matches these filters.')).toBeVisible();
  await page.getByLabel('Delivery status').selectOption('succeeded');
  await expect(row).toHaveCount(1);
  expect(errors).toEqual([]);
});
