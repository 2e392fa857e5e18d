import type { Page } from '@playwright/test';
import { api, copiesOf, expect, registerWebhook, type Served, sendEmail, test, watchErrors } from './fixtures';

const HTML =
  '<html><body><h1>Your order shipped</h1><p>Track it <a href="https://shop.example/track?o=42&amp;x=1">on our site</a> or read <a href="https://shop.example/help">the help</a>.</p></body></html>';

/** One email with open and click tracking on, to an ordinary address (the simulation gives it a delivery only). */
async function sendTracked(page: Page, served: Served, to = 'ann@example.com') {
  const res = await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'shop@example.com' },
    to: [{ email: to }],
    subject: 'Tracked order',
    content: [{ type: 'text/html', value: HTML }],
    settings: { open_tracking: { enable: true }, click_tracking: { enable: true } },
  });
  const [copy] = await copiesOf(page, served, res.ref_id as string);
  return { refId: res.ref_id as string, id: copy!.id };
}

/** The copy's recorded events (control API) and the webhook deliveries of one kind for its send. */
async function recorded(page: Page, served: Served, id: string, refId: string, event: string) {
  const detail = (await (await page.request.get(`${served.url}/emulator/messages/${id}`)).json()).data as { events: Array<{ event: string }> };
  const deliveries = (await (await page.request.get(`${served.url}/emulator/deliveries?ref_id=${refId}&event=${event}`)).json()).data.deliveries as unknown[];
  return { events: detail.events.filter((e) => e.event === event).length, deliveries: deliveries.length };
}

test('looking at a tracked message counts as nothing; Simulate open and Simulate click record one each', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  await registerWebhook(page, served, receiver.url, { open: true, click: true });
  const { refId, id } = await sendTracked(page, served);
  // The stored message carries the pixel and the tracked links (the preview must not use them).
  const raw = await (await page.request.get(`${served.url}/emulator/messages/${id}/raw`)).text();
  expect(raw).toMatch(/\/t\/o\/[A-Za-z0-9_-]+/);

  const tracking: string[] = [];
  page.on('request', (r) => /\/t\/[oc]\//.test(new URL(r.url()).pathname) && tracking.push(r.url()));

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/messages/${id}`);
  const detail = page.getByTestId('message-detail');
  await expect(detail).toContainText('Tracked order');
  const frame = page.frameLocator('iframe[title="HTML preview"]');
  await expect(frame.getByRole('heading', { name: 'Your order shipped' })).toBeVisible();
  for (let i = 0; i < 3; i++) {
    await page.getByRole('button', { name: 'Mobile (375 px)' }).click();
    await expect(frame.getByRole('heading', { name: 'Your order shipped' })).toBeVisible();
    await page.getByRole('button', { name: 'Desktop' }).click();
    await expect(frame.getByRole('heading', { name: 'Your order shipped' })).toBeVisible();
  }
  // Other tabs and back re-create the frame: still nothing.
  await page.getByRole('tab', { name: 'Text' }).click();
  await page.getByRole('tab', { name: 'Preview' }).click();
  await expect(frame.getByRole('heading', { name: 'Your order shipped' })).toBeVisible();
  await page.waitForTimeout(1000);
  expect(tracking).toEqual([]);
  expect(await recorded(page, served, id, refId, 'open')).toEqual({ events: 0, deliveries: 0 });
  expect(await recorded(page, served, id, refId, 'click')).toEqual({ events: 0, deliveries: 0 });
  expect(receiver.requests).toHaveLength(0);
  // No pixel in the preview; tracked links go straight to their own URLs, marked as tracked.
  await expect(frame.locator('img')).toHaveCount(0);
  const link = frame.getByRole('link', { name: 'on our site' });
  await expect(link).toHaveAttribute('href', 'https://shop.example/track?o=42&x=1');
  await expect(link).toHaveAttribute('title', /Tracked link to https:\/\/shop\.example\/track/);

  // An open on purpose: exactly one, recorded and sent.
  await detail.getByRole('button', { name: 'Simulate open' }).click();
  await expect(page.getByTestId('simulate-result')).toContainText('open recorded and sent');
  await receiver.waitFor(1);
  expect(await recorded(page, served, id, refId, 'open')).toEqual({ events: 1, deliveries: 1 });
  expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ event: 'open', ref_id: refId, recipient: { email: 'ann@example.com' } });

  // A click on one of the message's links, chosen by the user.
  await detail.getByLabel('Link to click').selectOption({ label: 'the help · https://shop.example/help' });
  await detail.getByRole('button', { name: 'Simulate click' }).click();
  await expect(page.getByTestId('simulate-result')).toContainText('click recorded and sent');
  await receiver.waitFor(2);
  expect(await recorded(page, served, id, refId, 'click')).toEqual({ events: 1, deliveries: 1 });
  expect(JSON.parse(receiver.requests[1]!.body)).toMatchObject({ event: 'click', ref_id: refId, url: 'https://shop.example/help', link_name: 'the help' });
  expect(await recorded(page, served, id, refId, 'open')).toEqual({ events: 1, deliveries: 1 });
  expect(tracking).toEqual([]);
  expect(errors).toEqual([]);
});

test('a bounced message offers no simulated open or click', async ({ served, page }) => {
  const { id } = await sendTracked(page, served, 'bounce@sim.mailyard.test');
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });
  await page.goto(`${served.url}/messages/${id}`);
  await expect(page.getByTestId('message-status')).toHaveText('hard bounce');
  await expect(page.getByRole('button', { name: 'Simulate open' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Simulate click' })).toBeDisabled();
  await expect(page.getByTestId('message-detail')).toContainText('never reached a mailbox');
});

test('with two accounts at 1,400 px the Messages toolbar keeps a usable search box, on at most two lines', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Staging' } });
  await sendTracked(page, served);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/messages`);
  const toolbar = page.getByRole('region', { name: 'Messages' }).locator('.list-toolbar');
  // The account is chosen in the header (one switcher for every screen).
  const switcher = page.getByRole('banner').getByLabel('Account');
  await expect(switcher).toBeVisible();
  const search = page.getByLabel('Search messages');
  const box = (await search.boundingBox())!;
  expect(box.width).toBeGreaterThanOrEqual(240);

  // Every control is whole and inside the toolbar, and they sit on one or two lines.
  const bar = (await toolbar.boundingBox())!;
  const controls = toolbar.locator('input:visible, select:visible, button:visible, [data-testid="message-count"]');
  const tops = new Set<number>();
  for (const c of await controls.all()) {
    const b = (await c.boundingBox())!;
    expect(b.x).toBeGreaterThanOrEqual(bar.x);
    expect(b.x + b.width).toBeLessThanOrEqual(bar.x + bar.width + 0.5);
    tops.add(Math.round(b.y + b.height / 2));
    // Nothing is squeezed below its content (a select or button cut to a sliver).
    const clipped = await c.evaluate((el) => el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'INPUT');
    expect(clipped).toBe(false);
  }
  const lines = [...tops].sort((a, b) => a - b).filter((t, i, all) => i === 0 || t - all[i - 1]! > 8);
  expect(lines.length).toBeLessThanOrEqual(2);
  expect(bar.height).toBeLessThan(100);
  // The account filter still works.
  await switcher.selectOption({ label: 'Staging' });
  await expect(page.getByTestId('message-list').getByRole('option')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('the preview loads nothing remote until allowed, then exactly what the banner counts: no poster, icon, preload or background attribute', async ({
  served,
  receiver,
  page,
  context,
}) => {
  // Chromium reports each blocked load as a CSP violation: that is the block working.
  const errors = watchErrors(page, [/violates the following Content Security Policy directive: "(default|style|font|img)-src/]);
  // Nothing leaves the machine: the message's "remote" server is a local one (it sees every fetch, the
  // browser's own icon fetch too), and any other address is aborted and counted.
  const elsewhere: string[] = [];
  await context.route(/^(?!https?:\/\/(127\.0\.0\.1|localhost)[:/])/, (route) => {
    if (route.request().url().startsWith('data:')) return route.continue();
    elsewhere.push(route.request().url());
    return route.abort();
  });
  const remote = receiver.url.replace(/\/$/, '');
  // Answered as a sender's server would (fonts are fetched with CORS); the sheet asks for an image of its own.
  receiver.answer = (r) => {
    const type = r.url.endsWith('.css') ? 'text/css' : r.url.endsWith('.woff2') ? 'font/woff2' : 'image/png';
    return {
      status: 200,
      headers: { 'content-type': type, 'access-control-allow-origin': '*' },
      body: r.url.endsWith('link.css') ? `p { background: url(${remote}/from-sheet.png) }` : '',
    };
  };
  const html = `<!doctype html><html><head>
<link rel="stylesheet" href="${remote}/link.css">
<link rel="preload" as="image" href="${remote}/preload.png"><link rel="prefetch" href="${remote}/prefetch.css">
<link rel="icon" href="${remote}/icon.png">
<style>@import url(${remote}/import.css);
@font-face { font-family: Remote; src: url(${remote}/font.woff2) format('woff2'); }
h1 { font-family: Remote, sans-serif; } .bg { background: url('${remote}/bg.png'); height: 20px }</style>
</head><body><h1>Styled from afar</h1><p>Pictures:</p>
<img src="${remote}/one.png" alt="one" width="20" height="20"><img src="${remote}/two.png?size=2&amp;v=1" alt="two" width="20" height="20">
<img src="${remote}/one.png" alt="one again" width="20" height="20">
<div class="bg">background</div>
<table background="${remote}/table.png"><tr><td background="${remote}/cell.png">cell</td></tr></table>
<video poster="${remote}/poster.png" width="40" height="30"></video>
<form><input type="image" src="${remote}/input.png" alt="go"></form>
<svg width="20" height="20"><image href="${remote}/svg.png" width="20" height="20"/></svg>
</body></html>`;
  const { id } = await sendEmail(page, served, 'ann@example.com', 'Remote content', html);
  const fetched = () => [...new Set(receiver.requests.map((r) => r.url))].sort();

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${served.url}/messages/${id}`);
  const frame = page.frameLocator('iframe[title="HTML preview"]');
  await expect(frame.getByRole('heading', { name: 'Styled from afar' })).toBeVisible();
  const banner = page.getByTestId('images-blocked');
  await expect(banner).toContainText('Remote content is blocked (2 images, 4 style sheets, fonts or backgrounds)');
  await page.waitForLoadState('networkidle');
  expect(receiver.requests).toEqual([]);

  await page.getByRole('button', { name: 'Show remote content' }).click();
  await expect(banner).toContainText('Remote content shown (2 images, 4 style sheets, fonts or backgrounds)');
  await expect(frame.getByRole('img', { name: 'two' })).toBeVisible();
  // What the banner counted, each once: 2 images, 4 style sheets, fonts or backgrounds; nothing else.
  const counted = ['bg.png', 'font.woff2', 'import.css', 'link.css', 'one.png', 'two.png?size=2&v=1'].map(
    (file) => new URL(`${remote}/${file}`).pathname + new URL(`${remote}/${file}`).search,
  );
  await expect.poll(fetched).toEqual(counted);
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
  expect(fetched()).toEqual(counted);
  await page.getByTestId('message-detail').screenshot({ path: test.info().outputPath('remote-content-shown.png') });

  // The preview opened as a page of its own: the icon is not fetched either.
  const before = receiver.requests.length;
  const alone = await context.newPage();
  await alone.goto(`${served.url}/emulator/messages/${id}/html?images=allow`, { waitUntil: 'networkidle' });
  await expect(alone.getByRole('heading', { name: 'Styled from afar' })).toBeVisible();
  await alone.waitForTimeout(500);
  const again = [...new Set(receiver.requests.slice(before).map((r) => r.url))].sort();
  expect(again.every((path) => counted.includes(path))).toBe(true);
  expect(receiver.requests.map((r) => r.url)).not.toContain(new URL(`${remote}/icon.png`).pathname);
  expect(elsewhere).toEqual([]);
  expect(errors).toEqual([]);
});

// The header's two lines (the screens' links; the account switcher and the clock's controls) are packed tight in a
// short window: with any number of accounts they must not eat the preview.
for (const accounts of [1, 2]) {
  test(`at 1,280 x 720 with ${accounts} account${accounts === 1 ? '' : 's'} an open message shows at least 400 px of its preview, under a header of two tight lines`, async ({
    served,
    page,
  }) => {
    if (accounts > 1) await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Team B with a rather long name for the switcher' } });
    const { id } = await sendTracked(page, served);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(`${served.url}/messages/${id}`);
    const preview = page.locator('iframe[title="HTML preview"]');
    await expect(preview).toBeVisible();
    if (accounts > 1) await expect(page.getByRole('banner').getByLabel('Account')).toBeVisible();
    await page.waitForTimeout(200);
    const shown = await preview.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0);
    });
    expect(shown).toBeGreaterThanOrEqual(400);
    // Two tight lines: no taller than the links' line, the tools' line and a few pixels between and around them.
    expect((await page.getByRole('banner').boundingBox())!.height).toBeLessThan(60);
  });
}
