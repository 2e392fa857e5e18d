import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, ServiceClient } from '../../src-shared/clients';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import type { DeliverySummary } from '../../src-shared/schemas/dispatch';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

// The deliveries list's search and counts (GET /emulator/deliveries, /count) and the per-endpoint view
// (GET /emulator/endpoints): an account whose receiver answers 200, another whose receiver answers 500
// (retried in an hour, so its delivery stays failing).
let emu: TestEmulator;
let good: Receiver;
let bad: Receiver;
let otherAccount: string;
let sentRefId: string;

const allKinds = () => Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true]));

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const list = async (query: Parameters<TestEmulator['control']['listDeliveries']>[0] = {}) =>
  (await emu.control.listDeliveries({ limit: 500, ...query })).data.deliveries;
const count = async (query: Parameters<TestEmulator['control']['countDeliveries']>[0] = {}) => (await emu.control.countDeliveries(query)).data.count;
const recipients = (rows: DeliverySummary[]) => rows.map((d) => d.recipient).sort();

beforeAll(async () => {
  good = await startReceiver();
  bad = await startReceiver();
  bad.status = 500;
  emu = await startEmulator({ retrySchedule: '1h' });
  await emu.registerEmailWebhook(good.url);
  const other = (await emu.control.createAccount({ name: 'Failing receiver' })).data;
  otherAccount = other.id;
  await new ServiceClient({ baseUrl: emu.url, apiKey: other.api_key }).registerWebhook({
    webhook_url: `${bad.url}/hooks/mail`,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: allKinds() },
  });
  // The default account: a bounce for ann, a delivery for joann (whose address ends with ann's), an
  // open of a stored send (its subject is the send's).
  await emu.control.fireEvent({ event: 'bounce', recipient: 'ann@example.com' });
  await emu.control.fireEvent({ event: 'delivery', recipient: 'joann@example.com', fields: { subject: 'Your receipt' } });
  sentRefId = (
    await emu.service.sendEmail({
      from: { email: 'shop@example.com', name: 'Shop' },
      to: [{ email: 'carol@example.com' }],
      subject: 'Order 1042 shipped',
      content: [{ type: 'text/plain', value: 'On its way' }],
    })
  ).ref_id;
  await emu.control.fireEvent({ event: 'open', ref_id: sentRefId, recipient: 'carol@example.com' });
  // The other account: a delivery its receiver refuses.
  await emu.control.fireEvent({ event: 'bounce', recipient: 'dan@example.com', account_id: otherAccount });
  await bad.waitFor(1);
  await until(
    'the failed attempt to be recorded',
    () => list({ account_id: otherAccount }),
    (rows) => rows[0]?.attempts === 1,
  );
});
afterAll(async () => {
  await emu.cleanup();
  await good.close();
  await bad.close();
});

describe('GET /emulator/deliveries: recipient, subject, q, failing', () => {
  it('shows each delivery with its event, recipient, subject and target URL', async () => {
    const rows = await list();
    const ann = rows.find((d) => d.recipient === 'ann@example.com')!;
    expect(ann).toMatchObject({ event: 'bounce', subject: null, target: { url: good.url } });
    expect(rows.find((d) => d.recipient === 'joann@example.com')).toMatchObject({ event: 'delivery', subject: 'Your receipt' });
    // An open carries no subject: the send's is shown.
    expect(rows.find((d) => d.event === 'open')).toMatchObject({ recipient: 'carol@example.com', subject: 'Order 1042 shipped', ref_id: sentRefId });
    expect(rows.find((d) => d.recipient === 'dan@example.com')).toMatchObject({ target: { url: `${bad.url}/hooks/mail` }, status: 'pending', attempts: 1 });
    // One delivery has them too.
    expect((await emu.control.getDelivery(ann.id)).data).toMatchObject({ recipient: 'ann@example.com', subject: null });
  });

  it('a pasted address filters by it, however it is pasted, and never matches a longer address', async () => {
    for (const q of ['ann@example.com', '  ANN@Example.com\n', 'Ann <ann@example.com>', '<ann@example.com>', 'mailto:ann@example.com', 'ann@example.com,']) {
      const rows = await list({ q });
      expect(recipients(rows), JSON.stringify(q)).toEqual(['ann@example.com']);
      expect(await count({ q }), JSON.stringify(q)).toBe(1);
    }
    expect(await list({ q: 'nobody@example.com' })).toEqual([]);
    expect(await count({ q: 'nobody@example.com' })).toBe(0);
    // The exact recipient filter.
    expect(recipients(await list({ recipient: 'JOANN@example.com' }))).toEqual(['joann@example.com']);
  });

  it('q finds text in the recipient, the target URL and the payload, case-insensitively', async () => {
    // Part of an address: a text search.
    expect(recipients(await list({ q: 'ann@' }))).toEqual(['ann@example.com', 'joann@example.com']);
    // The URL.
    expect(recipients(await list({ q: '/HOOKS/mail' }))).toEqual(['dan@example.com']);
    // The body: the bounce's reason, the subject in a delivery's payload.
    expect(recipients(await list({ q: 'user unknown' }))).toEqual(['ann@example.com', 'dan@example.com']);
    expect(recipients(await list({ q: 'your RECEIPT' }))).toEqual(['joann@example.com']);
    // With the other filters.
    expect(recipients(await list({ q: 'user unknown', account_id: otherAccount }))).toEqual(['dan@example.com']);
    // A blank q is no filter.
    expect(await count({ q: '   ' })).toBe(await count());
  });

  it('failing: pending or sending after a failed attempt, as the stats count it', async () => {
    const failing = await list({ status: 'failing' });
    expect(failing.map((d) => [d.recipient, d.status, d.attempts])).toEqual([['dan@example.com', 'pending', 1]]);
    expect(await count({ status: 'failing' })).toBe(1);
    expect((await emu.control.getStats()).data.deliveries.failing).toBe(1);
    expect(await count({ status: 'failing', account_id: emu.handle.defaultAccount.id })).toBe(0);
    const bogus = (await emu.control.listDeliveries({ status: 'retrying' as 'failing' }).catch((e: unknown) => e)) as ApiError;
    expect(bogus.status).toBe(400);
  });

  it('counts what the list shows, with the same filters', async () => {
    const all = await list();
    expect(await count()).toBe(all.length);
    expect(await count({ event: 'bounce' })).toBe(all.filter((d) => d.event === 'bounce').length);
    expect(await count({ status: 'succeeded' })).toBe(all.filter((d) => d.status === 'succeeded').length);
    const res = await emu.request('GET', '/emulator/deliveries/count?status=bogus');
    expect(res.status).toBe(400);
  });
});

describe('GET /emulator/endpoints', () => {
  it('each target with its deliveries by status, failing ones and failure rate; its id filters the list', async () => {
    const { endpoints } = (await emu.control.listEndpoints()).data;
    expect(endpoints).toHaveLength(2);
    const failing = endpoints.find((e) => e.target.url === `${bad.url}/hooks/mail`)!;
    expect(failing).toMatchObject({
      account_id: otherAccount,
      deliveries: 1,
      succeeded: 0,
      failed: 0,
      pending: 1,
      failing: 1,
      attempts: 1,
      failed_attempts: 1,
      failure_rate: 1,
    });
    expect(failing.last_attempt_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const fine = endpoints.find((e) => e.target.url === good.url)!;
    const defaults = await list({ account_id: emu.handle.defaultAccount.id });
    expect(fine.deliveries).toBe(defaults.length);
    expect(fine.failing).toBe(0);
    expect(fine.failure_rate).toBe(0);
    expect(fine.attempts).toBe(fine.succeeded);
    // The view's link: the list filtered to that endpoint and to failing.
    expect(recipients(await list({ target_id: failing.target.id, status: 'failing' }))).toEqual(['dan@example.com']);
    expect(await list({ target_id: fine.target.id, status: 'failing' })).toEqual([]);
    // By account.
    expect((await emu.control.listEndpoints({ account_id: otherAccount })).data.endpoints.map((e) => e.target.id)).toEqual([failing.target.id]);
  });

  it('a failure rate is failed attempts over attempts: a manual retry that succeeds halves it', async () => {
    const [dan] = await list({ recipient: 'dan@example.com' });
    bad.status = 200;
    try {
      await emu.control.retryDelivery(dan!.id);
    } finally {
      bad.status = 500;
    }
    const { endpoints } = (await emu.control.listEndpoints({ account_id: otherAccount })).data;
    expect(endpoints[0]).toMatchObject({ succeeded: 1, failing: 0, pending: 0, attempts: 2, failed_attempts: 1, failure_rate: 0.5 });
    expect(await count({ status: 'failing' })).toBe(0);
  });
});
