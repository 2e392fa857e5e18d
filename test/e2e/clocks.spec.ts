import { api, expect, sendEmail, test, watchErrors } from './fixtures';

const DAY = 86_400_000;

/** A relative time of something that happened seconds ago. */
const FRESH = /^(just now|\d{1,2} s ago)$/;

// Every relative time is measured on the clock its timestamp is on: with the emulator clock moved a day
// ahead, what arrived seconds ago reads seconds on every screen, and a screen showing emulator times
// beside real ones says which clock each is.
test.describe('relative times with the emulator clock a day ahead', () => {
  test.beforeEach(async ({ served, page }) => {
    const moved = await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: DAY } });
    expect(moved.ok()).toBe(true);
  });

  test('a catcher request that just came reads seconds (its arrival is real time), and the page says which clock', async ({ served, page }) => {
    const errors = watchErrors(page);
    const catcher = (await (await page.request.post(`${served.url}/emulator/catchers`, { data: {} })).json()).data as { id: string; url: string };
    await page.goto(`${served.url}/catchers/${catcher.id}`);
    await expect(page.getByTestId('no-requests')).toBeVisible();
    expect((await page.request.post(catcher.url, { data: { event: 'delivery', recipient: { email: 'ann@example.com' } } })).ok()).toBe(true);
    const row = page.getByTestId('caught-request');
    await expect(row).toHaveCount(1);
    await expect(row.locator('time')).toHaveText(FRESH);
    await expect(row.locator('time')).toHaveAttribute('data-clock', 'wall');
    await expect(page.getByTestId('requests-clock')).toContainText('real time');
    // Loaded again from the list (not the live stream), it still reads seconds.
    await page.reload();
    await expect(page.getByTestId('caught-request').locator('time')).toHaveText(FRESH);
    // Its detail gives the emulator clock's time, named as such.
    await page.getByTestId('caught-request').getByRole('button').click();
    await expect(page.getByTestId('caught-request')).toContainText('emulator clock');
    expect(errors).toEqual([]);
  });

  test('a suppression made after the move reads seconds, under a heading that names the emulator clock', async ({ served, page }) => {
    const errors = watchErrors(page);
    await api(page, served, 'POST', '/v1/email/unsubscribe', { email: 'ann@example.com' });
    await sendEmail(page, served, 'bob@example.com', 'Sent after the move');
    await page.goto(`${served.url}/suppressions`);
    const row = page.getByTestId('suppression');
    await expect(row).toHaveCount(1);
    await expect(row.locator('time')).toHaveText(FRESH);
    await expect(page.getByRole('columnheader', { name: /Since/ })).toHaveText('Since (emulator clock)');
    // A message listed seconds after it was sent reads seconds too (its time is the emulator's).
    await page.goto(`${served.url}/messages`);
    await expect(page.getByRole('option').filter({ hasText: 'Sent after the move' }).locator('time')).toHaveText(FRESH);
    expect(errors).toEqual([]);
  });

  test("Settings names the clock of an account's Created time and of the emulator's start", async ({ served, page }) => {
    const errors = watchErrors(page);
    await page.goto(`${served.url}/settings`);
    await expect(page.getByRole('columnheader', { name: /Created/ })).toHaveText('Created (emulator clock)');
    await expect(page.getByText('Started', { exact: true }).locator('xpath=following-sibling::dd[1]')).toContainText('(emulator clock)');
    expect(errors).toEqual([]);
  });
});
