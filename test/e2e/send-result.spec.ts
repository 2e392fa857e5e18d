import { expect, test, watchErrors } from './fixtures';

test('send: the answer is in view of a 1400x900 window without scrolling, focused, and each copy goes queued -> delivered live', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/send`);
  await page.getByLabel('To', { exact: true }).fill('ann@example.com');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const answer = page.getByTestId('send-answer');
  // Where the eye is: its heading and the copy's status inside the window, and focus on the answer.
  await expect(answer.getByRole('heading', { name: 'API answer' })).toBeInViewport();
  const copy = answer.getByTestId('send-copies').getByRole('listitem').filter({ hasText: 'ann@example.com' });
  await expect(copy).toBeInViewport();
  await expect(answer).toBeFocused();

  // The status follows the message: delivered without a reload (the simulation delivers it a moment later).
  await expect(copy).toContainText('delivered', { timeout: 20_000 });
  const refId = await answer.getByTestId('send-ref-id').textContent();
  const stored = (await (await page.request.get(`${served.url}/emulator/messages?q=${refId}`)).json()).data.messages as Array<{ status: string }>;
  expect(stored.map((m) => m.status)).toEqual(['delivered']);
  expect(errors).toEqual([]);
});
