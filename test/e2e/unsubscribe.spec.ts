import { api, copiesOf, expect, test, watchErrors } from './fixtures';

// Unsubscribe from the UI, and links of the preview that open outside its frame (inside it, the app's policy would leave a broken frame).
test('Simulate unsubscribe records the event and suppresses the address; the preview opens its links outside the frame, scripts still blocked', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  const res = await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'news@example.com' },
    to: [{ email: 'ann@example.com' }],
    subject: 'Newsletter',
    content: [{ type: 'text/html', value: '<html><body><p>News. <a href="https://news.example/read">Read</a> <a href="#top">top</a></p></body></html>' }],
    settings: { unsubscribe: { enable: true }, click_tracking: { enable: true } },
  });
  const [copy] = await copiesOf(page, served, res.ref_id as string);
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/messages/${copy!.id}`);
  const detail = page.getByTestId('message-detail');
  const frame = page.frameLocator('iframe[title="HTML preview"]');
  // Every link to another page (the unsubscribe link, the tracked link) opens in a new tab; an in-message anchor stays.
  const unsubscribe = frame.locator('a[href*="/t/u/"]');
  await expect(unsubscribe).toHaveAttribute('target', '_blank');
  await expect(unsubscribe).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(frame.getByRole('link', { name: 'Read' })).toHaveAttribute('target', '_blank');
  await expect(frame.getByRole('link', { name: 'top' })).not.toHaveAttribute('target', /./);
  await expect(page.locator('iframe[title="HTML preview"]')).toHaveAttribute('sandbox', 'allow-popups allow-popups-to-escape-sandbox');
  // Following it opens the confirmation page in a tab of its own; the preview stays as it was.
  const [popup] = await Promise.all([page.waitForEvent('popup'), unsubscribe.click()]);
  await expect(popup.getByRole('button', { name: 'Unsubscribe' })).toBeVisible();
  await popup.close();
  await expect(frame.getByRole('link', { name: 'Read' })).toBeVisible();

  await detail.getByRole('button', { name: 'Simulate unsubscribe' }).click();
  await expect(detail.getByTestId('simulate-result')).toContainText('unsubscribe recorded');
  await expect(detail.getByTestId('message-status')).toHaveText('unsubscribed');
  const suppressions = (await (await page.request.get(`${served.url}/emulator/suppressions`)).json()).data.suppressions;
  expect(suppressions).toMatchObject([{ email: 'ann@example.com', source: 'unsubscribe event', message_id: copy!.id }]);
  expect(errors).toEqual([]);
});
