import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { startReceiver, type Receiver } from '../helpers/receiver';

/**
 * Issue 24, item 1: an email event about a stored copy is recorded in one unit of work, whichever path
 * records it (simulation, tracking, relay, IMAP, or a synthetic event fired with a ref_id): its log
 * entry and its webhook delivery commit together or not at all. Here the store refuses the log entry
 * after the event was emitted (a trigger installed through a second connection, as a failing disk or
 * a crash between the two writes would): the delivery must not be left behind either.
 */

let emu: TestEmulator;
let receiver: Receiver;
let db: Database.Database;

beforeEach(async () => {
  receiver = await startReceiver();
  emu = await startEmulator();
  await emu.registerEmailWebhook(receiver.url);
  await emu.control.setClock({ speed: 0 });
  db = new Database(join(emu.dataDir, DATABASE_FILE));
});
afterEach(async () => {
  db.close();
  await emu.cleanup();
  await receiver.close();
});

async function sendTo(email: string): Promise<string> {
  const res = await emu.service.sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email }],
    subject: 'Recorded',
    content: [{ type: 'text/html', value: '<p>Hello <a href="https://example.com/x">x</a></p>' }],
    settings: { open_tracking: { enable: true }, click_tracking: { enable: true } },
  } as never);
  return (res as { ref_id: string }).ref_id;
}

/** The store refuses to log events of `kind` from now on. */
function refuseLogOf(kind: string): void {
  db.exec(`CREATE TRIGGER refuse_${kind} BEFORE INSERT ON message_events WHEN NEW.event = '${kind}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;`);
}

async function deliveriesOf(refId: string, event: string) {
  return (await emu.control.listDeliveries({ ref_id: refId, event, limit: 50 })).data.deliveries;
}

async function logged(refId: string, event: string): Promise<boolean> {
  const [copy] = (await emu.control.listMessages({ q: refId, limit: 5 })).data.messages;
  const detail = (await emu.control.getMessage(copy!.id)).data;
  return detail.events.some((e) => e.event === event);
}

describe('an email event and its delivery commit together', () => {
  it('a synthetic event about a stored copy whose log entry fails leaves no delivery behind; one that works leaves both', async () => {
    const ref = await sendTo('ann@example.org');
    refuseLogOf('spam');
    const refused = await emu.request('POST', '/emulator/events', { body: { event: 'spam', ref_id: ref } });
    expect(refused.status).toBeGreaterThanOrEqual(500);
    // Let a delivery enqueued by mistake reach the store (it was inserted a turn later).
    await new Promise((r) => setTimeout(r, 50));
    expect(await deliveriesOf(ref, 'spam')).toEqual([]);
    expect(await logged(ref, 'spam')).toBe(false);

    const fired = await emu.request('POST', '/emulator/events', { body: { event: 'open', ref_id: ref } });
    expect(fired.status, fired.text).toBe(200);
    expect(await deliveriesOf(ref, 'open')).toHaveLength(1);
    expect(await logged(ref, 'open')).toBe(true);
  });

  it('a tracked click whose log entry fails leaves no delivery behind', async () => {
    const ref = await sendTo('bob@example.org');
    const [copy] = (await emu.control.listMessages({ q: ref, limit: 5 })).data.messages;
    const raw = (await emu.request('GET', `/emulator/messages/${copy!.id}/raw`)).text;
    const click = /\/t\/c\/[\w-]+/.exec(raw.replace(/=\r?\n/g, ''))![0];
    refuseLogOf('click');
    const res = await emu.request('GET', click);
    expect(res.status).toBeGreaterThanOrEqual(500);
    await new Promise((r) => setTimeout(r, 50));
    expect(await deliveriesOf(ref, 'click')).toEqual([]);
    expect(await logged(ref, 'click')).toBe(false);
  });

  it('a simulated event whose log entry fails is not delivered either, and the others of its batch are', async () => {
    const failing = await sendTo('spam@sim.mailyard.test');
    const fine = await sendTo('delivered@sim.mailyard.test');
    refuseLogOf('spam');
    await emu.control.setClock({ advance_ms: 60_000 });
    expect(await deliveriesOf(failing, 'spam')).toEqual([]);
    expect(await logged(failing, 'spam')).toBe(false);
    expect(await deliveriesOf(fine, 'delivery')).toHaveLength(1);
    expect(await logged(fine, 'delivery')).toBe(true);
  });
});
