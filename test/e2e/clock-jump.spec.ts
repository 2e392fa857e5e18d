import { expect, registerWebhook, test, watchErrors } from './fixtures';

// The first retry ten minutes after a failure.
test.use({ serveArgs: ['--retry-schedule', '10m,1h'] });

// The Simulation page's "Next retry": a jump to it, and "1 webhook delivery pending or failing" in the badges' words (one state, one name on every screen).
test('the Simulation page jumps to the next retry and counts pending deliveries in the right number', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  receiver.answer = (_req, i) => (i === 0 ? 500 : 200);
  await registerWebhook(page, served, receiver.url, { bounce: true });
  await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', recipient: 'ann@example.com' } });
  await receiver.waitFor(1);

  // The same state has the same name on every screen: the delivery's badge and the list's filter say "failing".
  const list = (await (await page.request.get(`${served.url}/emulator/deliveries`)).json()).data.deliveries as Array<{ id: string }>;
  await page.goto(`${served.url}/deliveries/${list[0]!.id}`);
  await expect(page.getByTestId('delivery-status')).toHaveText('failing');
  const filter = page.getByLabel('Delivery status');
  await expect(filter.locator('option[value="failing"]')).toHaveText('failing');
  await expect(filter.locator('option[value="pending"]')).toHaveText('pending or failing');

  await page.goto(`${served.url}/simulation`);
  await expect(page.getByTestId('clock-pending')).toHaveText('· 1 webhook delivery pending or failing');
  await expect(page.getByTestId('clock-next-retry')).not.toContainText('due now');
  const jump = page.getByRole('button', { name: 'To the next retry' });
  await expect(jump).toHaveAttribute('title', /whole emulator clock/);
  await jump.click();
  await receiver.waitFor(2);
  await expect(page.getByTestId('clock-pending')).toHaveText('· 0 webhook deliveries pending or failing');
  await expect(jump).toHaveCount(0);
  expect(errors).toEqual([]);
});
