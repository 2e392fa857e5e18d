import type { Page } from '@playwright/test';
import { expect, registerWebhook, sendEmail, test } from './fixtures';

/**
 * Keyboard only: the skip link and Down from the search box reach the list in a few
 * keys, arrows move within the list and between a message's tabs (the ARIA tabs pattern), and after
 * Escape the focus lands on what opened the closed thing (the list row, the button), never on <body>.
 */

/** What has the focus: its role and accessible name, or its tag. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    return `${el.getAttribute('role') ?? el.tagName.toLowerCase()}: ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40)}`;
  });

/** The row the list marks for the keyboard (aria-activedescendant): its text. */
const activeRow = (page: Page) =>
  page.evaluate(() => {
    const list = document.querySelector('[role=listbox]');
    const id = list?.getAttribute('aria-activedescendant');
    return id ? (document.getElementById(id)?.textContent ?? null) : null;
  });

test('Messages by keyboard: skip link, Down from the search box into the list, Up back, Enter opens', async ({ served, page }) => {
  await sendEmail(page, served, 'first@example.com', 'Older one');
  await sendEmail(page, served, 'second@example.com', 'Newer one');
  await page.goto(`${served.url}/messages`);
  await expect(page.getByTestId('message-list').getByRole('option')).toHaveCount(2);

  // The first Tab shows "Skip to content"; Enter skips the header's links.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  // One Tab to the search box, Down into the list: four keys from the top of the page.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('searchbox', { name: 'Search messages' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('listbox', { name: 'Messages, newest first' })).toBeFocused();
  expect(await activeRow(page)).toContain('Newer one');
  await page.keyboard.press('ArrowDown');
  expect(await activeRow(page)).toContain('Older one');
  await page.keyboard.press('ArrowUp');
  expect(await activeRow(page)).toContain('Newer one');
  // Up from the first row goes back to the search box.
  await page.keyboard.press('ArrowUp');
  await expect(page.getByRole('searchbox', { name: 'Search messages' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('message-detail')).toContainText('Older one');
  await expect(page).toHaveURL(/\/messages\/[0-9A-Z]+$/);
});

test("a message's tabs follow the ARIA tabs pattern: one Tab stop, Left/Right/Home/End move and select", async ({ served, page }) => {
  const { id } = await sendEmail(page, served, 'ann@example.com', 'Tabs');
  await page.goto(`${served.url}/messages/${id}`);
  const tablist = page.getByRole('tablist', { name: 'Message parts' });
  await expect(tablist).toBeVisible();
  // Only the selected tab is in the Tab order.
  await expect(tablist.locator('[role=tab][tabindex="0"]')).toHaveCount(1);
  await expect(tablist.getByRole('tab', { name: 'Preview' })).toHaveAttribute('tabindex', '0');
  await tablist.getByRole('tab', { name: 'Preview' }).focus();
  await page.keyboard.press('ArrowRight');
  const source = tablist.getByRole('tab', { name: 'HTML source' });
  await expect(source).toBeFocused();
  await expect(source).toHaveAttribute('aria-selected', 'true');
  await expect(source).toHaveAttribute('tabindex', '0');
  await expect(tablist.getByRole('tab', { name: 'Preview' })).toHaveAttribute('tabindex', '-1');
  // The panel is named by its tab.
  await expect(page.getByRole('tabpanel', { name: 'HTML source' })).toBeVisible();
  await page.keyboard.press('End');
  await expect(tablist.getByRole('tab', { name: /^Events/ })).toBeFocused();
  await expect(tablist.getByRole('tab', { name: /^Events/ })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tabpanel', { name: /^Events/ })).toBeVisible();
  // Right from the last wraps to the first; Left from the first to the last; Home to the first.
  await page.keyboard.press('ArrowRight');
  await expect(tablist.getByRole('tab', { name: 'Preview' })).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(tablist.getByRole('tab', { name: /^Events/ })).toBeFocused();
  await page.keyboard.press('Home');
  await expect(tablist.getByRole('tab', { name: 'Preview' })).toBeFocused();
  await expect(tablist.getByRole('tab', { name: 'Preview' })).toHaveAttribute('aria-selected', 'true');
  // Tab leaves the tab list (to the panel), it does not walk through the tabs.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('tabpanel', { name: 'Preview' })).toBeFocused();
});

for (const width of [1400, 375]) {
  test(`at ${width} px, Escape closes the open message and the focus goes back to the list, on its row`, async ({ served, page }) => {
    await page.setViewportSize({ width, height: 900 });
    await sendEmail(page, served, 'first@example.com', 'Older one');
    await sendEmail(page, served, 'second@example.com', 'Newer one');
    await page.goto(`${served.url}/messages`);
    const list = page.getByRole('listbox', { name: 'Messages, newest first' });
    // Keys only once the list has loaded its rows.
    await expect(list.getByRole('option')).toHaveCount(2);
    await list.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('message-detail')).toContainText('Older one');
    // The focus moves into the message (its tabs), then Escape.
    await page.getByRole('tab', { name: 'Headers' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('message-detail')).toHaveCount(0);
    await expect(page).toHaveURL(/\/messages$/);
    await expect(list).toBeFocused();
    expect(await focused(page)).not.toBe('body');
    expect(await activeRow(page)).toContain('Older one');
  });
}

test('Escape on the delete confirmation closes it and gives the focus back to the button that opened it', async ({ served, page }) => {
  await sendEmail(page, served, 'ann@example.com', 'Keep me');
  await page.goto(`${served.url}/messages`);
  await expect(page.getByTestId('message-list')).toContainText('Keep me');
  const remove = page.getByRole('button', { name: 'Delete all' });
  await remove.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(remove).toBeFocused();
  await expect(page.getByTestId('message-list')).toContainText('Keep me');
});

test('Deliveries by keyboard: Down from the search box into the list; Escape from a delivery back to its row', async ({ served, receiver, page }) => {
  await registerWebhook(page, served, receiver.url, { delivery: true });
  await sendEmail(page, served, 'ann@example.com', 'One');
  await receiver.waitFor(1);
  await page.goto(`${served.url}/deliveries`);
  const list = page.getByTestId('delivery-list');
  await expect(list.getByRole('option')).toHaveCount(1);
  await page.getByRole('searchbox').first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(list).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('delivery-detail')).toBeVisible();
  await page.getByRole('button', { name: 'Copy as curl' }).focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('delivery-detail')).toHaveCount(0);
  await expect(list).toBeFocused();
});
