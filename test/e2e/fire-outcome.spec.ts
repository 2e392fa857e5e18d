import { expect, registerWebhook, sendEmail, test, watchErrors } from './fixtures';

// Fire event must say what happened, not "Sent" while the receiver refuses it: a tester would believe the webhook got it.
test('Fire event says the event was recorded, its delivery queued, and follows it live to the receiver’s answer and next retry', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  receiver.status = 500;
  await registerWebhook(page, served, receiver.url, { delivery: true, bounce: true });

  await page.goto(`${served.url}/events`);
  await page.getByLabel('Event kind').selectOption('delivery');
  await expect(page.getByTestId('filter-verdict')).toHaveText('The webhook filter will send this event.');
  await page.getByRole('button', { name: 'Fire delivery' }).click();
  const result = page.getByTestId('fire-result');
  await expect(result).toContainText(/^delivery recorded · webhook delivery \S+ queued/);
  await expect(result.getByTestId('fire-delivery')).toHaveText(/the receiver answered 500, retry 2 at \d\d:\d\d:\d\d \(emulator clock\)/);
  await expect(result).toHaveClass(/warn/);

  // The receiver recovers and the retry falls due: the same line says so, without a reload.
  receiver.status = 200;
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 3_600_000 } });
  await expect(result.getByTestId('fire-delivery')).toHaveText(' · the receiver answered 200');
  await expect(result).toHaveClass(/notice/);

  // The message page's Fire says the same.
  receiver.status = 503;
  const { id } = await sendEmail(page, served, 'ann@example.com', 'Fire at me');
  await page.goto(`${served.url}/messages/${id}`);
  const detail = page.getByTestId('message-detail');
  await detail.getByLabel('Event to fire').selectOption('bounce');
  await detail.getByRole('button', { name: 'Fire event' }).click();
  await expect(detail.getByTestId('fire-result')).toContainText(/^bounce recorded · webhook delivery \S+ queued/);
  await expect(detail.getByTestId('fire-delivery')).toContainText(/the receiver answered 503, retry 2 at \d\d:\d\d:\d\d \(emulator clock\)/);
  expect(errors).toEqual([]);
});
