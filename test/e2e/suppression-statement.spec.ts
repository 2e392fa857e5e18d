import { expect, sendEmail, test, watchErrors } from './fixtures';

// A spam, unsubscribe or bounce page says whether its address is suppressed as the list has it now: a tester acts on it.
test('spam, unsubscribe and bounce pages say whether the address is suppressed now, and why a simulator address is not', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  const simSpam = await sendEmail(page, served, 'spam@sim.mailyard.test', 'Sim spam');
  const simUnsubscribe = await sendEmail(page, served, 'unsubscribe@sim.mailyard.test', 'Sim unsubscribe');
  const simBounce = await sendEmail(page, served, 'hard-bounce@sim.mailyard.test', 'Sim bounce');
  const real = await sendEmail(page, served, 'carol@example.com', 'Real spam');
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });
  const fired = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'spam', ref_id: real.refId } });
  expect(fired.ok()).toBe(true);

  await page.setViewportSize({ width: 1280, height: 720 });
  const detail = page.getByTestId('message-detail');
  await page.goto(`${served.url}/messages/${simSpam.id}`);
  await expect(detail.getByTestId('message-status')).toHaveText('spam');
  await expect(detail.getByTestId('message-suppression')).toContainText('not suppressed: simulator addresses are never suppressed');

  await page.goto(`${served.url}/messages/${simBounce.id}`);
  await expect(detail.getByTestId('bounce-suppressed')).toContainText('simulator addresses are never suppressed');

  // An unsubscribe suppresses even a simulator address (the emulator's rule), and the page says so.
  await page.goto(`${served.url}/messages/${simUnsubscribe.id}`);
  await expect(detail.getByTestId('message-status')).toHaveText('unsubscribed');
  await expect(detail.getByTestId('message-suppression')).toContainText('the address is suppressed for this account');

  await page.goto(`${served.url}/messages/${real.id}`);
  await expect(detail.getByTestId('message-suppression')).toContainText('the address is suppressed for this account');
  // Lifted with Remove: the page follows the list, not the event.
  expect((await page.request.delete(`${served.url}/emulator/suppressions/carol@example.com`)).ok()).toBe(true);
  await page.reload();
  await expect(detail.getByTestId('message-suppression')).toHaveText('the address is not suppressed now');
  expect(errors).toEqual([]);
});
