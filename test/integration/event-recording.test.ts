import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { ControlClient, ServiceClient } from '../../src-shared/clients';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { startServeProcess } from '../helpers/serve-process';

/**
 * An email event about a stored copy is recorded in one unit of work, whichever path records it
 * (simulation, tracking, relay, IMAP, or a synthetic event fired with a ref_id): its log entry and its
 * webhook delivery commit together or not at all, so a receiver is never told of an event the logs do
 * not show, nor do the logs show one no receiver was told of. Here the store refuses the log entry
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

describe('a simulated delivery no webhook takes', () => {
  // The simulator builds no payload for a delivery nobody is sent (EmailEventsService.recordScheduled):
  // the copy's log must not tell it from one whose delivery went to a webhook.
  it('is logged as one a webhook takes: same event, time, status and delivery time; only the delivery id differs', async () => {
    const other = (await emu.control.createAccount({ name: 'No webhook' })).data;
    const otherService = new ServiceClient({ baseUrl: emu.url, apiKey: other.api_key });
    const send = (service: ServiceClient, email: string) =>
      service.sendEmail({ from: { email: 'app@example.com' }, to: [{ email }], subject: 'Delivered', content: [{ type: 'text/plain', value: 'Hi' }] });
    const taken = (await send(emu.service, 'taken@example.com')).ref_id;
    const untold = (await send(otherService, 'untold@example.com')).ref_id;
    await emu.control.setClock({ advance_ms: 60_000 });

    const detail = async (refId: string) => {
      const [copy] = (await emu.control.listMessages({ q: refId, limit: 5 })).data.messages;
      return (await emu.control.getMessage(copy!.id)).data;
    };
    const [a, b] = [await detail(taken), await detail(untold)];
    expect(a.status).toBe('delivered');
    expect(b.status).toBe('delivered');
    expect(a.events).toEqual([{ event: 'delivery', timestamp: expect.any(String), delivery_id: expect.any(String) }]);
    expect(b.events).toEqual([{ event: 'delivery', timestamp: a.events[0]!.timestamp, delivery_id: null }]);
    expect(await deliveriesOf(taken, 'delivery')).toHaveLength(1);
    expect(await deliveriesOf(untold, 'delivery')).toEqual([]);

    // The email logs (the service API) give both the same delivery date.
    const logOf = async (service: ServiceClient, refId: string) => (await service.getEmailLogs({ refId })).emailLogs[0]!;
    const [logA, logB] = [await logOf(emu.service, taken), await logOf(otherService, untold)];
    expect(logA.deliveredDate).not.toBe('');
    expect(logB).toMatchObject({ status: 'delivered', deliveredDate: logA.deliveredDate });
  });
});

describe('kill -9 while synthetic events are being recorded', () => {
  it('leaves every event with its log entry and its delivery, or neither, after the restart', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailyard-record-kill-'));
    const key = 'record-kill-key-1234';
    const hook = await startReceiver();
    hook.answer = () => 'hang'; // deliveries stay pending: the store, not the receiver, is what is checked
    try {
      const first = await startServeProcess(['--http-port', '0', '--data-dir', dir, '--api-key', key]);
      const service = new ServiceClient({ baseUrl: first.url, apiKey: key });
      const control = new ControlClient({ baseUrl: first.url });
      await service.registerWebhook({ webhook_url: hook.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { open: true } } });
      await control.setClock({ speed: 0 });
      const sent = (await service.sendEmail({
        from: { email: 'app@example.com' },
        to: Array.from({ length: 20 }, (_, i) => ({ email: `r${i}@example.org` })),
        subject: 'Kill',
        content: [{ type: 'text/plain', value: 'hello' }],
      } as never)) as { ref_id: string };
      // Sixteen clients fire opens about the copies until the process is killed under them.
      let fired = 0;
      let stop = false;
      const clients = Array.from({ length: 16 }, async (_, c) => {
        while (!stop) {
          const res = await fetch(`${first.url}/emulator/events`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ event: 'open', ref_id: sent.ref_id, recipient: `r${(fired + c) % 20}@example.org` }),
          }).catch(() => undefined);
          if (!res) return;
          if (res.ok) fired++;
        }
      });
      while (fired < 300) await new Promise((r) => setTimeout(r, 5));
      first.child.kill('SIGKILL');
      stop = true;
      await Promise.all(clients);
      expect(await first.exited).toBe('SIGKILL');

      const second = await startServeProcess(['--http-port', '0', '--data-dir', dir, '--api-key', key]);
      try {
        const control2 = new ControlClient({ baseUrl: second.url });
        const deliveries = new Set((await control2.listDeliveries({ ref_id: sent.ref_id, event: 'open', limit: 500 })).data.deliveries.map((d) => d.id));
        const copies = (await control2.listMessages({ q: sent.ref_id, limit: 50 })).data.messages;
        const logged = new Set<string>();
        for (const copy of copies) {
          for (const e of (await control2.getMessage(copy.id)).data.events) if (e.event === 'open') logged.add(e.delivery_id!);
        }
        expect(logged.size).toBeGreaterThanOrEqual(fired);
        // Both or neither: every logged open has its delivery, and every delivery its log entry.
        expect([...logged].filter((id) => !deliveries.has(id))).toEqual([]);
        expect([...deliveries].filter((id) => !logged.has(id))).toEqual([]);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    } finally {
      await hook.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
