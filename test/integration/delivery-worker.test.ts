import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../src-main/core/dispatch/retry-policy';
import { ServiceClient } from '../../src-shared/clients';
import { deliveryHelpers, emulatorAndReceiverPerTest, registerHook, settle } from '../helpers/deliveries';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

/**
 * The dispatcher's worker (src-main/core/dispatch/delivery-worker.ts) end to end: retries on the
 * schedule and on the emulator clock, what a failed attempt records, each target's own slots, bursts
 * beyond the claim limits. Deliveries left in flight by a kill: dispatcher-crash.test.ts.
 */

let emu: TestEmulator;
let receiver: Receiver;
const cleanups = emulatorAndReceiverPerTest((e, r) => {
  emu = e;
  receiver = r;
});

const { pauseClock, advance, attemptsOf } = deliveryHelpers(() => emu);

describe('retries', () => {
  it('follows the default schedule exactly, on the emulator clock, then fails after 8 attempts', async () => {
    receiver.status = 500;
    await registerHook(emu.service, receiver.url);
    const t0 = await pauseClock();
    const id = (await emu.control.fireEvent({ event: 'bounce' })).data.delivery_id!;
    let d = await attemptsOf(id, 1);
    expect(d.status).toBe('pending');
    expect(d.attempt_log[0]!.started_at).toBe(new Date(t0).toISOString());

    let now = t0;
    for (const [i, delay] of DEFAULT_RETRY_SCHEDULE_MS.entries()) {
      expect(d.next_attempt_at).toBe(new Date(now + delay).toISOString());
      // One millisecond early: nothing is sent.
      await advance(delay - 1);
      await settle();
      expect(receiver.requests).toHaveLength(i + 1);
      await advance(1);
      now += delay;
      d = await attemptsOf(id, i + 2);
      expect(d.attempt_log[i + 1]!.started_at).toBe(new Date(now).toISOString());
    }
    expect(d.status).toBe('failed');
    expect(d.next_attempt_at).toBeNull();
    expect(d.attempts).toBe(8);
    expect(d.last_status_code).toBe(500);
    expect(d.last_error).toBe('HTTP 500');
    await advance(30 * 24 * 3600 * 1000);
    await settle();
    expect(receiver.requests).toHaveLength(8);
    // webhook-id is the same on every attempt.
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
  });

  it('stops retrying once the receiver answers 2xx', async () => {
    receiver.answer = (_req, i) => (i < 3 ? 500 : 200);
    await registerHook(emu.service, receiver.url);
    await pauseClock();
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    await attemptsOf(id, 1);
    await advance(5_000);
    await attemptsOf(id, 2);
    await advance(300_000);
    await attemptsOf(id, 3);
    await advance(1_800_000);
    const d = await attemptsOf(id, 4);
    expect(d.status).toBe('succeeded');
    expect(d.attempt_log.map((a) => a.response?.status)).toEqual([500, 500, 500, 200]);
    await advance(24 * 3600 * 1000);
    await settle();
    expect(receiver.requests).toHaveLength(4);
  });

  it('uses --retry-schedule', async () => {
    const custom = await startEmulator({ retrySchedule: '2s,1m' });
    cleanups.push(() => custom.cleanup());
    receiver.status = 503;
    await registerHook(custom.service, receiver.url);
    const t0 = (await custom.control.setClock({ speed: 0 })).data.now_ms;
    const id = (await custom.control.fireEvent({ event: 'spam' })).data.delivery_id!;
    await receiver.waitFor(1);
    await custom.control.setClock({ advance_ms: 2_000 });
    await receiver.waitFor(2);
    await custom.control.setClock({ advance_ms: 60_000 });
    await receiver.waitFor(3);
    await new Promise((r) => setTimeout(r, 100));
    const d = (await custom.control.getDelivery(id)).data;
    expect(d.status).toBe('failed');
    expect(d.attempt_log.map((a) => Date.parse(a.started_at) - t0)).toEqual([0, 2_000, 62_000]);
  });

  it('sends retries to the webhook as it is now: URL, method and headers', async () => {
    const second = await startReceiver();
    cleanups.push(() => second.close());
    receiver.status = 500;
    await registerHook(emu.service, receiver.url);
    await pauseClock();
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    await attemptsOf(id, 1);
    await emu.service.updateWebhook({ event: 'EMAIL_EVENT', webhook_url: second.url, method: 'PATCH', headers: { 'X-New': 'yes' } });
    await advance(5_000);
    const [req] = await second.waitFor(1);
    expect(req!.method).toBe('PATCH');
    expect(req!.headers['x-new']).toBe('yes');
    expect(req!.headers['webhook-id']).toBe(id);
    const d = await attemptsOf(id, 2);
    expect(d.status).toBe('succeeded');
    expect(d.target.url).toBe(second.url);
  });

  it('cancels pending deliveries when the webhook is deleted: no request follows', async () => {
    receiver.status = 500;
    await registerHook(emu.service, receiver.url);
    await pauseClock();
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    await attemptsOf(id, 1);
    await emu.service.deleteWebhook({ event: 'EMAIL_EVENT' });
    const d = (await emu.control.getDelivery(id)).data;
    expect(d.status).toBe('cancelled');
    expect(d.next_attempt_at).toBeNull();
    await advance(48 * 3600 * 1000);
    await settle();
    expect(receiver.requests).toHaveLength(1);
    // Nor by hand: its target is gone.
    const retry = await emu.request('POST', `/emulator/deliveries/${id}/retry`, { body: {} });
    expect(retry.status).toBe(409);
    expect(retry.json.error).toBe('The target of this delivery no longer exists (its webhook was deleted)');
  });

  it('retries a failed delivery by hand, adding a manual attempt', async () => {
    const quick = await startEmulator({ retrySchedule: 'none' });
    cleanups.push(() => quick.cleanup());
    receiver.status = 500;
    await registerHook(quick.service, receiver.url);
    const id = (await quick.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 100));
    expect((await quick.control.getDelivery(id)).data.status).toBe('failed');

    receiver.status = 200;
    const { data } = await quick.control.retryDelivery(id);
    expect(data.attempt).toMatchObject({ number: 2, trigger: 'manual', outcome: 'succeeded' });
    expect(data.delivery).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(id);

    // A manual attempt on a succeeded delivery is allowed too, and recorded.
    const again = (await quick.control.retryDelivery(id)).data;
    expect(again.attempt.number).toBe(3);
    expect((await quick.request('POST', '/emulator/deliveries/01ABCDEFGHJKMNPQRSTVWXYZ00/retry', { body: {} })).status).toBe(404);
  });
});

describe('failure kinds are recorded', () => {
  it('a refused connection', async () => {
    const doomed = await startReceiver();
    await registerHook(emu.service, doomed.url);
    await doomed.close();
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    const d = await attemptsOf(id, 1);
    expect(d.attempt_log[0]!.error).toEqual({ code: 'refused', message: `connection refused by ${new URL(doomed.url).host}` });
    expect(d.attempt_log[0]!.response).toBeNull();
    expect(d.status).toBe('pending');
  });

  it('a redirect, which is not followed', async () => {
    receiver.answer = () => ({ status: 302, headers: { location: 'http://example.com/' } });
    await registerHook(emu.service, receiver.url);
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    const d = await attemptsOf(id, 1);
    expect(d.attempt_log[0]!.error).toEqual({ code: 'redirect', message: 'redirects are not followed (Location: http://example.com/)' });
    expect(d.attempt_log[0]!.response!.status).toBe(302);
    expect(d.status).toBe('pending');
  });

  it('only the first 8 KiB of a response body', async () => {
    receiver.answer = () => ({ status: 200, body: 'x'.repeat(100_000) });
    await registerHook(emu.service, receiver.url);
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    const d = await attemptsOf(id, 1);
    expect(d.attempt_log[0]!.response!.body).toHaveLength(8_192);
    expect(d.attempt_log[0]!.response!.truncated).toBe(true);
    expect(d.status).toBe('succeeded');
  });
});

describe('isolation between targets', () => {
  it('a hanging receiver holds its own 8 slots only: deliveries to another URL arrive while it hangs', async () => {
    // The attempts' time-out is far beyond the test's: a delivery to the other URL that had to wait for
    // one of the hanging receiver's slots could not arrive before it, however fast or busy the machine.
    const slow = await startEmulator({ deliveryTimeoutMs: 300_000, shutdownGraceMs: 100 });
    cleanups.push(() => slow.cleanup());
    const hanging = await startReceiver();
    hanging.answer = () => 'hang';
    cleanups.push(() => hanging.close());
    const other = (await slow.control.createAccount({ name: 'Other' })).data;
    const otherClient = new ServiceClient({ baseUrl: slow.url, apiKey: other.api_key });
    await registerHook(slow.service, hanging.url);
    await registerHook(otherClient, receiver.url);

    const stuck = await Promise.all(Array.from({ length: 20 }, () => slow.control.fireEvent({ event: 'delivery' })));
    await hanging.waitFor(8);
    await Promise.all(Array.from({ length: 20 }, () => slow.control.fireEvent({ event: 'delivery', account_id: other.id })));
    await receiver.waitFor(20);
    // All 20 arrived while the hanging receiver still held its 8 slots: none of its attempts has ended.
    expect(hanging.requests.length).toBe(8);
    for (const { data } of stuck) expect((await slow.control.getDelivery(data.delivery_id!)).data.attempt_log).toEqual([]);
  });

  it('an attempt whose receiver never answers ends at the time-out, recorded as such', async () => {
    const slow = await startEmulator({ deliveryTimeoutMs: 1_000 });
    cleanups.push(() => slow.cleanup());
    const hanging = await startReceiver();
    hanging.answer = () => 'hang';
    cleanups.push(() => hanging.close());
    await registerHook(slow.service, hanging.url);
    const id = (await slow.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    const d = await attemptsOf(id, 1, 10_000, slow);
    expect(d.attempt_log[0]!.error).toEqual({ code: 'timeout', message: `no complete response from ${new URL(hanging.url).host} within 1000 ms` });
  });
});

describe('a burst', () => {
  it('beyond the claim limits: each delivery arrives once, as it was made, and is recorded in full', async () => {
    const narrow = await startEmulator({ perTargetConcurrency: 2, claimBatch: 4 });
    cleanups.push(() => narrow.cleanup());
    await registerHook(narrow.service, receiver.url);
    const account = narrow.handle.defaultAccount.id;
    const updates: Array<{ id: string; status: string; ref_id: string | null; attempts: number; target: { url: string } }> = [];
    const off = narrow.handle.live.on('delivery.updated', (d) => updates.push(d));
    cleanups.push(async () => off());
    // 60 events in one synchronous run: 4 are claimed as they are stored, the rest wait their turn.
    const ids = Array.from(
      { length: 60 },
      (_, i) =>
        narrow.handle.services.emailEvents.emitEmailEvent(account, {
          event: 'delivery',
          timestamp: new Date().toISOString(),
          ref_id: `REF-${i}`,
          recipient: { email: `user${i}@example.com`, name: '' },
          sender: { email: 'app@example.com', name: '' },
          subject: `Receipt ${i}`,
          campaign_id: '',
          mailer_id: '',
          custom_args: { order: String(i), filler: 'x'.repeat(i * 100) },
        }).deliveryId!,
    );
    const requests = await receiver.waitFor(60, 10_000);
    const byId = new Map(
      requests.map((r) => [r.headers['webhook-id'] as string, JSON.parse(r.body) as { ref_id: string; custom_args: Record<string, string> }]),
    );
    expect(byId.size).toBe(60);
    for (const [i, id] of ids.entries()) {
      expect(byId.get(id)).toMatchObject({ ref_id: `REF-${i}`, custom_args: { order: String(i), filler: 'x'.repeat(i * 100) } });
      const d = (await narrow.control.getDelivery(id)).data;
      expect(d).toMatchObject({ status: 'succeeded', attempts: 1, ref_id: `REF-${i}`, last_status_code: 200, target: { url: receiver.url } });
      expect(d.attempt_log).toHaveLength(1);
      expect(d.attempt_log[0]!.request.headers['webhook-id']).toBe(id);
      expect(JSON.parse(d.attempt_log[0]!.request.body)).toEqual(d.payload);
    }
    await settle();
    expect(receiver.requests).toHaveLength(60);
    // What the live stream announced of each, from the dispatcher's own copy of the row.
    const finals = updates.filter((u) => u.status === 'succeeded');
    expect(finals).toHaveLength(60);
    for (const [i, id] of ids.entries())
      expect(finals.find((u) => u.id === id)).toMatchObject({ ref_id: `REF-${i}`, attempts: 1, target: { url: receiver.url } });
  });

  it('a delivery tried by hand while it waits its turn keeps its attempt count and is sent on schedule after it', async () => {
    const narrow = await startEmulator({ perTargetConcurrency: 1, claimBatch: 2, deliveryTimeoutMs: 1_000 });
    cleanups.push(() => narrow.cleanup());
    await registerHook(narrow.service, receiver.url);
    // The first request hangs until its time-out, and the manual attempt is refused: the others wait.
    receiver.answer = (_req, index) => (index === 0 ? 'hang' : index === 1 ? 500 : 200);
    const fired = [];
    for (let i = 0; i < 4; i++) fired.push((await narrow.control.fireEvent({ event: 'delivery', fields: { ref_id: `REF-${i}` } })).data.delivery_id!);
    await receiver.waitFor(1);
    const last = fired[3]!;
    const manual = (await narrow.control.retryDelivery(last)).data;
    expect(manual.attempt).toMatchObject({ number: 1, trigger: 'manual', outcome: 'failed' });
    expect(manual.delivery).toMatchObject({ status: 'pending', attempts: 1 });

    const d = await attemptsOf(last, 2, 10_000, narrow);
    expect(d).toMatchObject({ status: 'succeeded', attempts: 2, ref_id: 'REF-3' });
    expect(d.attempt_log.map((a) => [a.number, a.trigger, a.outcome])).toEqual([
      [1, 'manual', 'failed'],
      [2, 'scheduled', 'succeeded'],
    ]);
    expect(d.attempt_log[1]!.request.body).toBe(d.attempt_log[0]!.request.body);
  });
});
