import { expect, registerWebhook, test, watchErrors } from './fixtures';

// A failed attempt is retried in a minute of emulator time: the test moves the clock to run the retry.
test.use({ serveArgs: ['--retry-schedule', '1m'] });

test('a filtered deliveries list follows a status change live: rows that stop failing leave it and its count is the server’s', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  receiver.status = 500;
  await registerWebhook(page, served, receiver.url, { delivery: true, bounce: true });
  const fire = (data: unknown) => page.request.post(`${served.url}/emulator/events`, { data });
  await fire({ event: 'delivery', recipient: 'ann@example.com' });
  await fire({ event: 'bounce', recipient: 'bob@example.com' });
  await receiver.waitFor(2);

  await page.goto(`${served.url}/deliveries?status=failing`);
  const rows = page.getByTestId('delivery-list').getByRole('option');
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId('delivery-count')).toHaveText('2 deliveries');

  // The receiver is back; the retries run when the clock passes them and succeed.
  receiver.status = 200;
  const moved = await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 120_000 } });
  expect(moved.ok()).toBe(true);
  await receiver.waitFor(4);
  const server = (await (await page.request.get(`${served.url}/emulator/deliveries/count?status=failing`)).json()).data.count;
  expect(server).toBe(0);

  // Without a reload: no succeeded row stays under "failing", and the count is the server's.
  await expect(rows).toHaveCount(0);
  await expect(page.getByTestId('delivery-count')).toHaveText('0 deliveries');
  expect(errors).toEqual([]);
});
