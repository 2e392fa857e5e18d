import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, type Page } from '@playwright/test';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { startServeProcess } from '../helpers/serve-process';

export interface Served {
  url: string;
  apiKey: string;
  /** The SMTP sink's port. */
  smtpPort: number;
}

export const test = base.extend<{ served: Served; serveArgs: string[]; dataDir: boolean; receiver: Receiver }>({
  // Extra `mailyard serve` flags for one file or test (`test.use({ serveArgs: [...] })`).
  serveArgs: [[], { option: true }],
  // A temporary data directory instead of `--memory` (`test.use({ dataDir: true })`).
  dataDir: [false, { option: true }],
  // The built `mailyard serve` on a free port, in memory (or a temporary directory), for one test.
  served: async ({ serveArgs, dataDir }, use) => {
    const apiKey = 'e2e-key-0123456789';
    const dir = dataDir ? await mkdtemp(join(tmpdir(), 'mailyard-e2e-')) : null;
    const storage = dir ? ['--data-dir', dir] : ['--memory'];
    const serve = await startServeProcess(['--http-port', '0', '--smtp-port', '0', ...storage, '--api-key', apiKey, ...serveArgs]);
    const smtpPort = Number(/^SMTP:\s+smtp:\/\/[^\s]+:(\d+)/m.exec(serve.stdout())?.[1]);
    await use({ url: serve.url, apiKey, smtpPort });
    serve.child.kill('SIGTERM');
    await serve.exited;
    if (dir) await rm(dir, { recursive: true, force: true });
  },
  // A real local webhook receiver (answers 200 unless told otherwise).
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern; the receiver has none
  receiver: async ({}, use) => {
    const receiver = await startReceiver();
    await use(receiver);
    await receiver.close();
  },
});

export { expect } from '@playwright/test';

/** Collects page errors and console errors; `allow` lists console texts expected on purpose. */
export function watchErrors(page: Page, allow: RegExp[] = []): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // A failed fetch's message names no resource; its location does, so a test can allow one request's answer.
    const url = m.location().url;
    const said = url && m.text().startsWith('Failed to load resource') ? `${m.text()} (${url})` : m.text();
    if (!allow.some((a) => a.test(said))) errors.push(said);
  });
  return errors;
}

/** The service API as the test's account, through the page's request context. */
export async function api(page: Page, served: Served, method: 'POST' | 'PUT' | 'DELETE' | 'GET', path: string, data?: unknown) {
  const res = await page.request.fetch(`${served.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${served.apiKey}`, 'content-type': 'application/json' },
    ...(data === undefined ? {} : { data: JSON.stringify(data) }),
  });
  const body = await res.json();
  if (!res.ok()) throw new Error(`${method} ${path}: ${res.status()} ${JSON.stringify(body)}`);
  return body;
}

export async function registerWebhook(page: Page, served: Served, url: string, events: Record<string, boolean>) {
  return api(page, served, 'POST', '/v1/webhook/register', { webhook_url: url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events } });
}

/** The captured copies of one send (one per recipient, each with its own `id`), oldest first. */
export async function copiesOf(
  page: Page,
  served: Served,
  refId: string,
): Promise<Array<{ id: string; ref_id: string; recipient: { email: string }; subject: string; status: string }>> {
  const res = await page.request.get(`${served.url}/emulator/messages?q=${encodeURIComponent(refId)}`);
  const copies = (
    (await res.json()).data.messages as Array<{ id: string; ref_id: string; recipient: { email: string }; subject: string; status: string }>
  ).filter((m) => m.ref_id === refId);
  return copies.reverse();
}

/** Sends one email to one recipient: the send's `refId` (what the API answers) and its one copy's `id`. */
export async function sendEmail(page: Page, served: Served, to: string, subject: string, html = '<p>Hello</p>') {
  const res = await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'app@example.com', name: 'App' },
    to: [{ email: to }],
    subject,
    content: [{ type: 'text/html', value: html }],
  });
  const refId = res.ref_id as string;
  const [copy] = await copiesOf(page, served, refId);
  return { refId, id: copy!.id };
}
