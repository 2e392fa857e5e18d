import { GTUBE, skipWithoutSpamd } from '../helpers/spamd';
import { expect, sendEmail, test, watchErrors } from './fixtures';

// Without --spam-filter a score over the threshold changes nothing: the Checks tab must say so, or a delivered message reads as "spam".
test('Checks tab: with the spam filter off, a spam score says it changed nothing on a delivered message', async ({ served, page }) => {
  test.skip(skipWithoutSpamd, 'SpamAssassin (spamd) is not installed');
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  const { id } = await sendEmail(page, served, 'ann@example.com', 'Spammy', `<p>${GTUBE}</p>`);
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });

  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${served.url}/messages/${id}`);
  const detail = page.getByTestId('message-detail');
  await expect(detail.getByTestId('message-status')).toHaveText('delivered');
  await detail.getByRole('tab', { name: 'Checks' }).click();
  const spam = page.getByTestId('checks-spam');
  await expect(spam.getByTestId('spam-score')).toHaveText(/^10\d\d\.\d$/, { timeout: 90_000 });
  await expect(spam.getByTestId('spam-filter-state')).toContainText('The spam filter is off: the score changed nothing');
  // The emulator says it, not the UI: the spam check's answer carries the filter's state.
  const answer = (await (await page.request.get(`${served.url}/emulator/messages/${id}/spam`)).json()).data;
  expect(answer).toMatchObject({ status: 'ok', is_spam: true, spam_filter: false });
  expect(errors).toEqual([]);
});
