import { cpSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { api, expect, registerWebhook, type Served, test } from '../e2e/fixtures';
import { openScenarioFile, progressCount, trafficScenario } from '../e2e/scenario-journey';
import { startReceiver } from '../helpers/receiver';
import { GTUBE } from '../helpers/spamd';

const DOCS = resolve(import.meta.dirname, '../../docs');

const NEWSLETTER = `<!doctype html><html><body style="margin:0;background:#f4f5f7;font-family:Helvetica,Arial,sans-serif">
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px">
<table width="560" cellpadding="0" cellspacing="0" style="background:#fff;border-radius:8px;max-width:100%">
<tr><td style="background:#3b5bdb;color:#fff;padding:20px 28px;border-radius:8px 8px 0 0;font-size:20px;font-weight:bold">Acme Outdoor</td></tr>
<tr><td style="padding:28px;color:#1b1d21;font-size:15px;line-height:1.5">
<h1 style="font-size:22px;margin:0 0 12px">Your order is on its way</h1>
<p>Hi Ann, order <b>#1042</b> left our warehouse this morning. It should arrive on Thursday.</p>
<p style="margin:24px 0"><a href="https://acme.test/track/1042" style="background:#3b5bdb;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">Track your parcel</a></p>
<p style="color:#636b78;font-size:13px">1 × Trail running shoes, 1 × Merino socks</p>
</td></tr></table></td></tr></table></body></html>`;

async function seed(page: Page, served: Served, receiverUrl: string) {
  await registerWebhook(page, served, receiverUrl, { delivery: true, open: true, click: true, bounce: true, spam: true, unsubscribe: true });
  const sends: Array<[string, string, string]> = [
    ['ann@example.com', 'Your order is on its way', 'shipping'],
    ['click@sim.mailyard.test', 'Spring sale: 20% off everything', 'spring-sale'],
    ['bounce@sim.mailyard.test', 'Spring sale: 20% off everything', 'spring-sale'],
    ['spam@sim.mailyard.test', 'Spring sale: 20% off everything', 'spring-sale'],
    ['soft-bounce@sim.mailyard.test', 'Your receipt #1041', 'receipts'],
    ['open@sim.mailyard.test', 'Welcome to Acme Outdoor', 'onboarding'],
    ['unsubscribe@sim.mailyard.test', 'Weekly digest', 'digest'],
    ['delivered@sim.mailyard.test', 'Reset your password', ''],
  ];
  for (const [to, subject, campaign] of sends) {
    // Spread over the last hour of the emulator clock, so the dashboard's chart has a shape.
    await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 330_000 } });
    await api(page, served, 'POST', '/v1/email/send', {
      from: { email: 'orders@acme.test', name: 'Acme Outdoor' },
      to: [{ email: to, name: to.startsWith('ann') ? 'Ann Lee' : '' }],
      subject,
      content: [
        { type: 'text/html', value: NEWSLETTER },
        { type: 'text/plain', value: 'Hi Ann, order #1042 left our warehouse this morning.' },
      ],
      ...(campaign ? { campaign_id: campaign } : {}),
      custom_args: { order: '1042' },
    });
  }
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 120_000 } });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`screenshots (${scheme})`, async ({ served, page }) => {
    const receiver = await startReceiver();
    // The receiver is down for the first requests: failed attempts to show.
    receiver.answer = (_req, i) => (i % 4 === 3 ? { status: 500, body: '{"error":"database is locked"}' } : { status: 200, body: '{"received":true}' });
    try {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 1360, height: 820 });
      await seed(page, served, receiver.url);
      const suffix = scheme === 'dark' ? '-dark' : '';

      await page.goto(`${served.url}/messages`);
      await expect(page.getByTestId('message-list').getByRole('option')).toHaveCount(8);
      await page.getByTestId('message-list').getByRole('option').last().click();
      await expect(page.frameLocator('iframe[title="HTML preview"]').getByText('Your order is on its way')).toBeVisible();
      await page.screenshot({ path: `${DOCS}/messages${suffix}.png` });

      await page.getByRole('tab', { name: /Events/ }).click();
      await page.getByRole('link', { name: 'Deliveries' }).click();
      const rows = page.getByTestId('delivery-list').getByRole('option');
      await expect(rows.first()).toBeVisible();
      await page.getByTestId('delivery-list').getByRole('option').filter({ hasText: '2 attempts' }).first().click();
      await expect(page.getByTestId('delivery-detail')).toBeVisible();
      await page.screenshot({ path: `${DOCS}/deliveries${suffix}.png` });

      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Overview' }).click();
      await expect(page.getByTestId('stat-messages')).toHaveText('8');
      await page.screenshot({ path: `${DOCS}/overview${suffix}.png` });

      if (scheme === 'light') {
        await page.getByRole('link', { name: 'Send' }).click();
        await page.getByRole('button', { name: 'click', exact: true }).click();
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        await expect(page.getByTestId('send-answer')).toBeVisible();
        await page.screenshot({ path: `${DOCS}/send.png`, fullPage: true });

        await page.goto(`${served.url}/events`);
        await page.getByLabel('Event kind').selectOption('bounce');
        await page.getByLabel('Field overrides').fill('{"bounce_type": "soft", "campaign_id": "spring-sale"}');
        await expect(page.getByTestId('payload-preview')).toContainText('"bounce_type": "soft"');
        await page.screenshot({ path: `${DOCS}/fire-event.png` });

        await page.goto(`${served.url}/webhooks`);
        const card = page.getByTestId('webhook-DOMAIN_VERIFICATION');
        await card.getByLabel('Webhook URL').fill('not a url');
        await card.getByRole('button', { name: 'Register' }).click();
        await expect(card.getByRole('alert')).toBeVisible();
        await page.screenshot({ path: `${DOCS}/webhooks.png`, fullPage: true });

        await page.request.put(`${served.url}/emulator/rules`, {
          data: {
            rules: [
              {
                pattern: '*@acme-qa.test',
                events: [
                  { event: 'delivery', delay_ms: 1000 },
                  { event: 'bounce', delay_ms: 30000, fields: { bounce_type: 'soft' } },
                ],
              },
            ],
          },
        });
        await api(page, served, 'POST', '/v1/email/send', {
          from: { email: 'qa@acme.test' },
          to: [{ email: 'tester@acme-qa.test' }],
          subject: 'Rule check',
          content: [{ type: 'text/plain', value: 'x' }],
        });
        await page.goto(`${served.url}/simulation`);
        await expect(page.getByTestId('rule')).toHaveCount(1);
        await page.screenshot({ path: `${DOCS}/simulation.png` });
      }
    } finally {
      await receiver.close();
    }
  });
}

test.describe('with SpamAssassin', () => {
  // Every send is scored by SpamAssassin's spamd, which the emulator starts itself.
  test.use({ serveArgs: ['--spam-filter', 'spamassassin'] });

  test('screenshots: the Checks tab, and a spam-filtered message', async ({ served, page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1360, height: 900 });
    const html = (extra: string) =>
      NEWSLETTER.replace(
        '<p style="color:#636b78;font-size:13px">',
        `${extra}<p><a href="http://acme.test/help">Help</a> · <a href="javascript:void(0)">Unsubscribe</a></p><div style="display:flex;gap:8px"><img src="https://cdn.acme.test/shoes.jpg" alt="Trail running shoes" width="120" height="80"></div><p style="color:#636b78;font-size:13px">`,
      );
    const sendOne = async (to: string, subject: string, extra: string) => {
      const res = await api(page, served, 'POST', '/v1/email/send', {
        from: { email: 'orders@acme.test', name: 'Acme Outdoor' },
        to: [{ email: to }],
        subject,
        content: [{ type: 'text/html', value: html(extra) }],
        campaign_id: 'spring-sale',
      });
      return res.ref_id as string;
    };
    const receiver = await startReceiver();
    try {
      await registerWebhook(page, served, receiver.url, { delivery: true, spam: true });
      await sendOne('ann@example.com', 'Your order is on its way', '');
      await sendOne('cat@example.com', 'Spring sale: 20% off everything', '');
      await sendOne('bob@example.com', 'You have WON a prize', `<p style="font-size:11px;color:#999">${GTUBE}</p>`);

      // A spam-filtered message: SpamAssassin scored it over the threshold, so it got a spam event (and its webhook).
      await page.goto(`${served.url}/messages`);
      const row = page.getByTestId('message-list').getByRole('option').filter({ hasText: 'You have WON a prize' });
      await expect(row).toContainText('spam', { timeout: 90_000 });
      await expect(page.getByTestId('message-list').getByRole('option').filter({ hasText: 'delivered' })).toHaveCount(2, { timeout: 30_000 });
      await row.click();
      await page
        .getByTestId('message-detail')
        .getByRole('tab', { name: /Events/ })
        .click();
      await expect(page.getByTestId('message-detail').getByRole('tabpanel')).toContainText('spam');
      await expect(page.getByTestId('message-detail').getByRole('tabpanel')).not.toContainText('not sent', { timeout: 30_000 });
      await page.screenshot({ path: `${DOCS}/spam-filtered.png` });
    } finally {
      await receiver.close();
    }

    // Its Checks tab: the score with the rules that fired, the links with their problems, caniemail's findings.
    await page.getByTestId('message-detail').getByRole('tab', { name: 'Checks' }).click();
    await expect(page.getByTestId('checks-spam').getByTestId('spam-score')).toHaveText(/\d/, { timeout: 90_000 });
    await expect(page.getByTestId('checks-compat')).toContainText('caniemail');
    await page.screenshot({ path: `${DOCS}/checks.png` });
  });
});

test.describe('screenshots: Scenarios', () => {
  // The examples allowed, as `npm run serve -- --scenarios examples/scenarios` does: the page lists them
  // (a copy in a neutral folder, so the picture shows no path of the machine it was taken on).
  const folder = join(tmpdir(), 'mailyard-docs', 'scenarios');
  rmSync(folder, { recursive: true, force: true });
  cpSync(resolve(import.meta.dirname, '../../examples/scenarios'), folder, { recursive: true });
  test.use({ serveArgs: ['--scenarios', folder] });
  test('screenshots: Scenarios (a run under way, and its report)', async ({ served, page }) => {
    test.setTimeout(120_000);
    const receiver = await startReceiver();
    // Every seventh request fails: retries and failed attempts to show in the report's charts.
    receiver.answer = (_req, i) => (i % 7 === 6 ? { status: 503, body: '{"error":"busy"}' } : { status: 200, body: '{"received":true}' });
    try {
      await page.setViewportSize({ width: 1360, height: 900 });
      await page.goto(`${served.url}/scenarios`);
      await openScenarioFile(page, 'checkout.yaml', trafficScenario(receiver.url).replace('count: 60', 'count: 200').replace('rate: 10/s', 'rate: 20/s'));
      await page.getByRole('button', { name: 'Run' }).click();
      await expect.poll(() => progressCount(page, 'sends'), { timeout: 30_000 }).toBeGreaterThan(40);
      // The scenarios folder's files at the top, the run's progress and log below.
      await page.setViewportSize({ width: 1360, height: 1500 });
      await page.screenshot({ path: `${DOCS}/scenarios.png` });
      await page.setViewportSize({ width: 1360, height: 900 });
      await expect(page.getByTestId('scenario-report')).toBeVisible({ timeout: 90_000 });
      await expect(page.frameLocator('[data-testid="scenario-report-frame"]').locator('#chart-events canvas')).toBeVisible();
      // The report below the sticky header, in a window tall enough for its tables and first plots.
      await page.setViewportSize({ width: 1360, height: 1400 });
      await page.getByTestId('scenario-report').evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 60));
      // The frame (a sandboxed page of its own) paints after the resize and the scroll: give it a moment.
      await expect(page.frameLocator('[data-testid="scenario-report-frame"]').locator('#chart-events canvas')).toBeVisible();
      await page.waitForTimeout(1000);
      await page.screenshot({ path: `${DOCS}/scenario-report.png` });
    } finally {
      await receiver.close();
    }
  });
});
