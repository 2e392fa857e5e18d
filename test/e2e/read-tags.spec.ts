import { expect, sendEmail, test, watchErrors } from './fixtures';

test('read state and tags in Messages: unread rows bold, opening reads, mark unread, tags added and removed, tag: search', async ({ served, page }) => {
  const errors = watchErrors(page);
  const first = await sendEmail(page, served, 'ann@example.com', 'Your invoice');
  const second = await sendEmail(page, served, 'bob@example.com', 'Welcome aboard');
  // Tagged through Mailpit's API: the screen shows what any API set.
  const tagged = await page.request.put(`${served.url}/api/v1/tags`, { data: { IDs: [first.id], Tags: ['billing'] } });
  expect(await tagged.text()).toBe('ok');
  const stored = async (id: string) =>
    (await (await page.request.get(`${served.url}/emulator/messages/${id}`)).json()).data as { read: boolean; tags: string[] };

  await page.goto(`${served.url}/messages`);
  const list = page.getByTestId('message-list');
  const row = (subject: string) => list.getByRole('option').filter({ hasText: subject }).locator('.mrow');
  await expect(list.getByRole('option')).toHaveCount(2);
  await expect(row('Your invoice')).toHaveAttribute('data-read', 'false');
  await expect(row('Welcome aboard')).toHaveAttribute('data-read', 'false');
  await expect(row('Your invoice').getByRole('img', { name: 'unread' })).toBeVisible();
  await expect(row('Your invoice').getByTestId('message-tag')).toHaveText(['billing']);
  expect(
    await row('Your invoice')
      .locator('.subject')
      .evaluate((e) => getComputedStyle(e).fontWeight),
  ).toBe('700');

  // Opening a message reads it, as in Mailpit.
  await row('Your invoice').click();
  const detail = page.getByTestId('message-detail');
  await expect(detail).toContainText('Your invoice');
  await expect(row('Your invoice')).toHaveAttribute('data-read', 'true');
  await expect(row('Your invoice').getByRole('img', { name: 'unread' })).toHaveCount(0);
  expect((await stored(first.id)).read).toBe(true);
  expect((await stored(second.id)).read).toBe(false);

  // Tags: one added with Enter, one removed with its ×; the row follows.
  const tags = detail.getByTestId('message-tags');
  await tags.getByLabel('Add a tag').fill('vip customer');
  await tags.getByLabel('Add a tag').press('Enter');
  await expect(tags.getByTestId('message-tag')).toHaveText(['billing×', 'vip customer×']);
  await tags.getByRole('button', { name: 'Remove tag billing' }).click();
  await expect(tags.getByTestId('message-tag')).toHaveText(['vip customer×']);
  await expect(row('Your invoice').getByTestId('message-tag')).toHaveText(['vip customer']);
  expect((await stored(first.id)).tags).toEqual(['vip customer']);

  // Another opened: the first, read and no longer open, is plain; the second reads too.
  await row('Welcome aboard').click();
  await expect(detail).toContainText('Welcome aboard');
  await expect(row('Welcome aboard')).toHaveAttribute('data-read', 'true');
  expect(
    await row('Your invoice')
      .locator('.subject')
      .evaluate((e) => getComputedStyle(e).fontWeight),
  ).toBe('400');
  await page.screenshot({ path: 'test-results/read-tags.png' });

  // Marked unread again from the detail.
  await detail.getByTestId('message-read-toggle').click();
  await expect(detail.getByTestId('message-read-toggle')).toHaveText('Mark read');
  await expect(row('Welcome aboard')).toHaveAttribute('data-read', 'false');
  expect((await stored(second.id)).read).toBe(false);

  // The search speaks tag: and is:.
  await page.getByLabel('Search messages').fill('tag:"vip customer"');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(list).toContainText('Your invoice');
  await page.getByLabel('Search messages').fill('is:unread -tag:"vip customer"');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(list).toContainText('Welcome aboard');
  expect(errors).toEqual([]);
});
