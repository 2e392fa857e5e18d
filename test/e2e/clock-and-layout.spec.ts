import { api, expect, registerWebhook, sendEmail, test, watchErrors } from './fixtures';

// The first retry ten minutes after a failure: far enough that only a jump of the clock runs it.
test.use({ serveArgs: ['--retry-schedule', '10m,1h'] });

/** `2025-03-04 14:05:09`: the one absolute format, in local time. */
const ABSOLUTE = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/;

test('"Jump to the next attempt" moves the clock to when a waiting delivery is due, and the attempt runs', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  receiver.answer = (_req, i) => (i === 0 ? 500 : 200);
  await registerWebhook(page, served, receiver.url, { bounce: true });
  const fired = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', recipient: 'ann@example.com' } });
  const deliveryId = (await fired.json()).data.delivery_id as string;

  await page.goto(`${served.url}/deliveries/${deliveryId}`);
  const detail = page.getByTestId('delivery-detail');
  await expect(page.getByTestId('delivery-status')).toHaveText('failing');
  await expect(detail.getByTestId('attempt')).toHaveCount(1);
  // The next attempt reads relative to the emulator clock, with its absolute time beside it.
  await expect(page.getByTestId('delivery-next-attempt')).toContainText(/in (10|9) min/);
  await expect(page.getByTestId('delivery-next-attempt')).toContainText(ABSOLUTE);
  const due = Date.parse(
    (
      await api(page, served, 'GET', `/emulator/deliveries/${deliveryId}`).catch(async () =>
        (await page.request.get(`${served.url}/emulator/deliveries/${deliveryId}`)).json(),
      )
    ).data.next_attempt_at,
  );
  const before = (await (await page.request.get(`${served.url}/emulator/clock`)).json()).data.now_ms as number;
  expect(due - before).toBeGreaterThan(9 * 60_000);

  // The clock is the whole emulator's: the jump says so and asks first; Cancel moves nothing.
  await detail.getByRole('button', { name: 'Jump to the next attempt' }).click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog.getByTestId('jump-warning')).toContainText("every account's webhook retries and simulated events");
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  expect(receiver.requests).toHaveLength(1);
  await detail.getByRole('button', { name: 'Jump to the next attempt' }).click();
  const movedAt = Date.now();
  await dialog.getByRole('button', { name: 'Move the clock' }).click();
  await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');
  await expect(detail.getByTestId('attempt')).toHaveCount(2);
  await expect(detail.getByTestId('attempt').first()).toContainText('#2');
  await expect(detail.getByRole('button', { name: 'Jump to the next attempt' })).toHaveCount(0);
  expect(receiver.requests).toHaveLength(2);
  // The clock went forward to the due time, not past it by more than the test's own moments since the
  // jump (it runs at wall speed), and never back.
  const after = (await (await page.request.get(`${served.url}/emulator/clock`)).json()).data.now_ms as number;
  const sinceMove = Date.now() - movedAt;
  expect(after).toBeGreaterThanOrEqual(due);
  expect(after - due).toBeLessThanOrEqual(sinceMove + 1);
  expect(errors).toEqual([]);
});

test('a row that just arrived never reads "in N s", even with the clock at 60x; relative times follow the emulator clock', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 60 } });
  await page.goto(`${served.url}/messages`);
  await expect(
    page
      .getByTestId('messages-empty')
      .or(page.getByText(/No messages/i))
      .first(),
  ).toBeVisible();
  // Emulated time runs a minute per real second: three seconds later it is three minutes on.
  await page.waitForTimeout(3000);
  await sendEmail(page, served, 'ann@example.com', 'Just arrived');
  const row = page.getByRole('option').filter({ hasText: 'Just arrived' });
  await expect(row).toHaveCount(1);
  const time = row.locator('time');
  await expect(time).toHaveText(/just now|\d+ (s|min) ago/);
  for (let i = 0; i < 3; i++) {
    expect(await time.textContent()).not.toMatch(/^in /);
    await page.waitForTimeout(700);
  }
  // A jump of the clock moves it on: an hour later it reads "1 h ago".
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 1, advance_ms: 3_600_000 } });
  await expect(time).toHaveText(/^1 h ago$/);
  expect(errors).toEqual([]);
});

test('every time shows its absolute time on hover, in one format', async ({ served, page }) => {
  const errors = watchErrors(page);
  const { id } = await sendEmail(page, served, 'ann@example.com', 'Hover me');
  await page.goto(`${served.url}/messages/${id}`);
  const row = page.getByRole('option').filter({ hasText: 'Hover me' });
  const rowTime = row.locator('time');
  await expect(rowTime).toHaveText(/just now|ago/);
  await expect(rowTime).toHaveAttribute('title', ABSOLUTE);
  const iso = await rowTime.getAttribute('datetime');
  await expect(rowTime).toHaveAttribute('title', new RegExp(iso!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  // The detail's exact time is that same absolute format.
  const detailTime = page.locator('article time').first();
  await expect(detailTime).toHaveText(ABSOLUTE);
  await expect(detailTime).toHaveAttribute('title', ABSOLUTE);
  // Every time on the page has one.
  for (const t of await page.locator('time').all()) await expect(t).toHaveAttribute('title', ABSOLUTE);
  expect(errors).toEqual([]);
});

test('at 800 px the navigation is a menu: every screen is reachable, none is cut; Escape closes it', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 800, height: 700 });
  await page.goto(`${served.url}/messages`);
  const nav = page.getByRole('navigation', { name: 'Screens' });
  const menu = nav.getByRole('button', { name: /Menu/ });
  await expect(menu).toBeVisible();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(nav.getByRole('link', { name: 'Settings' })).toBeHidden();
  // Nothing in the header runs past the window.
  expect(await page.locator('.topbar').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  // Focus goes into the menu, on the current screen.
  await expect(nav.getByRole('link', { name: 'Messages' })).toBeFocused();
  const labels = ['Overview', 'Messages', 'Webhook deliveries', 'Send', 'Fire event', 'Webhooks', 'Simulation', 'Domains', 'Mailers', 'Settings'];
  for (const label of labels) {
    const link = nav.getByRole('link', { name: label, exact: true });
    await expect(link).toBeVisible();
    const box = (await link.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(800);
    expect(box.y + box.height).toBeLessThanOrEqual(700);
    // Its whole label shows (not cut at "Simu").
    expect(await link.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  }
  // Arrow keys move through it; Escape closes it and gives focus back to the button.
  await page.keyboard.press('ArrowDown');
  await expect(nav.getByRole('link', { name: 'Webhooks' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeFocused();
  await expect(nav.getByRole('link', { name: 'Simulation' })).toBeHidden();

  // From the keyboard: open it, choose a screen far along, and it closes.
  await page.keyboard.press('Enter');
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await nav.getByRole('link', { name: 'Simulation' }).click();
  await expect(page).toHaveURL(`${served.url}/simulation`);
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toContainText('Simulation');
  // A click outside closes it too.
  await menu.click();
  await expect(nav.getByRole('link', { name: 'Settings' })).toBeVisible();
  await page.locator('main').click({ position: { x: 5, y: 5 } });
  await expect(menu).toHaveAttribute('aria-expanded', 'false');

  // Wide again: the links are back in the header, no menu button.
  await page.setViewportSize({ width: 1400, height: 700 });
  await expect(menu).toBeHidden();
  for (const label of labels) await expect(nav.getByRole('link', { name: label, exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

test('"Skip to content" is first in the tab order and moves focus to the main region', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/deliveries`);
  await expect(page.getByTestId('deliveries-empty')).toBeVisible();
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await page.keyboard.press('Tab');
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('MAIN');
  // The next Tab goes on inside the screen, not back to the header.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('main'))).toBe(true);
  expect(errors).toEqual([]);
});

test('the selected row is marked (aria-selected and a style of its own) and a deep link brings it into view', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await sendEmail(page, served, `r${i}@example.com`, `Pick ${i}`)).id);
  await page.goto(`${served.url}/messages/${ids[1]}`);
  const list = page.getByTestId('message-list').or(page.getByRole('listbox').first()).first();
  const picked = list.getByRole('option').filter({ hasText: 'Pick 1' });
  const other = list.getByRole('option').filter({ hasText: 'Pick 0' });
  await expect(picked).toHaveAttribute('aria-selected', 'true');
  await expect(other).toHaveAttribute('aria-selected', 'false');
  await expect(list.locator('[aria-selected="true"]')).toHaveCount(1);
  const style = (l: typeof picked) => l.evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, shadow: getComputedStyle(el).boxShadow }));
  const [s, o] = [await style(picked), await style(other)];
  expect(s.bg).not.toBe(o.bg);
  // A bar of the accent colour, wide enough to see, besides the tint.
  expect(s.shadow).toMatch(/inset/);
  expect(Number(/(\d+)px 0px 0px 0px inset|inset (\d+)px/.exec(s.shadow)?.slice(1).find(Boolean) ?? 0)).toBeGreaterThanOrEqual(4);
  expect(o.shadow).toBe('none');

  // A delivery far down the list, opened by its link, is scrolled into view and marked.
  receiver.answer = () => 200;
  await registerWebhook(page, served, receiver.url, { bounce: true });
  const deliveries: string[] = [];
  for (let i = 0; i < 40; i++) {
    const res = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', recipient: `d${i}@example.com` } });
    deliveries.push((await res.json()).data.delivery_id as string);
  }
  await page.goto(`${served.url}/deliveries/${deliveries[0]}`);
  const dlist = page.getByTestId('delivery-list');
  const row = dlist.locator('[aria-selected="true"]');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('id', `row-${deliveries[0]}`);
  await expect(row).toBeInViewport();
  expect(errors).toEqual([]);
});
