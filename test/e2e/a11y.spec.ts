import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { startServeProcess } from '../helpers/serve-process';
import { api, expect, registerWebhook, sendEmail, test, type Served } from './fixtures';

/**
 * Issue 27: the accessibility check. axe-core runs over every screen, with data in it, in the light and
 * the dark theme, and the test fails on any serious or critical violation (contrast, names of controls,
 * labels, ARIA roles...). Each screen is one line of SCREENS: a new screen adds one line.
 */

interface Seeded {
  /** A captured message (delivered, with its events) and a webhook delivery. */
  messageId: string;
  refId: string;
  deliveryId: string;
}

interface Screen {
  name: string;
  /** The path to open (after seeding). */
  path: (s: Seeded) => string;
  /** What shows once the screen has its data (a test id, or text). */
  ready: (page: Page) => ReturnType<Page['getByTestId']>;
}

const MESSAGE_TABS = ['Preview', 'HTML source', 'Text', 'Headers', 'Raw', 'Attachments', 'Checks', 'Events'];

const SCREENS: Screen[] = [
  { name: 'Overview', path: () => '/', ready: (p) => p.getByTestId('http-url') },
  { name: 'Messages', path: () => '/messages', ready: (p) => p.getByTestId('message-list').getByRole('option').first() },
  // A message's every tab: one entry each (`/messages/<id>` then a click on the tab).
  ...MESSAGE_TABS.map((tab) => ({
    name: `Message · ${tab}`,
    path: (s: Seeded) => `/messages/${s.messageId}#tab=${tab}`,
    ready: (p: Page) => p.getByTestId('message-detail'),
  })),
  { name: 'Deliveries', path: () => '/deliveries', ready: (p) => p.getByTestId('delivery-list').getByRole('option').first() },
  { name: 'Delivery', path: (s) => `/deliveries/${s.deliveryId}`, ready: (p) => p.getByTestId('delivery-detail') },
  { name: 'Deliveries by endpoint', path: () => '/deliveries?view=endpoints', ready: (p) => p.getByTestId('endpoint-list') },
  { name: 'Send', path: () => '/send', ready: (p) => p.getByRole('button', { name: /^Send/ }).first() },
  { name: 'Fire event', path: (s) => `/events?ref_id=${s.refId}`, ready: (p) => p.getByTestId('payload-preview') },
  { name: 'Webhooks', path: () => '/webhooks', ready: (p) => p.getByTestId('webhook-EMAIL_EVENT') },
  { name: 'Simulation', path: () => '/simulation', ready: (p) => p.getByTestId('clock-now') },
  { name: 'Domains', path: () => '/domains', ready: (p) => p.getByRole('heading').first() },
  { name: 'Mailers', path: () => '/mailers', ready: (p) => p.getByRole('heading').first() },
  { name: 'Settings', path: () => '/settings', ready: (p) => p.getByRole('heading').first() },
  { name: 'Page not found', path: () => '/no-such-screen', ready: (p) => p.getByTestId('not-found') },
];

const THEMES = ['light', 'dark'] as const;

/** The serious and critical violations on the page as it is, one line each (rule, and where). */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).exclude('iframe.html-frame').analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, ' ').slice(0, 200)}]` : ''}`).join('; ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''}`);
}

async function seed(page: Page, served: Served, receiverUrl: string): Promise<Seeded> {
  await registerWebhook(page, served, receiverUrl, { delivery: true, bounce: true, open: true, click: true });
  await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'app@example.com', name: 'App' },
    to: [{ email: 'bounce@sim.mailyard.test' }],
    subject: 'Bounced on purpose',
    content: [{ type: 'text/html', value: '<p>Bounce</p>' }],
  });
  const { id, refId } = await sendEmail(page, served, 'ann@example.com', 'Spring sale', '<h1>Spring</h1><p>Hello <a href="https://example.com/x">there</a></p>');
  await expect.poll(async () => (await page.request.get(`${served.url}/emulator/deliveries`)).json().then((b) => b.data.deliveries.length as number)).toBeGreaterThan(0);
  const deliveries = (await (await page.request.get(`${served.url}/emulator/deliveries`)).json()).data.deliveries as Array<{ id: string }>;
  return { messageId: id, refId, deliveryId: deliveries[0]!.id };
}

async function open(page: Page, served: Served, screen: Screen, seeded: Seeded) {
  const [path, tab] = screen.path(seeded).split('#tab=');
  await page.goto(`${served.url}${path}`);
  await expect(screen.ready(page).first(), screen.name).toBeVisible();
  if (tab) {
    await page.getByRole('tab', { name: new RegExp(`^${tab}`) }).click();
    await expect(page.getByRole('tab', { name: new RegExp(`^${tab}`) })).toHaveAttribute('aria-selected', 'true');
  }
  // Live data and late styles settle.
  await page.waitForTimeout(150);
}

for (const theme of THEMES) {
  test(`every screen, ${theme} theme, has no serious or critical accessibility violation`, async ({ served, receiver, page }) => {
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme: theme });
    const seeded = await seed(page, served, receiver.url);
    const found: string[] = [];
    for (const screen of SCREENS) {
      await open(page, served, screen, seeded);
      for (const v of await violations(page)) found.push(`${screen.name}: ${v}`);
    }
    expect(found, found.join('\n')).toEqual([]);
  });
}

test('the login screen (an emulator reachable from the network) has no serious or critical accessibility violation', async ({ page }) => {
  const serve = await startServeProcess(['--host', '0.0.0.0', '--http-port', '0', '--memory', '--api-key', 'e2e-a11y-key-0123456789']);
  try {
    const port = /:(\d+)$/.exec(serve.url)![1];
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await page.goto(`http://127.0.0.1:${port}/`);
      await expect(page.getByRole('heading', { name: 'Log in to Mailyard' })).toBeVisible();
      await page.getByLabel('Control key').fill('not-the-control-key-at-all');
      await page.getByRole('button', { name: 'Log in' }).click();
      await expect(page.getByRole('alert')).toBeVisible();
      expect(await violations(page), theme).toEqual([]);
    }
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});
