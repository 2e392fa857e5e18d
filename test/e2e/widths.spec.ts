import type { Locator, Page } from '@playwright/test';
import { expect, registerWebhook, sendEmail, test, watchErrors } from './fixtures';

/**
 * Screens at the widths people use (a 1,280 px laptop, a 375 px phone) with the data that stretches
 * them: a long SMTP reply, a catcher's URL, a 60-character account name. Nothing may reach past the
 * window (unless inside a box that scrolls and itself fits), and the columns a screen is for stay in view.
 */

/** Elements whose right edge is past the window, or past an ancestor that hides (or scrolls) it: one line each, the first few. */
async function pastTheWindow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    // Measured from the page's left edge (a scroll into view may have moved the page sideways).
    window.scrollTo(0, window.scrollY);
    const page = document.documentElement;
    if (page.scrollWidth > window.innerWidth) found.push(`the page is ${page.scrollWidth} px wide in a ${window.innerWidth} px window`);
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''} “${(el.textContent ?? '').trim().slice(0, 40)}”`;
    for (const el of document.body.querySelectorAll('*')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || (el as HTMLElement).offsetParent === null) continue;
      let past: string | null = box.right > window.innerWidth + 1 ? `ends at ${Math.round(box.right)} px in a ${window.innerWidth} px window` : null;
      for (let a = el.parentElement; a && !past; a = a.parentElement) {
        const overflow = getComputedStyle(a).overflowX;
        if (overflow === 'visible') continue;
        const edge = a.getBoundingClientRect().right;
        // A box that scrolls sideways and fits the window holds what it scrolls: reachable, not cut.
        if (box.right > edge + 1 && overflow !== 'auto' && overflow !== 'scroll')
          past = `ends at ${Math.round(box.right)} px, cut by ${name(a)} at ${Math.round(edge)}`;
        if (overflow === 'auto' || overflow === 'scroll') break;
      }
      // Text cut on purpose with an ellipsis (the whole of it on hover) is not a fault.
      if (past && getComputedStyle(el).textOverflow === 'ellipsis') continue;
      if (past) found.push(`${name(el)} ${past}`);
      if (found.length >= 8) break;
    }
    return found;
  });
}

/** Whether the element is wholly in view: inside the window and inside every ancestor that clips or scrolls. */
async function wholeInView(locator: Locator): Promise<string | null> {
  return locator.evaluate((el) => {
    const box = el.getBoundingClientRect();
    if (box.width === 0) return 'it has no width';
    if (box.left < -1 || box.right > window.innerWidth + 1)
      return `it spans ${Math.round(box.left)}-${Math.round(box.right)} px in a ${window.innerWidth} px window`;
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const edge = a.getBoundingClientRect();
      if (box.right > edge.right + 1 || box.left < edge.left - 1)
        return `it spans ${Math.round(box.left)}-${Math.round(box.right)} px, outside ${a.className} (${Math.round(edge.left)}-${Math.round(edge.right)})`;
    }
    return null;
  });
}

const LONG_ACCOUNT = 'scenario: hard-bounce suppression with soft retries, run 2-3';
const LONG_REPLY =
  '550 5.1.1 <gone@bounces.example>: Recipient address rejected: User unknown in virtual mailbox table; see https://postmaster.bounces.example/errors/5.1.1 for the policy';

test('at 1,280 px Deliveries → By endpoint shows Failed, Failing and Failure rate without scrolling sideways', async ({ served, page }) => {
  const errors = watchErrors(page);
  // An endpoint that refuses: failed and failing deliveries, and a long URL.
  const catcher = (await (await page.request.post(`${served.url}/emulator/catchers`, { data: {} })).json()).data as { id: string; url: string };
  await page.request.patch(`${served.url}/emulator/catchers/${catcher.id}`, { data: { mode: { status: 500 } } });
  await registerWebhook(page, served, catcher.url, { delivery: true });
  await sendEmail(page, served, 'ann@example.com', 'Refused');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${served.url}/deliveries?view=endpoints`);
  const table = page.getByTestId('endpoint-list');
  await expect(table.getByTestId('endpoint')).toHaveCount(1);
  await expect(table.getByTestId('failure-rate')).not.toHaveText('–');
  await page.screenshot({ path: test.info().outputPath('13-endpoints-1280.png') });
  for (const column of ['Endpoint', 'Deliveries', 'Failed', 'Failing', 'Failure rate']) {
    expect(await wholeInView(table.getByRole('columnheader', { name: column, exact: true })), column).toBeNull();
  }
  expect(await wholeInView(table.getByTestId('failure-rate'))).toBeNull();
  expect(await pastTheWindow(page)).toEqual([]);
  expect(errors).toEqual([]);
});

test('at 1,280 px a message row with a 60-character account name keeps its subject, sender and status in view', async ({ served, page }) => {
  const errors = watchErrors(page);
  const other = (await (await page.request.post(`${served.url}/emulator/accounts`, { data: { name: LONG_ACCOUNT } })).json()).data as { api_key: string };
  const sent = await page.request.post(`${served.url}/v1/email/send`, {
    headers: { authorization: `Bearer ${other.api_key}` },
    data: {
      from: { email: 'orders@shop.example', name: 'Shop' },
      to: [{ email: 'bounce@sim.mailyard.test' }],
      subject: 'Your order 1042 has shipped',
      content: [{ type: 'text/plain', value: 'Hi' }],
      campaign_id: 'spring-sale',
    },
  });
  expect(sent.ok()).toBe(true);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${served.url}/messages`);
  const row = page.getByTestId('message-list').getByRole('option').first();
  await expect(row.locator('.pill')).toHaveText('hard bounce');
  await page.screenshot({ path: test.info().outputPath('13-message-row-long-account-1280.png') });
  for (const part of [row.locator('.subject'), row.getByText('orders@shop.example'), row.locator('.pill')]) {
    expect(await wholeInView(part), (await part.textContent()) ?? '').toBeNull();
  }
  // The subject is read, not cut to a few letters.
  expect((await row.locator('.subject').boundingBox())!.width).toBeGreaterThan(150);
  expect(await pastTheWindow(page)).toEqual([]);
  expect(errors).toEqual([]);
});

test.describe('at 375 px', () => {
  test.beforeEach(async ({ page }) => page.setViewportSize({ width: 375, height: 800 }));

  test("a message's page gives its title the width and keeps Delete in view", async ({ served, page }) => {
    const errors = watchErrors(page);
    const { id } = await sendEmail(page, served, 'ann@example.com', 'Your order 1042 has shipped and is on its way to you');
    await page.goto(`${served.url}/messages/${id}`);
    const detail = page.getByTestId('message-detail');
    const title = detail.getByRole('heading', { level: 2 });
    await expect(title).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('13-message-375.png') });
    expect((await title.boundingBox())!.width).toBeGreaterThan(200);
    expect(await wholeInView(detail.getByRole('button', { name: 'Delete', exact: true }))).toBeNull();
    expect(await pastTheWindow(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('Webhooks with a catcher as the webhook: Send test event and its answer fit', async ({ served, page }) => {
    const errors = watchErrors(page);
    const catcher = (await (await page.request.post(`${served.url}/emulator/catchers`, { data: {} })).json()).data as { url: string };
    await registerWebhook(page, served, catcher.url, { delivery: true, bounce: true });
    await page.goto(`${served.url}/webhooks`);
    const card = page.getByTestId('test-event');
    await card.getByRole('button', { name: 'Send test event' }).click();
    await expect(card.getByTestId('test-event-result')).toBeVisible();
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath('13-webhooks-test-event-375.png') });
    expect(await wholeInView(card.getByRole('button', { name: 'Send test event' }))).toBeNull();
    expect(await pastTheWindow(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('Suppressions with a long SMTP reply fit the window', async ({ served, page }) => {
    const errors = watchErrors(page);
    await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
    await page.request.put(`${served.url}/emulator/rules`, {
      data: { rules: [{ pattern: '*@bounces.example', events: [{ event: 'bounce', delay_ms: 1000, fields: { bounce_reason: LONG_REPLY } }] }] },
    });
    await sendEmail(page, served, 'gone@bounces.example', 'Bounces');
    await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });
    await page.goto(`${served.url}/suppressions`);
    const row = page.getByTestId('suppression');
    await expect(row).toContainText('User unknown');
    await page.screenshot({ path: test.info().outputPath('13-suppressions-375.png'), fullPage: true });
    expect(await wholeInView(row.getByRole('button', { name: 'Remove gone@bounces.example' }))).toBeNull();
    expect(await pastTheWindow(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("the Scenarios report's expectations table fits the window", async ({ served, receiver, page }) => {
    test.setTimeout(90_000);
    const errors = watchErrors(page);
    const source = `version: 1
name: Narrow report
clock: { speed: 60 }
duration: 1m
webhook:
  url: ${receiver.url}
  events: [delivery]
traffic:
  count: 5
  rate: 50/s
  subject: Hello
  html: <p>Hello</p>
  to: "user{n}@example.test"
outcomes:
  - match: { pattern: "*@example.test" }
    fate: delivered
expect:
  receiver: { acknowledgedAll: true, p95Ms: 500, noGiveUps: true }
  app: { maxSendsPerRecipient: 1 }
`;
    const started = await page.request.post(`${served.url}/emulator/scenarios/runs`, { data: { source } });
    const runId = (await started.json()).data.id as string;
    await expect.poll(async () => (await page.request.get(`${served.url}/emulator/scenarios/runs/${runId}/report`)).status(), { timeout: 60_000 }).toBe(200);
    await page.goto(`${served.url}/scenarios`);
    const table = page.getByTestId('scenario-expectations');
    await expect(table).toContainText('maxSendsPerRecipient');
    await table.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath('13-scenario-expectations-375.png') });
    expect(await pastTheWindow(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
