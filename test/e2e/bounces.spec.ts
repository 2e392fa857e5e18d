import { expect, sendEmail, test, watchErrors } from './fixtures';

// Hard and soft bounces told apart on the row and the message page, with no webhook registered (the UI alone must tell a hard bounce from a soft one).
test('hard and soft bounces: the rows say which, the page shows type, category and the SMTP reply, with no webhook', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  const hard = await sendEmail(page, served, 'hard-bounce@sim.mailyard.test', 'Hard one');
  const soft = await sendEmail(page, served, 'soft-bounce@sim.mailyard.test', 'Soft one');
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/messages`);
  const list = page.getByTestId('message-list');
  await expect(list.getByRole('option', { name: /Hard one/ })).toContainText('hard bounce');
  await expect(list.getByRole('option', { name: /Soft one/ })).toContainText('soft bounce');

  await page.goto(`${served.url}/messages/${hard.id}`);
  const detail = page.getByTestId('message-detail');
  await expect(detail.getByTestId('message-status')).toHaveText('hard bounce');
  await expect(detail.getByTestId('bounce-type')).toHaveText('hard bounce');
  await expect(detail.getByTestId('bounce-category')).toHaveText('invalid recipient');
  await expect(detail.getByTestId('bounce-reply')).toContainText('550 5.1.1 <hard-bounce@sim.mailyard.test>');
  // The simulator's addresses are fixtures: their hard bounces suppress nothing, and the page says so.
  await expect(detail.getByTestId('bounce-suppressed')).toContainText('simulator addresses are never suppressed');

  await page.goto(`${served.url}/messages/${soft.id}`);
  await expect(detail.getByTestId('bounce-type')).toHaveText('soft bounce');
  await expect(detail.getByTestId('bounce-category')).toHaveText('mailbox full');
  await expect(detail.getByTestId('bounce-reply')).toContainText('452 4.2.2');

  // The API's log says the same: the reply is the failedReason.
  const logs = await page.request.get(`${served.url}/v1/email/logs?refId=${hard.refId}`, { headers: { authorization: `Bearer ${served.apiKey}` } });
  expect((await logs.json()).emailLogs[0].failedReason).toMatch(/^550 5\.1\.1 /);
  expect(errors).toEqual([]);
});

// Three bounces of one copy (soft, soft, then hard) are three different events: the Events tab says which is which, with each one's reply.
test("a message's Events tab tells its bounces apart: each line shows the bounce's type, category and reply, with no webhook", async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  const copy = await sendEmail(page, served, 'soft-bounce-gives-up@sim.mailyard.test', 'Gives up');
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 5 * 60_000 } });
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/messages/${copy.id}`);
  const detail = page.getByTestId('message-detail');
  await detail.getByRole('tab', { name: /Events/ }).click();
  const lines = detail.getByTestId('message-events').locator(':scope > li');
  await expect(lines).toHaveCount(3);
  const facts = detail.getByTestId('message-events').getByTestId('event-details');
  await expect(facts).toHaveCount(3);
  for (const [i, type] of ['soft', 'soft', 'hard'].entries()) {
    await expect(lines.nth(i)).toContainText('bounce');
    await expect(facts.nth(i)).toContainText(`bounce_type${type}`);
  }
  await expect(facts.nth(0)).toContainText('bounce_reason452 4.2.2');
  await expect(facts.nth(2)).toContainText('bounce_categorymailbox_full');
  await expect(facts.nth(2)).toContainText(/bounce_reason5\d\d /);
  await page.screenshot({ path: test.info().outputPath('12-events-soft-soft-hard.png') });
  expect(errors).toEqual([]);
});

// Fire event on a message: no risky default, and a warning before changing a final state (a misclick must not rewrite a copy's fate).
test('Fire event starts with no event chosen, and firing spam at a bounced copy asks first', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  const bounced = await sendEmail(page, served, 'bounce@sim.mailyard.test', 'Bounced one');
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });

  await page.goto(`${served.url}/messages/${bounced.id}`);
  const detail = page.getByTestId('message-detail');
  await expect(detail.getByTestId('message-status')).toHaveText('hard bounce');
  const select = detail.getByLabel('Event to fire');
  await expect(select).toHaveValue('');
  await expect(detail.getByRole('button', { name: 'Fire event' })).toBeDisabled();

  await select.selectOption('spam');
  await detail.getByRole('button', { name: 'Fire event' }).click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog.getByTestId('fire-warning')).toContainText('This copy is bounced');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(detail.getByTestId('message-status')).toHaveText('hard bounce');
  expect((await (await page.request.get(`${served.url}/emulator/messages/${bounced.id}`)).json()).data.events.map((e: { event: string }) => e.event)).toEqual([
    'bounce',
  ]);

  // A delivery after a hard bounce changes nothing final (the emulator keeps the bounce): no question.
  await select.selectOption('delivery');
  await detail.getByRole('button', { name: 'Fire event' }).click();
  await expect(detail.getByTestId('fire-result')).toContainText('delivery recorded · no webhook delivery queued');
  await expect(dialog).toHaveCount(0);
  await expect(detail.getByTestId('message-status')).toHaveText('hard bounce');

  await select.selectOption('spam');
  await detail.getByRole('button', { name: 'Fire event' }).click();
  await expect(dialog.getByTestId('fire-warning')).toContainText('makes its status spam');
  await dialog.getByRole('button', { name: 'Fire spam' }).click();
  await expect(detail.getByTestId('message-status')).toHaveText('spam');
  expect(errors).toEqual([]);
});
