import { readFile } from 'node:fs/promises';
import { expect, sendEmail, test, watchErrors } from './fixtures';

test.use({ serveArgs: ['--max-messages', '2'] });

test('Settings: the Store section shows the size, the limits in force and what was pruned; new limits set there apply at once; a snapshot downloads', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  for (const n of [1, 2, 3]) await sendEmail(page, served, `r${n}@example.org`, `m${n}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${served.url}/settings`);
  const store = page.getByRole('region', { name: 'Store' });
  await expect(store.getByTestId('store-limits')).toContainText('the newest 2 messages, no limit on age');
  // The third message took the store past its limit: the oldest went, and the section says so live.
  await expect(store.getByTestId('store-pruned')).toContainText('1 message,', { timeout: 10_000 });
  await expect(store.getByTestId('store-usage')).toContainText(/Size\s*\d+(\.\d)? (KB|MB)/);

  await store.getByLabel('Messages kept').fill('1');
  await store.getByLabel('Oldest kept').fill('30d');
  await store.getByRole('button', { name: 'Set limits' }).click();
  await expect(store.getByRole('status')).toHaveText('Limits set: kept for the next start');
  await expect(store.getByTestId('store-limits')).toContainText('the newest 1 message, none older than 30d');
  await expect(store.getByTestId('store-pruned')).toContainText('2 messages');
  // A snapshot downloads while the emulator runs.
  const [download] = await Promise.all([page.waitForEvent('download'), store.getByRole('link', { name: 'Download without secrets' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^mailyard-.*-without-secrets\.snapshot$/);
  expect((await readFile((await download.path())!)).subarray(0, 15).toString()).toBe('SQLite format 3');
  await store.screenshot({ path: test.info().outputPath('store-section.png') });
  expect(errors).toEqual([]);
});
