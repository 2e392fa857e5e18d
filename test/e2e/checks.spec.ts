import type { Page } from '@playwright/test';
import { GTUBE, skipWithoutSpamd } from '../helpers/spamd';
import { api, copiesOf, expect, registerWebhook, type Served, test, watchErrors } from './fixtures';

// SpamAssassin scores every send; spamd is started by the emulator itself (local tests only, 127.0.0.1).
test.use({ serveArgs: ['--spam-filter', 'spamassassin'] });

/** An order email with things to flag: a flex layout, an unsafe link, a plain-http link, a remote image on a local server. */
function orderHtml(imageUrl: string, extra = '') {
  return `<!doctype html><html><head><style>.row { display: flex; }</style></head><body>
<h1>Your order shipped</h1>
<div class="row"><a href="https://shop.example/order/42">Track your order</a> <a href="javascript:alert(1)">Unsubscribe here</a> <a href="http://shop.example/help">Help</a></div>
<img src="${imageUrl}" alt="Shop logo" width="120" height="40">
${extra}</body></html>`;
}

async function send(page: Page, served: Served, to: string, html: string) {
  const res = await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'shop@example.com', name: 'Shop' },
    to: [{ email: to }],
    subject: 'Your order shipped',
    content: [{ type: 'text/html', value: html }],
  });
  const [copy] = await copiesOf(page, served, res.ref_id as string);
  return { refId: res.ref_id as string, id: copy!.id };
}

test('Checks tab: links with problems, client compatibility; HTML source tab; remote images blocked until allowed', async ({ served, receiver, page }) => {
  // The blocked image is reported by Chromium as a CSP violation: that is the block working.
  const errors = watchErrors(page, [/violates the following Content Security Policy directive: "img-src data: cid:"/]);
  const image = `${receiver.url.replace(/\/$/, '')}/logo.png`;
  const { id } = await send(page, served, 'ann@example.com', orderHtml(image));
  const imageLoads = () => receiver.requests.filter((r) => r.url.endsWith('/logo.png')).length;

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/messages/${id}`);
  const detail = page.getByTestId('message-detail');
  const frame = page.frameLocator('iframe[title="HTML preview"]');
  await expect(frame.getByRole('heading', { name: 'Your order shipped' })).toBeVisible();
  // The remote image is blocked: no request reaches its server until the user allows it.
  await expect(page.getByTestId('images-blocked')).toContainText('1 remote image is blocked');
  await page.waitForTimeout(1000);
  expect(imageLoads()).toBe(0);
  await page.getByRole('button', { name: 'Show remote images' }).click();
  await expect(page.getByTestId('images-blocked')).toContainText('Remote images shown');
  await expect.poll(imageLoads).toBeGreaterThan(0);
  await expect(frame.getByRole('heading', { name: 'Your order shipped' })).toBeVisible();

  // The HTML as the sender wrote it.
  await detail.getByRole('tab', { name: 'HTML source' }).click();
  await expect(page.getByTestId('html-source')).toContainText('<a href="javascript:alert(1)">Unsubscribe here</a>');

  // Checks: each link with its problems, and caniemail's findings.
  await detail.getByRole('tab', { name: 'Checks' }).click();
  const links = page.getByTestId('checks-links');
  await expect(links).toContainText('Links (3)');
  await expect(links.getByTestId('link-row').filter({ hasText: 'javascript:alert(1)' })).toContainText('Problem: Unsafe scheme javascript:');
  await expect(links.getByTestId('link-row').filter({ hasText: 'http://shop.example/help' })).toContainText('http: instead of https:');
  await expect(links.getByTestId('link-row').filter({ hasText: 'https://shop.example/order/42' })).toContainText('none');
  const compat = page.getByTestId('checks-compat');
  await expect(compat).toContainText('caniemail');
  const flex = compat.locator('[data-testid="compat-finding"][data-level="error"]').filter({ has: page.locator('code', { hasText: /^display:flex$/ }) });
  await expect(flex).toContainText('Not supported');
  await expect(flex).toContainText('outlook.windows');
  await expect(compat.getByTestId('compat-family').filter({ hasText: 'outlook' })).toContainText('unsupported');
  expect(errors).toEqual([]);
});

test('Checks tab: SpamAssassin’s score with the rules that fired; a spam-filtered send gets a spam event', async ({ served, receiver, page }) => {
  test.skip(skipWithoutSpamd, 'SpamAssassin (spamd) is not installed');
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await registerWebhook(page, served, receiver.url, { delivery: true, spam: true });
  const { refId, id } = await send(
    page,
    served,
    'bob@example.com',
    orderHtml('data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==', `<p>${GTUBE}</p>`),
  );
  const clean = await send(page, served, 'cat@example.com', '<p>Your order 43 has shipped. Thanks for shopping with us.</p>');

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/messages/${id}`);
  const detail = page.getByTestId('message-detail');
  await detail.getByRole('tab', { name: 'Checks' }).click();
  const spam = page.getByTestId('checks-spam');
  await expect(spam.getByTestId('spam-score')).toHaveText(/^10\d\d\.\d$/, { timeout: 90_000 });
  await expect(spam).toContainText('of 5.0 needed for spam: spam');
  await expect(spam.getByTestId('spam-filter-state')).toContainText('The spam filter is on');
  await expect(spam.getByTestId('spam-rule').filter({ hasText: 'GTUBE' })).toContainText('Generic Test for Unsolicited Bulk Email');

  // The filter scored the send at or over the threshold: a spam event, in the webhooks and on the message.
  const spamEvents = () =>
    receiver.requests
      .map((r) => JSON.parse(r.body) as { event: string; ref_id: string })
      .filter((e) => e.event === 'spam')
      .map((e) => e.ref_id);
  await expect.poll(spamEvents, { timeout: 60_000 }).toEqual([refId]);
  await page.reload();
  await expect(page.getByTestId('message-status')).toHaveText('spam');
  await page
    .getByTestId('message-detail')
    .getByRole('tab', { name: /Events/ })
    .click();
  await expect(page.getByTestId('message-detail').getByRole('tabpanel')).toContainText('spam');

  // The clean message: a low score, no spam event.
  await page.goto(`${served.url}/messages/${clean.id}`);
  await page.getByTestId('message-detail').getByRole('tab', { name: 'Checks' }).click();
  await expect(page.getByTestId('checks-spam')).toContainText('needed for spam: not spam', { timeout: 60_000 });
  expect(spamEvents()).toEqual([refId]);
  expect(errors).toEqual([]);
});
