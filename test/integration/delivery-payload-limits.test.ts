import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { startMailyard } from '../../src-main/testing/index';
import { DELIVERY_BODY_LIMITS, DeliveryDetail } from '../../src-shared/schemas/dispatch';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

const { payloadShownBytes, requestBodyShownBytes, responseBodyKeptBytes, earlierResponseBodyKeptChars } = DELIVERY_BODY_LIMITS;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<{ emu: TestEmulator; receiver: Receiver }> {
  const receiver = await startReceiver();
  const emu = await startEmulator();
  cleanups.push(
    () => emu.cleanup(),
    () => receiver.close(),
  );
  return { emu, receiver };
}

/** Moves the emulator clock (raw: only what the test needs of the answer). */
async function clock(emu: TestEmulator, body: { speed?: number; advance_ms?: number }): Promise<void> {
  const res = await emu.request('POST', '/emulator/clock', { body });
  expect(res.status, res.text).toBe(200);
}

async function detail(emu: TestEmulator, id: string): Promise<{ bytes: number; d: DeliveryDetail }> {
  const res = await emu.request('GET', `/emulator/deliveries/${id}`);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return { bytes: Buffer.byteLength(res.text), d: DeliveryDetail.parse(res.json.data) };
}

/** Waits until the delivery has `n` attempts recorded and none in flight. */
async function attempts(emu: TestEmulator, id: string, n: number): Promise<DeliveryDetail> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { d } = await detail(emu, id);
    if (d.attempt_log.length >= n && d.status !== 'sending') return d;
    if (Date.now() > deadline) throw new Error(`delivery ${id} has ${d.attempt_log.length} attempts (${d.status}), expected ${n}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The store's size on disk once its write-ahead log is folded in (the emulator stopped). */
async function storeBytes(dir: string): Promise<number> {
  const db = new Database(join(dir, DATABASE_FILE));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  let n = 0;
  for (const f of await readdir(dir)) {
    const s = await stat(join(dir, f));
    if (s.isFile()) n += s.size;
  }
  return n;
}

describe('a delivery with a large payload', () => {
  it('is answered in part, bounded, with the whole at its payload URL, byte for byte as sent', { timeout: 60_000 }, async () => {
    const { emu, receiver } = await setup();
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: receiver.url, method: 'POST', wildcard: true });
    // About 6 MB of JSON: a long text of characters of 1, 2 and 4 bytes (a surrogate pair) in UTF-8.
    const text = 'Lorem ipsum é 😀 '.repeat(300_000);
    const routed = (await emu.control.simulateInbound({ from: { email: 'a@example.org' }, to: ['big@in.example.com'], subject: 'big', text })).data;
    const id = routed.recipients[0]!.delivery_id!;
    const [sent] = await receiver.waitFor(1, 30_000);
    const d = await attempts(emu, id, 1);
    const sentBytes = Buffer.byteLength(sent!.body);
    expect(sentBytes).toBeGreaterThan(5_000_000);

    // The detail: no payload, its first 256 KiB, its size, and where the whole is.
    const { bytes } = await detail(emu, id);
    expect(bytes).toBeLessThan(payloadShownBytes + 64 * 1024);
    expect(d).toMatchObject({
      payload: null,
      payload_truncated: true,
      payload_bytes: sentBytes,
      payload_url: `/emulator/deliveries/${id}/payload`,
      recipient: 'big@in.example.com',
      subject: 'big',
    });
    const preview = d.payload_preview!;
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(payloadShownBytes);
    expect(Buffer.byteLength(preview)).toBeGreaterThan(payloadShownBytes - 4);
    expect(sent!.body.startsWith(preview)).toBe(true);
    expect(preview).not.toContain('\uFFFD');

    // The attempt shows the first bytes of what it sent, and its size.
    const request = d.attempt_log[0]!.request;
    expect(request.body_truncated).toBe(true);
    expect(request.body_bytes).toBe(sentBytes);
    expect(Buffer.byteLength(request.body)).toBeLessThanOrEqual(requestBodyShownBytes);
    expect(sent!.body.startsWith(request.body)).toBe(true);

    // The whole payload, as stored and sent.
    const whole = await emu.request('GET', d.payload_url);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-type']).toMatch(/^application\/json/);
    expect(whole.headers['content-disposition']).toMatch(/^attachment; filename="?delivery-\w+\.json"?$/);
    expect(whole.text).toBe(sent!.body);
    expect(await emu.control.getDeliveryPayload(id)).toEqual(JSON.parse(sent!.body));

    // The list and a manual attempt's answer are bounded too.
    const list = await emu.request('GET', '/emulator/deliveries');
    expect(Buffer.byteLength(list.text)).toBeLessThan(16 * 1024);
    expect(list.json.data.deliveries[0]).toMatchObject({ id, recipient: 'big@in.example.com', subject: 'big' });
    const retried = await emu.request('POST', `/emulator/deliveries/${id}/retry`);
    expect(retried.status, retried.text.slice(0, 300)).toBe(200);
    expect(Buffer.byteLength(retried.text)).toBeLessThan(requestBodyShownBytes + 16 * 1024);
    expect(retried.json.data.attempt.request).toMatchObject({ body_truncated: true, body_bytes: sentBytes });
    expect((await receiver.waitFor(2, 30_000))[1]!.body).toBe(sent!.body);
  });

  it('is announced on the live stream with the first 8 KiB of its body, not the whole', { timeout: 60_000 }, async () => {
    const { emu, receiver } = await setup();
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: receiver.url, method: 'POST', wildcard: true });
    const controller = new AbortController();
    const res = await fetch(`${emu.url}/emulator/stream`, { signal: controller.signal });
    const reader = res.body!.getReader();
    const routed = await emu.control.simulateInbound({ from: { email: 'a@example.org' }, to: ['big@in.example.com'], text: 'x'.repeat(2_000_000) });
    const id = routed.data.recipients[0]!.delivery_id!;
    let text = '';
    const deadline = Date.now() + 20_000;
    while (!text.includes('event: attempt.completed') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value, { stream: true });
    }
    // The rest of the block that named it.
    while (!/event: attempt\.completed\ndata: [^\n]*\n\n/.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value, { stream: true });
    }
    controller.abort();
    expect(Buffer.byteLength(text)).toBeLessThan(requestBodyShownBytes + 16 * 1024);
    const block = /event: attempt\.completed\ndata: ([^\n]*)\n\n/.exec(text)!;
    const announced = JSON.parse(block[1]!) as { delivery_id: string; attempt: DeliveryDetail['attempt_log'][number] };
    expect(announced.delivery_id).toBe(id);
    expect(announced.attempt.request).toMatchObject({ body_truncated: true });
    expect(Buffer.byteLength(announced.attempt.request.body)).toBeLessThanOrEqual(requestBodyShownBytes);
  });

  it('a small payload is answered whole, and a missing delivery has no payload', async () => {
    const { emu, receiver } = await setup();
    await emu.registerEmailWebhook(receiver.url);
    const fired = (await emu.control.fireEvent({ event: 'delivery', recipient: 'ann@example.com' })).data;
    const [sent] = await receiver.waitFor(1);
    const d = await attempts(emu, fired.delivery_id!, 1);
    expect(d).toMatchObject({ payload: fired.payload, payload_truncated: false, payload_preview: null, payload_bytes: Buffer.byteLength(sent!.body) });
    expect(d.attempt_log[0]!.request).toMatchObject({ body: sent!.body, body_truncated: false, body_bytes: Buffer.byteLength(sent!.body) });
    expect((await emu.request('GET', d.payload_url)).text).toBe(sent!.body);

    const missing = await emu.request('GET', '/emulator/deliveries/01NOPE/payload');
    expect([missing.status, missing.json.error]).toEqual([404, 'Delivery Not Found']);
  });
});

describe('the testing API', () => {
  it('gives a test the whole of a large payload', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver();
    const yard = await startMailyard({ ui: false });
    cleanups.push(
      () => yard.stop(),
      () => receiver.close(),
    );
    await yard.service.configureInboundRouting({ domain: 'in.example.com', url: receiver.url, method: 'POST', wildcard: true });
    const text = 'x'.repeat(400 * 1024);
    await yard.control.simulateInbound({ from: { email: 'a@example.org' }, to: ['big@in.example.com'], subject: 'big', text });
    const d = await yard.waitForDelivery((d) => d.event === 'inbound' && d.status === 'succeeded');
    expect(d.payload_truncated).toBe(true);
    const [sent] = await receiver.waitFor(1);
    expect(d.payload).toEqual(JSON.parse(sent!.body));
  });
});

describe('what attempts keep of the response body', () => {
  it('the latest keeps its first 8 KiB, earlier ones their first 1,024 characters', { timeout: 30_000 }, async () => {
    const { emu, receiver } = await setup();
    // An error page of 100 KB with characters of 2 bytes, then one of another shape for the last attempt.
    const page = (n: number) => `<h1>Error ${n}</h1>${'ü'.repeat(50_000)}`;
    receiver.answer = (_req, i) => ({ status: 500, body: page(i), headers: { 'content-type': 'text/html; charset=utf-8' } });
    await emu.registerEmailWebhook(receiver.url);
    await clock(emu, { speed: 0 });
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    let d = await attempts(emu, id, 1);
    const latest = d.attempt_log[0]!.response!;
    expect(latest.truncated).toBe(true);
    expect(Buffer.byteLength(latest.body)).toBeLessThanOrEqual(responseBodyKeptBytes);
    expect(Buffer.byteLength(latest.body)).toBeGreaterThan(responseBodyKeptBytes - 2);
    expect(page(0).startsWith(latest.body)).toBe(true);

    // The retries (5 s, then 5 min): each earlier answer is cut once a later one is recorded.
    await clock(emu, { advance_ms: 5_000 });
    await attempts(emu, id, 2);
    await clock(emu, { advance_ms: 300_000 });
    d = await attempts(emu, id, 3);
    const bodies = d.attempt_log.map((a) => a.response!);
    for (const [i, r] of bodies.slice(0, 2).entries()) {
      expect(r.body).toBe(page(i).slice(0, earlierResponseBodyKeptChars));
      expect(r.truncated).toBe(true);
    }
    expect(page(2).startsWith(bodies[2]!.body)).toBe(true);
    expect(Buffer.byteLength(bodies[2]!.body)).toBeGreaterThan(responseBodyKeptBytes - 2);
  });

  it('500 failing deliveries answered with 100 KB pages grow the store by at most 20 KiB each (about 86 KB each before)', { timeout: 120_000 }, async () => {
    const { emu, receiver } = await setup();
    receiver.answer = () => ({ status: 500, body: `<html>${'x'.repeat(100_000)}</html>`, headers: { 'content-type': 'text/html' } });
    await emu.registerEmailWebhook(receiver.url);
    await clock(emu, { speed: 0 });
    const dir = emu.dataDir;
    await emu.stop();
    const before = await storeBytes(dir);
    const again = await startEmulator({}, {}, dir);
    cleanups.push(() => again.stop());
    for (let i = 0; i < 500; i++) await again.control.fireEvent({ event: 'delivery' });
    await receiver.waitFor(500, 60_000);
    for (let sending = 1; sending > 0; ) {
      await new Promise((r) => setTimeout(r, 50));
      sending = (await again.control.countDeliveries({ status: 'sending' })).data.count;
    }
    expect((await again.control.countDeliveries({ status: 'failing' })).data.count).toBe(500);
    await again.stop();
    const growth = (await storeBytes(dir)) - before;
    // Measured: 6.4 MB (42.9 MB when each attempt kept 64 KiB of the answer).
    expect(growth).toBeLessThan(500 * 20 * 1024);
  });
});
