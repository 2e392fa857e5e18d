/**
 * Strict mode holds at every attempt (a name can resolve elsewhere after it was registered):
 * `--strict-webhook-urls` checks the address actually connected to at every attempt, not only when
 * a URL is registered: webhooks, inbound posts, IMAP webhooks, and the SMTP relay and IMAP
 * connections of mailers. A refused address is a failed attempt recorded with its reason, and no
 * connection is made.
 *
 * Every server here listens on 127.0.0.1 and counts its connections; names resolve through the
 * emulator's `lookup` seam. A public address appears only as a resolver's answer while a URL is
 * registered (the reachability probe is a seam then, so nothing connects to it).
 */
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { IMAP_WEBHOOK_TARGET } from '../../src-main/core/services/mailers/mailers.service';
import type { DeliveryDetail } from '../../src-shared/schemas/dispatch';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { startReceiver } from '../helpers/receiver';
import { startRelayTarget } from '../helpers/relay-target';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

/** A TCP server on 127.0.0.1 that counts the connections made to it (and never answers). */
async function countingServer(): Promise<{ port: number; connections: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const state = { port: 0, connections: 0, close: async () => {} };
  const server: Server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  state.port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  cleanups.push(() => state.close());
  return state;
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The delivery once `n` attempts of it are recorded. */
function attempted(emu: TestEmulator, id: string, n = 1): Promise<DeliveryDetail> {
  return until(`delivery ${id} attempted ${n} times`, async () => {
    const d = (await emu.control.getDelivery(id)).data;
    return d.attempt_log.length >= n && d.status !== 'sending' ? d : undefined;
  });
}

const LOOPBACK_REFUSAL = 'refused by --strict-webhook-urls: 127.0.0.1 is a loopback address';

function expectRefused(d: DeliveryDetail, message: string, n = 1) {
  const attempt = d.attempt_log[n - 1]!;
  expect(attempt.outcome).toBe('failed');
  expect(attempt.response).toBeNull();
  expect(attempt.error).toEqual({ code: 'refused', message });
  expect(d.last_error).toBe(message);
}

describe('--strict-webhook-urls at every attempt', () => {
  it('refuses a webhook, an inbound route and an IMAP webhook registered without it, at the next attempt after a restart with it', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const loose = await startEmulator();
    cleanups.push(() => loose.cleanup());
    await loose.registerEmailWebhook(receiver.url);
    await loose.service.configureInboundRouting({ domain: 'in.example.com', url: receiver.url, method: 'POST', wildcard: true });
    // An IMAP configuration whose webhook is the receiver (its server is never reached here).
    const imapServer = await countingServer();
    const imap = (
      await loose.service.configureIMAP({
        name: 'Inbox',
        email: 'alice@example.org',
        config_type: 'imap',
        connection_type: 'basic',
        config: { host: '127.0.0.1', port: imapServer.port, username: 'alice', password: 'alice-secret', secure: 'None' },
        webhook: { url: receiver.url, method: 'POST' },
      } as never)
    ).data;
    await loose.stop();
    // The registrations' reachability checks connected (and the IMAP connection, strict mode off); nothing after them may.
    const connectionsBefore = receiver.connections;
    const imapConnectionsBefore = imapServer.connections;

    const strict = await startEmulator({ strictWebhookUrls: true, retrySchedule: '5s' }, {}, loose.dataDir);
    cleanups.push(() => strict.stop());
    const fired = (await strict.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    const inbound = (await strict.control.simulateInbound({ to: ['support@in.example.com'], raw: 'From: c@example.org\r\nSubject: hi\r\n\r\nbody\r\n' })).data;
    expect(inbound.recipients[0]!.routed).toBe(true);
    const imapDelivery = strict.handle.services.dispatcher.enqueue({
      accountId: strict.handle.defaultAccount.id,
      target: { kind: IMAP_WEBHOOK_TARGET, id: imap.mailer_id, url: receiver.url },
      category: 'IMAP',
      event: 'imap_message',
      refId: null,
      payload: { event: 'imap_message' },
    });
    const deliveries = await until('three deliveries', async () => {
      const list = (await strict.control.listDeliveries()).data.deliveries;
      return list.length >= 3 ? list : undefined;
    });
    const ids = [fired, imapDelivery, deliveries.find((d) => d.event === 'inbound')!.id];
    for (const id of ids) {
      const d = await attempted(strict, id);
      expectRefused(d, LOOPBACK_REFUSAL);
      // A failed attempt like any other: the schedule goes on.
      expect(d.status).toBe('pending');
    }
    // A retry by hand is refused the same way.
    const manual = (await strict.control.retryDelivery(fired)).data;
    expect(manual.attempt).toMatchObject({ trigger: 'manual', outcome: 'failed', error: { code: 'refused', message: LOOPBACK_REFUSAL } });

    expect(receiver.requests).toEqual([]);
    expect(receiver.connections).toBe(connectionsBefore);
    // The IMAP configuration's own server was refused too (an IP literal, no DNS).
    await until('the IMAP connection refused', async () => ((await strict.service.getIMAPConfig(imap.mailer_id)).data.status === 'error' ? true : undefined));
    expect((await strict.service.getIMAPConfig(imap.mailer_id)).data.last_error).toBe(LOOPBACK_REFUSAL);
    expect(imapServer.connections).toBe(imapConnectionsBefore);
  });

  it('DNS rebinding: a name that resolved to a public address when registered and to loopback at attempt time is refused before any connection', async () => {
    const server = await countingServer();
    let answer = ['93.184.216.34'];
    const lookups: string[] = [];
    const probes: string[] = [];
    const emu = await startEmulator(
      { strictWebhookUrls: true, retrySchedule: 'none' },
      {
        lookup: async (host) => {
          lookups.push(host);
          if (host !== 'rebind.test') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
          return answer;
        },
        // The registration's reachability check connects nowhere here.
        probe: async (url) => {
          probes.push(url.href);
        },
      },
    );
    cleanups.push(() => emu.cleanup());
    const url = `https://rebind.test:${server.port}/hooks`;
    await emu.registerEmailWebhook(url);
    expect(probes).toEqual([url]);

    // The name now answers loopback: the attempt resolves it again and refuses.
    answer = ['127.0.0.1'];
    const first = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    const d = await attempted(emu, first);
    expectRefused(d, 'refused by --strict-webhook-urls: rebind.test resolves to 127.0.0.1, which is a loopback address');
    expect(d.status).toBe('failed');

    // Loopback in IPv4-mapped IPv6 form, and one loopback address among public ones: refused too.
    for (const [next, why] of [
      [['::ffff:127.0.0.1'], 'rebind.test resolves to ::ffff:127.0.0.1, which is a loopback address'],
      [['93.184.216.34', '127.0.0.1'], 'rebind.test resolves to 127.0.0.1, which is a loopback address'],
    ] as const) {
      answer = [...next];
      const attempt = (await emu.control.retryDelivery(first)).data.attempt;
      expect(attempt.error).toEqual({ code: 'refused', message: `refused by --strict-webhook-urls: ${why}` });
    }
    expect(lookups.filter((h) => h === 'rebind.test')).toHaveLength(4);
    expect(server.connections).toBe(0);
  });

  it('SMTP relay: a mailer saved without it is refused at relay time (smtp_error 554 5.7.0), with no connection to its server', async () => {
    const target = await startRelayTarget({ user: 'relay-user', pass: 'relay-pass-123' });
    cleanups.push(() => target.close());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const loose = await startEmulator();
    cleanups.push(() => loose.cleanup());
    await loose.registerEmailWebhook(receiver.url);
    const mailer = (
      await loose.service.configureSMTP({
        name: 'Relay',
        email: 'app@example.com',
        config_type: 'smtp',
        connection_type: 'basic',
        config: { host: '127.0.0.1', port: target.port, username: 'relay-user', password: 'relay-pass-123', secure: 'None' },
      } as never)
    ).data;
    await loose.stop();
    // configureSMTP logged in once; nothing after it may connect.
    const connectionsBefore = target.connections;

    const strict = await startEmulator({ strictWebhookUrls: true }, {}, loose.dataDir);
    cleanups.push(() => strict.stop());
    const sent = await strict.service.sendEmail({
      from: { email: 'app@example.com', name: 'App' },
      to: [{ email: 'ann@example.org' }],
      subject: 'Relayed',
      content: [{ type: 'text/plain', value: 'Hello' }],
      mailer_id: mailer.mailer_id,
    } as never);
    const why = `554 5.7.0 ${LOOPBACK_REFUSAL}`;
    const log = await until('the relay refused', async () => {
      const [entry] = (await strict.service.getEmailLogs({ refId: sent.ref_id })).emailLogs;
      return entry?.status === 'failed' ? entry : undefined;
    });
    expect(Object.keys(log.track)).toContain('smtp_error');
    // The smtp_error event (its own delivery, refused too: the account's webhook is on loopback).
    const smtpError = await until('the smtp_error event', async () => {
      const list = (await strict.control.listDeliveries()).data.deliveries;
      const found = list.find((d) => d.event === 'smtp_error');
      return found && (await strict.control.getDelivery(found.id)).data;
    });
    expect(smtpError.payload).toMatchObject({ ref_id: sent.ref_id, smtp_code: 554, smtp_response: why, mailer_id: mailer.mailer_id });
    expect((await strict.service.getSMTPConfig(mailer.mailer_id)).data).toMatchObject({ status: 'error', last_error: why });
    // The mailer's connection test is refused the same way.
    expect((await strict.control.testMailer(mailer.mailer_id)).data).toMatchObject({ ok: false, message: why });
    expect(target.received).toEqual([]);
    expect(target.connections).toBe(connectionsBefore);
    expect(receiver.requests).toEqual([]);
  });

  it('IMAP: a host that resolves to loopback is refused at connect time (status error, imap_error), with no connection to its server', async () => {
    const server = await countingServer();
    const receiver = await countingServer();
    // The account's webhook passes registration with a public answer (the probe connects nowhere),
    // then answers loopback, so the imap_error's delivery is refused too and nothing leaves 127.0.0.1.
    let hooks = ['93.184.216.34'];
    const emu = await startEmulator(
      { strictWebhookUrls: true, retrySchedule: 'none' },
      {
        lookup: async (host) => {
          if (host === 'imap.internal.test') return ['127.0.0.1'];
          if (host === 'hooks.test') return hooks;
          throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        },
        probe: async () => {},
      },
    );
    cleanups.push(() => emu.cleanup());
    await emu.registerEmailWebhook(`https://hooks.test:${receiver.port}/events`);
    hooks = ['127.0.0.1'];
    const mailer = (
      await emu.service.configureIMAP({
        name: 'Inbox',
        email: 'alice@example.org',
        config_type: 'imap',
        connection_type: 'basic',
        config: { host: 'imap.internal.test', port: server.port, username: 'alice', password: 'alice-secret', secure: 'None' },
      } as never)
    ).data;
    const why = 'refused by --strict-webhook-urls: imap.internal.test resolves to 127.0.0.1, which is a loopback address';
    const record = await until('the IMAP connection refused', async () => {
      const m = (await emu.service.getIMAPConfig(mailer.mailer_id)).data;
      return m.status === 'error' ? m : undefined;
    });
    expect(record.last_error).toBe(why);
    const imapError = await until('the imap_error event', async () => {
      const found = (await emu.control.listDeliveries()).data.deliveries.find((d) => d.event === 'imap_error');
      return found && (await emu.control.getDelivery(found.id)).data;
    });
    expect(imapError.payload).toMatchObject({ event: 'imap_error', mailer_id: mailer.mailer_id, host: 'imap.internal.test', error: why });
    const delivered = await attempted(emu, imapError.id);
    expectRefused(delivered, 'refused by --strict-webhook-urls: hooks.test resolves to 127.0.0.1, which is a loopback address');
    expect(receiver.connections).toBe(0);
    expect((await emu.control.testMailer(mailer.mailer_id)).data).toMatchObject({ ok: false, message: why });
    expect(server.connections).toBe(0);
  });
});
