import { expect, registerWebhook, test, watchErrors } from './fixtures';

test('Retry now of an acknowledged delivery, failing now: the delivery stays succeeded, the replay is a failed attempt of its own, drawn red', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  await registerWebhook(page, served, receiver.url, { delivery: true });
  const fired = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'delivery', recipient: 'ann@example.com' } });
  const deliveryId = (await fired.json()).data.delivery_id as string;

  await page.goto(`${served.url}/deliveries/${deliveryId}`);
  const detail = page.getByTestId('delivery-detail');
  await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');

  // The receiver breaks; the replay fails.
  receiver.status = 500;
  await detail.getByRole('button', { name: 'Retry now' }).click();
  const notice = page.getByTestId('retry-notice');
  await expect(notice).toHaveText('Attempt 2: failed (HTTP 500). The delivery stays succeeded: its event was acknowledged.');
  await expect(notice).toHaveAttribute('data-outcome', 'failed');
  await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');
  await expect(page.getByTestId('delivery-attempts')).toHaveText('2');

  // Each attempt in its own colour: the failed replay red, the acknowledging attempt green; the notice red too.
  const [bad, ok] = await page.evaluate(() => {
    const probe = document.createElement('span');
    document.body.append(probe);
    const colour = (v: string) => {
      probe.style.color = `var(${v})`;
      return getComputedStyle(probe).color;
    };
    const both = [colour('--bad'), colour('--ok')];
    probe.remove();
    return both;
  });
  const attempts = detail.getByTestId('attempt');
  await expect(attempts).toHaveCount(2);
  await expect(attempts.nth(0)).toContainText('#2');
  await expect(attempts.nth(0).locator('.dot')).toHaveCSS('border-top-color', bad!);
  await expect(attempts.nth(1).locator('.dot')).toHaveCSS('border-top-color', ok!);
  await expect(notice).toHaveCSS('color', bad!);
  await page.screenshot({ path: test.info().outputPath('replay-failed-after-success.png') });

  // Overview counts no failed delivery.
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Overview' }).click();
  await expect(page.getByTestId('stat-failed')).toHaveText('0');
  expect(errors).toEqual([]);
});
