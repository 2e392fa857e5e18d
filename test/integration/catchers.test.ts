import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startMailyard } from '../../src-main/testing/index';
import { CATCHER_LIMITS, type CatcherModeInput, type CatcherRequest } from '../../src-shared/schemas/catchers';
import { deliveryHelpers } from '../helpers/deliveries';
import { rawRequest, startEmulator, type TestEmulator } from '../helpers/emulator';

let emu: TestEmulator;
afterEach(() => emu?.cleanup());
const { attemptsOf } = deliveryHelpers(() => emu);

async function catcher(mode?: CatcherModeInput, account_id?: string) {
  return (await emu.control.createCatcher({ mode: mode as never, account_id })).data;
}
const caught = async (id: string, limit?: number): Promise<CatcherRequest[]> => (await emu.control.listCatcherRequests(id, { limit })).data.requests;
/** A request to a catcher's url, as any sender makes one. */
const post = (url: string, body = '{"hello":1}', headers: Record<string, string> = {}, method = 'POST') => {
  const u = new URL(url);
  return rawRequest(u.origin, method, u.pathname + u.search, { 'content-type': 'application/json', ...headers }, body);
};

describe('catchers', () => {
  it('records every request (method, path and query, headers, body, both clocks) and answers 200 by default', async () => {
    emu = await startEmulator();
    await emu.control.setClock({ advance_ms: 3_600_000 });
    const c = await catcher();
    expect(c.url).toBe(`${emu.url}/catch/${c.id}`);
    expect(c.account_id).toBe(emu.handle.defaultAccount.id);
    const first = await post(`${c.url}/deep/path?x=1&y=2`, '{"a":"b"}', { 'x-custom': 'yes' }, 'PUT');
    expect(first.status).toBe(200);
    expect(first.headers['access-control-allow-origin']).toBeUndefined();
    const second = await post(c.url, 'plain words', { 'content-type': 'text/plain' }, 'DELETE');
    expect(second.status).toBe(200);
    const [latest, earliest] = await caught(c.id);
    expect(latest).toMatchObject({ number: 2, method: 'DELETE', body: 'plain words', answered_status: 200, signature: 'unsigned', delivery_id: null });
    expect(earliest).toMatchObject({ number: 1, method: 'PUT', path: `/catch/${c.id}/deep/path?x=1&y=2`, body: '{"a":"b"}', body_bytes: 9 });
    expect(earliest!.headers['x-custom']).toBe('yes');
    // The emulator's clock was moved an hour ahead: both clocks are kept.
    expect(Date.parse(earliest!.emulator_at) - Date.parse(earliest!.received_at)).toBeGreaterThan(3_500_000);
    expect((await emu.control.getCatcher(c.id)).data).toMatchObject({ requests_received: 2, requests_kept: 2 });
  });

  it('answers any status, and 401 unless the required header has its value', async () => {
    emu = await startEmulator();
    const c = await catcher({ status: 503 });
    expect((await post(c.url)).status).toBe(503);
    await emu.control.updateCatcher(c.id, { mode: { require_header: { name: 'X-Secret', value: 's3cret' } } });
    expect((await post(c.url)).status).toBe(401);
    expect((await post(c.url, '{}', { 'x-secret': 'wrong' })).status).toBe(401);
    expect((await post(c.url, '{}', { 'x-secret': 's3cret' })).status).toBe(200);
    const answers = (await caught(c.id)).map((r) => [r.answered_status, r.answered_because]);
    expect(answers).toEqual([
      [200, 'status'],
      [401, 'missing_header'],
      [401, 'missing_header'],
      [503, 'status'],
    ]);
  });

  it('fails exactly the share it is told, spread evenly and the same every run', async () => {
    emu = await startEmulator();
    const c = await catcher({ fail_percent: 30, fail_status: 502 });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await post(c.url)).status);
    const failed = statuses.flatMap((s, i) => (s === 502 ? [i + 1] : []));
    expect(failed).toEqual([4, 7, 10, 14, 17, 20]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(14);
  });

  it('delays its answer, and hangs until the sender gives up, recording the request at once', async () => {
    emu = await startEmulator();
    const slow = await catcher({ delay_ms: 300 });
    const started = performance.now();
    expect((await post(slow.url)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);

    const hung = await catcher({ hang: true });
    const aborted = fetch(hung.url, { method: 'POST', body: '{}', signal: AbortSignal.timeout(500) }).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    // Recorded while it hangs, before any answer.
    for (let i = 0; (await caught(hung.id)).length === 0; i++) {
      if (i > 200) throw new Error('the hanging request was never recorded');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await aborted).toBe('TimeoutError');
    expect((await caught(hung.id))[0]).toMatchObject({ answered_status: 0, answered_because: 'hang' });
  });

  it('a hanging catcher fails a delivery attempt by its time-out, and the emulator still stops promptly', async () => {
    emu = await startEmulator({ deliveryTimeoutMs: 300, retrySchedule: 'none' });
    const c = await catcher({ hang: true });
    await emu.control.pointWebhookAtCatcher(c.id);
    const fired = (await emu.control.fireEvent({ event: 'delivery', recipient: 'a@example.com' })).data;
    const d = await attemptsOf(fired.delivery_id!, 1);
    expect(d.attempt_log[0]).toMatchObject({ outcome: 'failed', error: { code: 'timeout' } });
    // Another request hangs while the emulator stops: the stop does not wait out the hang.
    void post(c.url).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    const stopping = performance.now();
    await emu.stop();
    expect(performance.now() - stopping).toBeLessThan(CATCHER_LIMITS.hangMs / 10);
  });
});

describe('a catcher as the account webhook', () => {
  it('receives every event kind, each beside its delivery and attempt, with the signature verdict', async () => {
    emu = await startEmulator({ retrySchedule: [50, 50] });
    const secret = (await emu.control.setSigningSecret(emu.handle.defaultAccount.id, {})).data.signing_secret!;
    const c = await catcher({ status: 500 });
    const used = (await emu.control.pointWebhookAtCatcher(c.id)).data;
    expect(used).toMatchObject({ webhook_url: c.url, created: true });
    const fired = (await emu.control.fireEvent({ event: 'open', recipient: 'a@example.com' })).data;
    const d = await attemptsOf(fired.delivery_id!, 3);
    expect(d.attempt_log.map((a) => a.response?.status)).toEqual([500, 500, 500]);
    const requests = await caught(c.id);
    expect(requests.map((r) => [r.delivery_id, r.attempt])).toEqual([
      [fired.delivery_id, 3],
      [fired.delivery_id, 2],
      [fired.delivery_id, 1],
    ]);
    expect(requests.every((r) => r.signature === 'valid')).toBe(true);
    // The same verdict as the standardwebhooks package gives.
    const r = requests[0]!;
    expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();

    // A request with a forged signature is shown as such.
    await emu.control.updateCatcher(c.id, { mode: {} });
    await post(c.url, r.body, { ...r.headers, 'webhook-signature': 'v1,Zm9yZ2Vk' });
    expect((await caught(c.id, 1))[0]!.signature).toBe('invalid');
  });

  it("numbers each request as the delivery's log numbers its attempt; a copied request replayed is no attempt of it", async () => {
    emu = await startEmulator({ retrySchedule: [50, 50] });
    const c = await catcher({ status: 500 });
    await emu.control.pointWebhookAtCatcher(c.id);
    const id = (await emu.control.fireEvent({ event: 'open', recipient: 'a@example.com' })).data.delivery_id!;
    await attemptsOf(id, 3);
    await emu.control.updateCatcher(c.id, { mode: {} });
    // Retry now: the delivery's fourth attempt.
    expect((await emu.control.retryDelivery(id)).data.attempt.number).toBe(4);
    // Copy as curl, sent as it is, twice: requests of the delivery, but not attempts (its log keeps 4).
    for (let i = 0; i < 2; i++) {
      const signed = (await emu.control.signDeliveryRequest(id)).data;
      await post(signed.url, signed.body!, signed.headers);
    }
    const log = (await emu.control.getDelivery(id)).data.attempt_log.map((a) => a.number);
    expect(log).toEqual([1, 2, 3, 4]);
    expect((await caught(c.id)).map((r) => [r.delivery_id, r.attempt])).toEqual([
      [id, null],
      [id, null],
      [id, 4],
      [id, 3],
      [id, 2],
      [id, 1],
    ]);
  });

  it("tells a scenario's duplicate from its original, though both carry one webhook-id", async () => {
    emu = await startEmulator();
    const c = await catcher();
    await emu.control.pointWebhookAtCatcher(c.id);
    emu.handle.services.deliveryFaults.set(emu.handle.defaultAccount.id, { duplicates: 1 });
    const id = (await emu.control.fireEvent({ event: 'open', recipient: 'a@example.com' })).data.delivery_id!;
    const both = await emu.control.listDeliveries({ event: 'open' });
    const ids = both.data.deliveries.map((d) => d.id);
    expect(ids).toHaveLength(2);
    for (const d of ids) await attemptsOf(d, 1);
    const requests = await caught(c.id);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect(requests.map((r) => [r.delivery_id, r.attempt]).sort()).toEqual(ids.map((d) => [d, 1]).sort());
  });

  it('points an existing webhook at the catcher with every kind on', async () => {
    emu = await startEmulator();
    await emu.registerEmailWebhook(`${emu.url}/nowhere`);
    await emu.service.updateWebhook({ event: 'EMAIL_EVENT', webhook_options: { events: { click: true } } });
    const c = await catcher();
    expect((await emu.control.pointWebhookAtCatcher(c.id)).data.created).toBe(false);
    const hooks = (await emu.service.listWebhooks()).data as unknown as Array<{ webhook_url: string; webhook_options?: { events: Record<string, boolean> } }>;
    const hook = hooks.find((h) => h.webhook_url === c.url)!;
    expect(Object.values(hook.webhook_options!.events).every(Boolean)).toBe(true);
  });
});

describe('--strict-webhook-urls', () => {
  it('accepts a catcher url (Mailyard’s own) as a webhook and delivers to it, while other loopback urls stay refused', async () => {
    emu = await startEmulator({ strictWebhookUrls: true, retrySchedule: 'none' });
    const c = await catcher();
    const refused = await emu.request('POST', '/v1/webhook/register', {
      body: { webhook_url: `${emu.url}/emulator/reset`, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { open: true } } },
    });
    expect(refused.status).toBe(400);
    await emu.control.pointWebhookAtCatcher(c.id);
    const fired = (await emu.control.fireEvent({ event: 'open', recipient: 'a@example.com' })).data;
    const d = await attemptsOf(fired.delivery_id!, 1);
    expect(d.attempt_log[0]).toMatchObject({ outcome: 'succeeded' });
    expect((await caught(c.id))[0]).toMatchObject({ delivery_id: fired.delivery_id, attempt: 1 });
  });
});

describe('catchers are an account’s, bounded, and cleared by reset', () => {
  it('lists only the named account’s catchers, and 404s an unknown account or catcher', async () => {
    emu = await startEmulator();
    const other = (await emu.control.createAccount({ name: 'other' })).data;
    const mine = await catcher();
    const theirs = await catcher(undefined, other.id);
    expect((await emu.control.listCatchers({})).data.catchers.map((c) => c.id)).toEqual([mine.id]);
    expect((await emu.control.listCatchers({ account_id: other.id })).data.catchers.map((c) => c.id)).toEqual([theirs.id]);
    expect((await emu.request('POST', '/emulator/catchers', { body: { account_id: 'nope' } })).status).toBe(404);
    expect((await emu.request('GET', '/emulator/catchers/01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    expect((await post(`${emu.url}/catch/01ARZ3NDEKTSV4RRFFQ69G5FAV`)).status).toBe(404);
  });

  it('refuses a bad mode with a 400 naming the field', async () => {
    emu = await startEmulator();
    const res = await emu.request('POST', '/emulator/catchers', { body: { mode: { fail_percent: 130 } } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json)).toContain('fail_percent');
    const delay = await emu.request('POST', '/emulator/catchers', { body: { mode: { delay_ms: CATCHER_LIMITS.maxDelayMs + 1 } } });
    expect(delay.status).toBe(400);
  });

  it('keeps at most the bound of catchers per account, requests per catcher and body bytes per request', async () => {
    emu = await startEmulator();
    const first = await catcher();
    for (let i = 1; i < CATCHER_LIMITS.perAccount; i++) await catcher();
    const over = await emu.request('POST', '/emulator/catchers', { body: {} });
    expect(over.status).toBe(400);
    expect(over.json.error).toContain(`at most ${CATCHER_LIMITS.perAccount} catchers`);

    const big = 'x'.repeat(CATCHER_LIMITS.bodyKeptBytes + 10);
    await post(first.url, big, { 'content-type': 'text/plain' });
    const [kept] = await caught(first.id);
    expect(kept).toMatchObject({ body_bytes: big.length, body_truncated: true });
    expect(kept!.body).toHaveLength(CATCHER_LIMITS.bodyKeptBytes);
    const tooBig = await post(first.url, 'y'.repeat(CATCHER_LIMITS.bodyReadBytes + 1), { 'content-type': 'text/plain' });
    expect(tooBig.status).toBe(413);

    for (let i = 0; i < CATCHER_LIMITS.requestsKept + 5; i++) await post(first.url, `{"n":${i}}`);
    const got = (await emu.control.getCatcher(first.id)).data;
    expect(got.requests_received).toBe(CATCHER_LIMITS.requestsKept + 6);
    expect(got.requests_kept).toBe(CATCHER_LIMITS.requestsKept);
    // Newest first, paged by cursor to the last kept one.
    const page1 = (await emu.control.listCatcherRequests(first.id, { limit: 150 })).data;
    const page2 = (await emu.control.listCatcherRequests(first.id, { limit: 150, cursor: page1.next_cursor! })).data;
    expect(page1.requests[0]!.body).toBe(`{"n":${CATCHER_LIMITS.requestsKept + 4}}`);
    expect(page2.requests).toHaveLength(CATCHER_LIMITS.requestsKept - 150);
    expect(page2.next_cursor).toBeNull();
    // Sent: the large body, then n = 0 to 204; the newest 200 are n = 5 to 204.
    expect(page2.requests.at(-1)!.body).toBe('{"n":5}');
  });

  it('keeps at most the bound of stored bytes per catcher, dropping the oldest', async () => {
    emu = await startEmulator();
    const c = await catcher();
    const body = 'z'.repeat(CATCHER_LIMITS.bodyKeptBytes);
    const n = Math.ceil(CATCHER_LIMITS.storedBytes / CATCHER_LIMITS.bodyKeptBytes) + 3;
    for (let i = 0; i < n; i++) await post(c.url, body, { 'content-type': 'text/plain' });
    const got = (await emu.control.getCatcher(c.id)).data;
    expect(got.requests_received).toBe(n);
    expect(got.requests_kept).toBeLessThan(CATCHER_LIMITS.storedBytes / CATCHER_LIMITS.bodyKeptBytes);
    expect(got.requests_kept).toBeGreaterThan(CATCHER_LIMITS.storedBytes / CATCHER_LIMITS.bodyKeptBytes - 3);
  });

  it('is cleared by reset (its url answers 404 afterwards), and persists across a restart otherwise', async () => {
    emu = await startEmulator();
    const c = await catcher({ status: 418 });
    await post(c.url);
    const dataDir = emu.dataDir;
    await emu.stop();
    emu = await startEmulator({}, {}, dataDir);
    const again = (await emu.control.getCatcher(c.id)).data;
    expect(again).toMatchObject({ mode: { status: 418 }, requests_received: 1 });
    await emu.control.resetEmulator();
    expect((await emu.request('GET', `/emulator/catchers/${c.id}`)).status).toBe(404);
    expect((await emu.control.listCatchers({})).data.catchers).toEqual([]);
  });
});

describe('the testing API', () => {
  it('yard.createCatcher gives a url to receive webhooks, their requests, and a switch of its answers', async () => {
    const yard = await startMailyard({ retrySchedule: [50, 50] });
    try {
      const c = await yard.createCatcher({ useAsWebhook: true });
      expect(c.url).toBe(`${yard.url}/catch/${c.id}`);
      const first = await yard.fireEvent({ event: 'click', recipient: 'a@example.com' });
      await yard.waitForDelivery({ status: 'succeeded' });
      await c.setMode({ status: 500 });
      const second = await yard.fireEvent({ event: 'open', recipient: 'a@example.com' });
      await yard.waitForDelivery({ status: 'failed' });
      const requests = await c.requests();
      expect(requests.map((r) => [r.delivery_id, r.attempt, r.answered_status])).toEqual([
        [first.delivery_id, 1, 200],
        [second.delivery_id, 1, 500],
        [second.delivery_id, 2, 500],
        [second.delivery_id, 3, 500],
      ]);
    } finally {
      await yard.stop();
    }
  });
});
