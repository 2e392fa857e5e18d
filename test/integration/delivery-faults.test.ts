import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryFaultsRegistry } from '../../src-main/core/dispatch/delivery-faults';
import type { DeliveryQueries } from '../../src-main/core/dispatch/delivery-queries';
import { seeded } from '../../src-main/core/scenario/faults';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;
let faults: DeliveryFaultsRegistry;
let deliveries: DeliveryQueries;
let accountId: string;

beforeEach(async () => {
  receiver = await startReceiver();
  emu = await startEmulator();
  faults = emu.handle.services.deliveryFaults;
  deliveries = emu.handle.services.deliveries;
  accountId = emu.handle.defaultAccount.id;
  await emu.service.registerWebhook({
    webhook_url: receiver.url,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true])) },
  });
});
afterEach(async () => {
  await emu.cleanup();
  await receiver.close();
});

const pauseClock = async () => (await emu.control.setClock({ speed: 0 })).data.now_ms;
const advance = (ms: number) => emu.control.setClock({ advance_ms: ms });
/** Gives the dispatcher time to (wrongly) act; used only to check that nothing happens. */
const settle = () => new Promise((r) => setTimeout(r, 300));
const fire = async (event: 'delivery' | 'open', recipient: string, refId?: string) =>
  (await emu.control.fireEvent({ event, recipient, fields: refId ? { ref_id: refId } : undefined })).data.delivery_id!;

describe('delivery faults', () => {
  it('delivers a seeded share of events twice: same payload and webhook-id, a delivery of its own', async () => {
    faults.set(accountId, { duplicates: 0.25, random: seeded(29) });
    for (let i = 0; i < 200; i++) await fire('delivery', `user${i}@example.test`);
    const { duplicates } = faults.stats(accountId);
    // 200 at 0.25: 50 expected; the bound is about 4 standard deviations.
    expect(duplicates).toBeGreaterThan(25);
    expect(duplicates).toBeLessThan(75);
    const requests = await receiver.waitFor(200 + duplicates);
    const byBody = new Map<string, string[]>();
    for (const r of requests) byBody.set(r.body, [...(byBody.get(r.body) ?? []), String(r.headers['webhook-id'])]);
    const twice = [...byBody.values()].filter((ids) => ids.length === 2);
    expect(byBody.size).toBe(200);
    expect(twice).toHaveLength(duplicates);
    // The same event again carries the same webhook-id (a receiver keeping the ids it acted on drops it).
    for (const ids of twice) expect(new Set(ids).size).toBe(1);
    expect(deliveries.count({ account_id: accountId })).toBe(200 + duplicates);
  });

  it("holds a chosen message's first event back, so its later event reaches the receiver first", async () => {
    await pauseClock();
    faults.set(accountId, { reorder: { share: 1, windowMs: 60_000 }, random: seeded(1) });
    for (let i = 0; i < 5; i++) {
      await fire('delivery', `m${i}@example.test`, `msg-${i}`);
      await fire('open', `m${i}@example.test`, `msg-${i}`);
    }
    await receiver.waitFor(5);
    await settle();
    expect(receiver.requests.map((r) => JSON.parse(r.body).event)).toEqual(['open', 'open', 'open', 'open', 'open']);
    await advance(60_000);
    const all = await receiver.waitFor(10);
    for (let i = 0; i < 5; i++) {
      const order = all.filter((r) => JSON.parse(r.body).ref_id === `msg-${i}`).map((r) => JSON.parse(r.body).event);
      expect(order).toEqual(['open', 'delivery']);
    }
    expect(faults.stats(accountId).reordered).toBe(5);
  });

  it('delays first attempts within the distribution, on the emulator clock', async () => {
    const t0 = await pauseClock();
    faults.set(accountId, { delay: { distribution: 'uniform', minMs: 1_000, maxMs: 5_000 }, random: seeded(7) });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await fire('delivery', `d${i}@example.test`));
    await settle();
    expect(receiver.requests).toHaveLength(0);
    await advance(999);
    await settle();
    expect(receiver.requests).toHaveLength(0);
    await advance(4_001);
    await receiver.waitFor(30);
    const starts = await Promise.all(ids.map(async (id) => Date.parse((await emu.control.getDelivery(id)).data.attempt_log[0]!.started_at)));
    for (const s of starts) {
      expect(s - t0).toBeGreaterThanOrEqual(1_000);
      expect(s - t0).toBeLessThanOrEqual(5_000);
    }
    expect(faults.stats(accountId).delayed).toBe(30);

    // A fixed delay: exactly that long after the event.
    faults.set(accountId, { delay: { distribution: 'fixed', ms: 2_500 } });
    const t1 = (await emu.control.setClock({ speed: 0 })).data.now_ms;
    const id = await fire('delivery', 'fixed@example.test');
    await advance(2_500);
    await receiver.waitFor(31);
    const d = (await emu.control.getDelivery(id)).data;
    expect(Date.parse(d.attempt_log[0]!.started_at) - t1).toBe(2_500);
  });

  it('draws exponential delays around their mean', async () => {
    await pauseClock();
    faults.set(accountId, { delay: { distribution: 'exponential', meanMs: 10_000 }, random: seeded(3) });
    for (let i = 0; i < 150; i++) await fire('delivery', `e${i}@example.test`);
    const rows = deliveries.list({ account_id: accountId, limit: 200 });
    expect(rows).toHaveLength(150);
    const waits = rows.map((r) => Date.parse(r.next_attempt_at!) - Date.parse(r.created_at));
    const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
    // 150 draws: the mean's standard error is about 800 ms.
    expect(mean).toBeGreaterThan(7_000);
    expect(mean).toBeLessThan(13_000);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...waits)).toBeGreaterThan(20_000);
    expect(receiver.requests.length).toBeLessThan(20);
  });

  it('refuses attempts in an outage without connecting, retries them on the schedule, and lets them go once a clock jump ends it', async () => {
    receiver.status = 503;
    const t0 = await pauseClock();
    // Pending before the outage is set: the faults apply to their next attempts.
    const before = [await fire('delivery', 'a@example.test'), await fire('delivery', 'b@example.test')];
    await receiver.waitFor(2);
    const connections = receiver.connections;
    faults.set(accountId, { outages: [{ fromMs: t0, toMs: t0 + 60_000 }] });
    const during = [await fire('delivery', 'c@example.test'), await fire('delivery', 'd@example.test')];
    await advance(5_000); // the first retry of the early ones, inside the window
    await settle();
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.connections).toBe(connections);
    for (const id of [...before, ...during]) {
      const d = (await emu.control.getDelivery(id)).data;
      const last = d.attempt_log.at(-1)!;
      expect(d.status).toBe('pending');
      expect(last.outcome).toBe('failed');
      expect(last.error).toMatchObject({ code: 'refused' });
      expect(last.error!.message).toMatch(/receiver unreachable: scenario outage/);
    }
    expect(faults.stats(accountId).outageRefusals).toBe(6); // c, d at once and at their 5 s retries; a, b at their 5 s retries
    receiver.status = 200;
    // One jump past the window and the next retry step: every queued delivery goes and succeeds.
    await advance(300_000);
    await receiver.waitFor(6);
    for (const id of [...before, ...during]) {
      const d = (await emu.control.getDelivery(id)).data;
      expect(d.status).toBe('succeeded');
    }
    expect(receiver.requests).toHaveLength(6);
  });

  it('is off by default and after clearing, and a bad setting names the field', async () => {
    expect(faults.stats(accountId)).toEqual({ duplicates: 0, reordered: 0, delayed: 0, outageRefusals: 0 });
    faults.set(accountId, { duplicates: 1 });
    faults.set(accountId, null);
    await fire('delivery', 'x@example.test');
    await receiver.waitFor(1);
    await settle();
    expect(receiver.requests).toHaveLength(1);
    expect(() => faults.set(accountId, { duplicates: 1.5 })).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ path: 'duplicates' })] }));
    expect(() => faults.set(accountId, { delay: { distribution: 'uniform', minMs: -1, maxMs: 5 } })).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ path: 'delay.minMs' })] }),
    );
  });
});
