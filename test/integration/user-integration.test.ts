/**
 * A small integration written the way a user writes one against the real service's docs: plain fetch
 * with X-API-Key and a base URL from configuration, a webhook receiver that checks its shared secret and
 * acts on each webhook-id once, and paging through the email logs by nextPageToken.
 * Nothing in `app` knows it talks to Mailyard; only the base URL points here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

interface WebhookEvent {
  event: string;
  ref_id: string;
  recipient?: { email: string };
  [key: string]: unknown;
}

/** The user's code: a client of the real service's REST API, configured by base URL and key. */
function app(config: { baseUrl: string; apiKey: string }) {
  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${config.baseUrl}${path}`, {
      method,
      headers: { 'X-API-Key': config.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, any>;
    if (!json.success) throw new Error(`${res.status} ${json.error}`);
    return json;
  };
  return {
    sendWelcome: async (to: string[]) =>
      (
        await request('POST', '/v1/email/send', {
          from: { email: 'hello@shop.example', name: 'Shop' },
          to: to.map((email) => ({ email })),
          subject: 'Welcome',
          content: [{ type: 'text/html', value: '<p>Welcome!</p>' }],
          campaign_id: 'welcome',
          settings: { open_tracking: { enable: true }, click_tracking: { enable: false } },
        })
      ).ref_id as string,
    registerWebhook: (url: string, secret: string) =>
      request('POST', '/v1/webhook/register', {
        webhook_url: url,
        event: 'EMAIL_EVENT',
        method: 'POST',
        headers: { 'X-Webhook-Secret': secret },
        webhook_options: { events: { delivery: true, bounce: true, open: true } },
      }),
    /** Every log entry of a campaign, page after page. */
    async campaignLogs(campaignId: string) {
      const entries: Array<Record<string, any>> = [];
      let pageToken = '';
      do {
        const query = new URLSearchParams({ campaignId, pageSize: '2', ...(pageToken ? { pageToken } : {}) });
        const page = await request('GET', `/v1/email/logs?${query}`);
        entries.push(...page.emailLogs);
        pageToken = page.nextPageToken;
      } while (pageToken);
      return entries;
    },
  };
}

/** The user's webhook receiver: refuses a wrong secret with 401, keeps each event (its webhook-id) once. */
function webhookReceiver(secret: string) {
  const seen = new Map<string, WebhookEvent>();
  let refused = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.headers['x-webhook-secret'] !== secret) {
        refused++;
        res.writeHead(401).end();
        return;
      }
      const event = JSON.parse(Buffer.concat(chunks).toString()) as WebhookEvent;
      seen.set(String(req.headers['webhook-id']), event);
      res.writeHead(200).end('ok');
    });
  });
  return {
    seen,
    refused: () => refused,
    listen: () =>
      new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    async waitFor(predicate: (e: WebhookEvent) => boolean, timeoutMs = 5_000): Promise<WebhookEvent> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const hit = [...seen.values()].find(predicate);
        if (hit) return hit;
        if (Date.now() > until) throw new Error(`no matching webhook within ${timeoutMs} ms; got ${JSON.stringify([...seen.keys()])}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

let emu: TestEmulator;
const receiver = webhookReceiver('s3cret');

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.cleanup();
  await receiver.close();
});

it('runs unchanged against Mailyard: send, the webhook with its ref_id, the logs page by page', async () => {
  const shop = app({ baseUrl: emu.url, apiKey: emu.apiKey });
  await shop.registerWebhook(await receiver.listen(), 's3cret');

  const refId = await shop.sendWelcome(['ann@example.org', 'bounce@sim.mailyard.test', 'open@sim.mailyard.test']);
  await emu.control.setClock({ advance_ms: 60_000 });
  const delivery = await receiver.waitFor((e) => e.ref_id === refId && e.event === 'delivery' && e.recipient?.email === 'ann@example.org');
  expect(delivery).toMatchObject({ campaign_id: 'welcome', sender: { email: 'hello@shop.example' } });
  const bounce = await receiver.waitFor((e) => e.ref_id === refId && e.event === 'bounce');
  expect(bounce).toMatchObject({ recipient: { email: 'bounce@sim.mailyard.test' }, bounce_type: 'hard' });
  await receiver.waitFor((e) => e.ref_id === refId && e.event === 'open');
  expect(receiver.refused()).toBe(0);

  const logs = await shop.campaignLogs('welcome');
  expect(logs.map((l) => [l.recipientAddress, l.status]).sort()).toEqual([
    ['ann@example.org', 'delivered'],
    ['bounce@sim.mailyard.test', 'bounced'],
    ['open@sim.mailyard.test', 'opened'],
  ]);
  expect(new Set(logs.map((l) => l.refId))).toEqual(new Set([refId]));
});
