/**
 * The deduplication rule Mailyard teaches, checked against what it sends: a receiver that keeps the
 * `webhook-id`s it has acted on must act on every event once. So every request of one event (its
 * scheduled retries, Retry now, Retry all failing, a copied curl command, a scenario's duplicate)
 * carries the same `webhook-id`, and two different events (an edited resend, the three bounces of
 * soft-bounce-gives-up@, the copies of one send) never share one. Over real HTTP to a real receiver.
 */
import { describe, expect, it } from 'vitest';
import { deliveryHelpers, emulatorAndReceiverPerTest, registerHook } from '../helpers/deliveries';
import type { TestEmulator } from '../helpers/emulator';
import type { ReceivedRequest, Receiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;
emulatorAndReceiverPerTest((e, r) => {
  emu = e;
  receiver = r;
});
const { pauseClock, advance, attemptsOf } = deliveryHelpers(() => emu);

const idOf = (r: ReceivedRequest | undefined) => String(r?.headers['webhook-id']);
const bodyOf = (r: ReceivedRequest) => JSON.parse(r.body) as { event: string; ref_id: string; recipient: { email: string }; bounce_type?: string };

describe('one event, one webhook-id', () => {
  it('a scheduled retry, Retry now, Retry all failing and a copied request carry the delivery’s webhook-id', async () => {
    await registerHook(emu.service, receiver.url);
    await pauseClock();
    // The first attempt and its scheduled retry fail; what comes after succeeds.
    receiver.answer = (_req, index) => (index < 2 ? 500 : 200);
    const id = (await emu.control.fireEvent({ event: 'bounce' })).data.delivery_id!;
    await receiver.waitFor(1);
    await advance(5_000);
    await attemptsOf(id, 2);
    // Retry all failing (Deliveries, By endpoint) sends it again, and it succeeds.
    const endpoint = (await emu.control.listEndpoints({})).data.endpoints[0]!;
    expect((await emu.control.retryFailingDeliveries(endpoint.target.kind, endpoint.target.id)).data.delivery_ids).toEqual([id]);
    expect((await attemptsOf(id, 3)).status).toBe('succeeded');
    // Retry now, on the delivery that has succeeded.
    await emu.control.retryDelivery(id);
    // A copied request (Copy as curl), sent as it is.
    const signed = (await emu.control.signDeliveryRequest(id)).data;
    await fetch(signed.url, { method: signed.method, headers: signed.headers, body: signed.body ?? undefined });

    const requests = await receiver.waitFor(5);
    expect(requests.map(idOf)).toEqual([id, id, id, id, id]);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
  });

  it('a scenario’s duplicate is the same event again: the original’s webhook-id, as a redelivery carries it', async () => {
    await registerHook(emu.service, receiver.url);
    emu.handle.services.deliveryFaults.set(emu.handle.defaultAccount.id, { duplicates: 1 });
    const id = (await emu.control.fireEvent({ event: 'spam', recipient: 'ann@example.com' })).data.delivery_id!;
    const [a, b] = await receiver.waitFor(2);
    expect(a!.body).toBe(b!.body);
    expect([idOf(a), idOf(b)]).toEqual([id, id]);
    // Two deliveries in the log (each with its own attempts), one webhook-id.
    const both = (await emu.control.listDeliveries({ event: 'spam' })).data.deliveries;
    expect(both).toHaveLength(2);
    const duplicate = both.find((d) => d.id !== id)!;
    expect((await emu.control.getDelivery(duplicate.id)).data.webhook_id).toBe(id);
    expect((await emu.control.getDelivery(id)).data.webhook_id).toBe(id);
  });
});

describe('two events, two webhook-ids', () => {
  it('an edited resend is a new event: its own webhook-id, so a receiver keeping ids acts on it', async () => {
    await registerHook(emu.service, receiver.url);
    const original = (await emu.control.fireEvent({ event: 'bounce', recipient: 'ann@example.com' })).data;
    await receiver.waitFor(1);
    const resent = (await emu.control.resendDelivery(original.delivery_id!, { payload: { ...original.payload, bounce_type: 'soft' } })).data;
    const [first, second] = await receiver.waitFor(2);
    expect(idOf(first)).toBe(original.delivery_id);
    expect(idOf(second)).toBe(resent.id);
    expect(resent.id).not.toBe(original.delivery_id);
  });

  it('soft-bounce-gives-up@ sends three bounces of one ref_id and recipient, each with its own webhook-id', async () => {
    await registerHook(emu.service, receiver.url);
    await pauseClock();
    const to = 'soft-bounce-gives-up@sim.mailyard.test';
    const { ref_id: refId } = await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: to }, { email: 'ann@example.com' }, { email: 'bob@example.com' }],
      subject: 'Your receipt',
      content: [{ type: 'text/plain', value: 'Thanks!' }],
    } as never);
    // A day of emulator time: every event of the send falls due and is delivered (a busy receiver may answer after the move).
    await advance(24 * 60 * 60 * 1000);
    const bouncesOf = () => receiver.requests.filter((r) => bodyOf(r).event === 'bounce');
    await expect.poll(() => bouncesOf().length, { timeout: 15_000 }).toBe(3);
    const bounces = bouncesOf();
    expect(bounces.map((r) => [bodyOf(r).ref_id, bodyOf(r).recipient.email])).toEqual([
      [refId, to],
      [refId, to],
      [refId, to],
    ]);
    expect(bounces.map((r) => bodyOf(r).bounce_type)).toEqual(['soft', 'soft', 'hard']);
    expect(new Set(bounces.map(idOf)).size).toBe(3);
    // Every request of the send (its three recipients' events, one ref_id) has a webhook-id of its own.
    expect(receiver.requests.length).toBeGreaterThanOrEqual(5);
    expect(new Set(receiver.requests.map(idOf)).size).toBe(receiver.requests.length);
    for (const r of receiver.requests) await attemptsOf(idOf(r), 1);
  });
});
