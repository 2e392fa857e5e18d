import type { Page } from '@playwright/test';
import { api, expect, registerWebhook, type Served, sendEmail } from './fixtures';

/**
 * Every screen of the UI, with data in it, for the checks that go over all of them (a11y.spec.ts,
 * small-screens.spec.ts). A new screen is one line of SCREENS.
 */

export interface Seeded {
  /** A captured message (delivered, with its events) and a webhook delivery. */
  messageId: string;
  refId: string;
  deliveryId: string;
  /** A catcher that received a request. */
  catcherId: string;
}

export interface Screen {
  name: string;
  /** The path to open (after seeding). */
  path: (s: Seeded) => string;
  /** What shows once the screen has its data (a test id, or text). */
  ready: (page: Page) => ReturnType<Page['getByTestId']>;
}

export const MESSAGE_TABS = ['Preview', 'HTML source', 'Text', 'Headers', 'Raw', 'Attachments', 'Checks', 'Events'];

export const SCREENS: Screen[] = [
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
  { name: 'Inbound mail', path: () => '/deliveries?view=inbound', ready: (p) => p.getByTestId('inbound-empty') },
  { name: 'Send', path: () => '/send', ready: (p) => p.getByRole('button', { name: /^Send/ }).first() },
  { name: 'Fire event', path: (s) => `/events?ref_id=${s.refId}`, ready: (p) => p.getByTestId('payload-preview') },
  { name: 'Webhooks', path: () => '/webhooks', ready: (p) => p.getByTestId('webhook-EMAIL_EVENT') },
  { name: 'Catcher', path: (s) => `/catchers/${s.catcherId}`, ready: (p) => p.getByTestId('caught-request') },
  { name: 'Simulation', path: () => '/simulation', ready: (p) => p.getByTestId('clock-now') },
  { name: 'Suppressions', path: () => '/suppressions', ready: (p) => p.getByRole('heading', { name: /^Suppressions/ }) },
  { name: 'Scenarios', path: () => '/scenarios', ready: (p) => p.getByRole('heading', { name: 'Past runs' }) },
  { name: 'Domains', path: () => '/domains', ready: (p) => p.getByRole('heading').first() },
  { name: 'Mailers', path: () => '/mailers', ready: (p) => p.getByRole('heading').first() },
  { name: 'Settings', path: () => '/settings', ready: (p) => p.getByRole('heading').first() },
  { name: 'Page not found', path: () => '/no-such-screen', ready: (p) => p.getByTestId('not-found') },
];

/** Long enough that its payload line is wider than any JSON box (a box must wrap or scroll it, never cut it). */
export const LONG_SUBJECT =
  'Spring sale: everything in the shop is forty percent off this weekend only, with free delivery on orders over thirty euros and returns within sixty days of purchase';

/** A webhook, a bounced send and a delivered one with a link: messages, events and deliveries. */
export async function seed(page: Page, served: Served, receiverUrl: string): Promise<Seeded> {
  await registerWebhook(page, served, receiverUrl, { delivery: true, bounce: true, open: true, click: true });
  await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'app@example.com', name: 'App' },
    to: [{ email: 'bounce@sim.mailyard.test' }],
    subject: 'Bounced on purpose',
    content: [{ type: 'text/html', value: '<p>Bounce</p>' }],
  });
  const { id, refId } = await sendEmail(page, served, 'ann@example.com', LONG_SUBJECT, '<h1>Spring</h1><p>Hello <a href="https://example.com/x">there</a></p>');
  await expect
    .poll(async () => (await page.request.get(`${served.url}/emulator/deliveries`)).json().then((b) => b.data.deliveries.length as number))
    .toBeGreaterThan(0);
  const deliveries = (await (await page.request.get(`${served.url}/emulator/deliveries`)).json()).data.deliveries as Array<{ id: string }>;
  const catcher = (await (await page.request.post(`${served.url}/emulator/catchers`, { data: {} })).json()).data as { id: string; url: string };
  await page.request.post(catcher.url, { data: { event: 'delivery' } });
  return { messageId: id, refId, deliveryId: deliveries[0]!.id, catcherId: catcher.id };
}

/** Opens a screen (and its tab) and waits for its data. */
export async function openScreen(page: Page, served: Served, screen: Screen, seeded: Seeded) {
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

/**
 * Seeds the data, opens every screen in turn and gathers what `check` finds on each, each line
 * prefixed with the screen's name (an empty list: nothing found anywhere).
 */
export async function faultsOnEveryScreen(page: Page, served: Served, receiverUrl: string, check: (page: Page) => Promise<string[]>): Promise<string[]> {
  const seeded = await seed(page, served, receiverUrl);
  const found: string[] = [];
  for (const screen of SCREENS) {
    await openScreen(page, served, screen, seeded);
    for (const fault of await check(page)) found.push(`${screen.name}: ${fault}`);
  }
  return found;
}
