import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { ServiceClient } from '../../src-shared/clients';
import type { LiveEventMap } from '../../src-shared/live-events';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

/**
 * The simulated events that fall due together (one clock move) are emitted as a batch. Whatever the
 * batch holds, each copy ends as if its events had been recorded one at a time: its status by the
 * log's rules (a delivery never undoes a hard bounce or an open fired first; it replaces a soft
 * bounce), its events in order at their due times, its delivery time in the logs, one live
 * announcement per event, a webhook delivery only where a webhook takes deliveries, and each
 * scheduled event emitted once.
 */

let emu: TestEmulator;
let receiver: Receiver;
/** An account with no webhook: nobody is told of its deliveries. */
let untold: { id: string; service: ServiceClient };
let announced: Array<LiveEventMap['message.updated']>;
let stopListening: () => void;

beforeEach(async () => {
  receiver = await startReceiver();
  emu = await startEmulator();
  await emu.registerEmailWebhook(receiver.url);
  await emu.control.setClock({ speed: 0 });
  const account = (await emu.control.createAccount({ name: 'No webhook' })).data;
  untold = { id: account.id, service: new ServiceClient({ baseUrl: emu.url, apiKey: account.api_key }) };
  announced = [];
  stopListening = emu.handle.live.on('message.updated', (u) => announced.push(u));
});
afterEach(async () => {
  stopListening();
  await emu.cleanup();
  await receiver.close();
});

/** Sends one message to these recipients; answers the send's ref_id and each recipient's copy id. */
async function send(service: ServiceClient, emails: string[]): Promise<{ refId: string; copies: Record<string, string> }> {
  const { ref_id: refId } = await service.sendEmail({
    from: { email: 'app@example.com' },
    to: emails.map((email) => ({ email })),
    subject: 'Batch',
    content: [{ type: 'text/plain', value: 'Hello' }],
  });
  const copies = (await emu.control.listMessages({ q: refId, limit: 500 })).data.messages;
  return { refId, copies: Object.fromEntries(copies.map((c) => [c.recipient.email, c.id])) };
}

async function fire(refId: string, recipient: string, event: string, fields?: Record<string, unknown>): Promise<void> {
  const res = await emu.request('POST', '/emulator/events', { body: { event, ref_id: refId, recipient, ...(fields ? { fields } : {}) } });
  expect(res.status, res.text).toBe(200);
}

/** A copy's status, failed reason and events as the message detail shows them. */
async function stateOf(id: string) {
  const detail = (await emu.control.getMessage(id)).data;
  return { status: detail.status, failed_reason: detail.failed_reason, events: detail.events.map((e) => [e.event, e.timestamp, e.delivery_id]) };
}

describe('the simulated events of one batch', () => {
  it('leave each copy as events recorded one at a time would: its status by the rules, its events in order, its delivery time, one announcement each', async () => {
    // A rule gives one address a delivery and an open half a second later: both fall due in the batch.
    await emu.control.setRules({
      rules: [
        {
          pattern: '*@rules.example',
          events: [
            { event: 'delivery', delay_ms: 1_000 },
            { event: 'open', delay_ms: 500 },
          ],
        },
      ],
    } as never);
    const start = Date.parse((await emu.control.getClock()).data.now);
    const fired = new Date(start).toISOString();
    const due = new Date(start + 1_000).toISOString();
    const { refId, copies } = await send(untold.service, [
      'plain1@example.com',
      'plain2@example.com',
      'hard@example.com',
      'soft@example.com',
      'opened@example.com',
      'gone@example.com',
      'twice@rules.example',
    ]);
    const taken = await send(emu.service, ['taken@example.com']);
    await fire(refId, 'hard@example.com', 'bounce');
    await fire(refId, 'soft@example.com', 'bounce', { bounce_type: 'soft', bounce_category: 'mailbox_full' });
    await fire(refId, 'opened@example.com', 'open');
    await emu.control.deleteMessage(copies['gone@example.com']!);
    const hardReason = (await stateOf(copies['hard@example.com']!)).failed_reason;
    expect(hardReason).toMatch(/^550 /);
    announced = [];

    await emu.control.setClock({ advance_ms: 60_000 });

    const delivered = { status: 'delivered', failed_reason: '', events: [['delivery', due, null]] };
    expect(await stateOf(copies['plain1@example.com']!)).toEqual(delivered);
    expect(await stateOf(copies['plain2@example.com']!)).toEqual(delivered);
    expect(await stateOf(copies['hard@example.com']!)).toEqual({
      status: 'bounced',
      failed_reason: hardReason,
      events: [
        ['bounce', fired, null],
        ['delivery', due, null],
      ],
    });
    expect(await stateOf(copies['soft@example.com']!)).toEqual({
      status: 'delivered',
      failed_reason: '',
      events: [
        ['bounce', fired, null],
        ['delivery', due, null],
      ],
    });
    expect(await stateOf(copies['opened@example.com']!)).toEqual({
      status: 'opened',
      failed_reason: '',
      events: [
        ['open', fired, null],
        ['delivery', due, null],
      ],
    });
    expect(await stateOf(copies['twice@rules.example']!)).toEqual({
      status: 'opened',
      failed_reason: '',
      events: [
        ['delivery', due, null],
        ['open', new Date(start + 1_500).toISOString(), null],
      ],
    });
    const takenState = await stateOf(taken.copies['taken@example.com']!);
    expect(takenState).toEqual({ status: 'delivered', failed_reason: '', events: [['delivery', due, expect.any(String)]] });
    expect((await emu.request('GET', `/emulator/messages/${copies['gone@example.com']}`)).status).toBe(404);

    // The logs' delivery date: the event's time where the delivery replaced the status, none where it did not.
    const logs = (await untold.service.getEmailLogs({ refId })).emailLogs;
    const deliveredDate = (email: string) => logs.find((l) => l.recipientAddress === email)!.deliveredDate;
    expect(['plain1@example.com', 'plain2@example.com', 'soft@example.com', 'twice@rules.example'].map(deliveredDate)).toEqual(Array(4).fill(due));
    expect(deliveredDate('hard@example.com')).toBe('');
    expect(deliveredDate('opened@example.com')).toBe('');

    // One announcement per event, with the status stored after it.
    const id = (email: string) => copies[email]!;
    const about = (email: string, event = 'delivery') => ({ message_id: id(email), ref_id: refId, event, timestamp: due, delivery_id: null });
    expect([...announced].sort((a, b) => (a.message_id + a.event).localeCompare(b.message_id + b.event))).toEqual(
      [
        { ...about('plain1@example.com'), status: 'delivered', failed_reason: '' },
        { ...about('plain2@example.com'), status: 'delivered', failed_reason: '' },
        { ...about('hard@example.com'), status: 'bounced' },
        { ...about('soft@example.com'), status: 'delivered', failed_reason: '' },
        { ...about('opened@example.com'), status: 'opened' },
        { ...about('twice@rules.example'), status: 'delivered', failed_reason: '' },
        { ...about('twice@rules.example', 'open'), timestamp: new Date(start + 1_500).toISOString(), status: 'opened', failed_reason: '' },
        {
          message_id: taken.copies['taken@example.com'],
          ref_id: taken.refId,
          event: 'delivery',
          timestamp: due,
          delivery_id: takenState.events[0]![2],
          status: 'delivered',
          failed_reason: '',
        },
      ].sort((a, b) => (a.message_id! + a.event).localeCompare(b.message_id! + b.event)),
    );
    // A copy's own announcements in the order of its events.
    expect(announced.filter((a) => a.message_id === id('twice@rules.example')).map((a) => a.event)).toEqual(['delivery', 'open']);

    // Only the account whose webhook takes deliveries got one.
    expect((await emu.control.listDeliveries({ event: 'delivery', limit: 50 })).data.deliveries.map((d) => d.ref_id)).toEqual([taken.refId]);

    // Each scheduled event was emitted once: nothing is left, and a later move adds nothing.
    expect((await emu.control.getClock()).data.next_event_at).toBeNull();
    announced = [];
    await emu.control.setClock({ advance_ms: 60_000 });
    expect(announced).toEqual([]);
    expect((await stateOf(id('plain1@example.com'))).events).toHaveLength(1);
  });

  it('delivers every copy of a send to more recipients than a batch takes, once each', async () => {
    const emails = Array.from({ length: 700 }, (_, i) => `r${i}@example.com`);
    await send(untold.service, emails);
    await emu.control.setClock({ advance_ms: 60_000 });
    const count = async (status?: 'delivered') => (await emu.control.countMessages({ account_id: untold.id, ...(status ? { status } : {}) })).data.count;
    expect([await count(), await count('delivered')]).toEqual([700, 700]);
    expect(announced.filter((a) => a.event === 'delivery')).toHaveLength(700);
    expect(new Set(announced.map((a) => a.message_id)).size).toBe(700);
  });

  it('a delivery whose log entry the store refuses costs only its own event: the rest of its batch is delivered', async () => {
    const { copies } = await send(untold.service, ['a@example.com', 'refused@example.com', 'b@example.com']);
    // A second connection installs what a failing store would do to this one copy's entry.
    const db = new Database(join(emu.dataDir, DATABASE_FILE));
    try {
      db.exec(
        `CREATE TRIGGER refuse_one BEFORE INSERT ON message_events WHEN NEW.message_id = '${copies['refused@example.com']}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;`,
      );
    } finally {
      db.close();
    }
    await emu.control.setClock({ advance_ms: 60_000 });
    expect((await stateOf(copies['a@example.com']!)).status).toBe('delivered');
    expect((await stateOf(copies['b@example.com']!)).status).toBe('delivered');
    expect(await stateOf(copies['refused@example.com']!)).toEqual({ status: 'queued', failed_reason: '', events: [] });
    expect((await emu.control.getClock()).data.next_event_at).toBeNull();
  });
});

describe("the clock's next simulated event", () => {
  it('names its kind, copy and recipient, the earliest first, and then the one after it', async () => {
    expect((await emu.control.getClock()).data.next_event).toBeNull();
    const sent = await send(emu.service, ['click@sim.mailyard.test', 'bounce@sim.mailyard.test']);
    const first = (await emu.control.getClock()).data;
    // Both copies' first events (a delivery, a bounce) fall due together; the first scheduled is named.
    expect(first.next_event).toEqual({
      at: first.next_event_at,
      event: 'delivery',
      message_id: sent.copies['click@sim.mailyard.test'],
      recipient: 'click@sim.mailyard.test',
    });
    // After a jump to it, the next is the click copy's open, later on the clock.
    const moved = (await emu.control.setClock({ advance_ms: Date.parse(first.next_event_at!) - first.now_ms })).data;
    expect(moved.next_event).toMatchObject({ event: 'open', message_id: sent.copies['click@sim.mailyard.test'], recipient: 'click@sim.mailyard.test' });
    expect(Date.parse(moved.next_event!.at)).toBeGreaterThan(Date.parse(first.next_event_at!));
  });
});
