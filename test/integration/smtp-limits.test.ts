import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { RawSmtpClient } from '../helpers/smtp-client';

let emu: TestEmulator | undefined;
const clients: RawSmtpClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await emu?.cleanup();
  emu = undefined;
});

async function open(e: TestEmulator) {
  const opened = await RawSmtpClient.open(e.handle.ports.smtp!);
  clients.push(opened.client);
  return opened;
}

/** A client in a transaction to one recipient, ready for DATA. */
async function inTransaction(e: TestEmulator, recipient: string): Promise<RawSmtpClient> {
  const { client, greeting } = await open(e);
  expect(greeting.code).toBe(220);
  expect((await client.command('EHLO client.test')).code).toBe(250);
  expect((await client.command('MAIL FROM:<app@example.com>')).code).toBe(250);
  expect((await client.command(`RCPT TO:<${recipient}>`)).code).toBe(250);
  return client;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function subjects(e: TestEmulator): Promise<string[]> {
  const res = await e.request('GET', '/emulator/messages?limit=50');
  return (res.json.data.messages as Array<{ subject: string }>).map((m) => m.subject).sort();
}

describe('SMTP sink: session length cap', () => {
  it('a client trickling a byte now and then is told 421 and closed at the session cap', async () => {
    emu = await startEmulator({ smtpSessionTimeoutMs: 2000 });
    const started = Date.now();
    const { client } = await open(emu);
    expect((await client.command('EHLO client.test')).code).toBe(250);
    // One byte every 200 ms never completes a command and keeps the idle time-out (60 s) from firing.
    const trickle = setInterval(() => client.write('N'), 200);
    try {
      const reply = await client.read();
      expect(reply.code).toBe(421);
      expect(reply.text).toMatch(/Session too long: at most 2 s per connection/);
      expect((await client.read()).code).toBe(0); // closed
      // At the cap, not before it (the session began after `started`); a cap that never came would
      // leave the trickle going until the test's time-out.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_990);
    } finally {
      clearInterval(trickle);
    }
  });

  it('a message arriving at the cap is taken first, then the session is closed', async () => {
    emu = await startEmulator({ smtpSessionTimeoutMs: 1000 });
    const client = await inTransaction(emu, 'ann@example.org');
    expect((await client.command('DATA')).code).toBe(354);
    client.write('From: app@example.com\r\nSubject: across the cap\r\n\r\n');
    // The body keeps arriving past the cap.
    for (let i = 0; i < 8; i++) {
      client.write(`line ${i}\r\n`);
      await sleep(200);
    }
    client.write('.\r\n');
    expect((await client.read()).code).toBe(250);
    const closing = await client.read();
    expect(closing.code).toBe(421);
    expect(closing.text).toMatch(/Session too long/);
    expect(await subjects(emu)).toEqual(['across the cap']);
  });
});

describe('SMTP sink: connection cap', () => {
  it('300 idle connections against a cap of 40: 40 are served, the rest told 421 (or, past 64 more, closed at once), HTTP stays answered', async () => {
    emu = await startEmulator({ smtpMaxClients: 40 });
    const opened = await Promise.all(Array.from({ length: 300 }, () => open(emu!)));
    const greeted = opened.filter((o) => o.greeting.code === 220);
    const refused = opened.filter((o) => o.greeting.code === 421);
    const cut = opened.filter((o) => o.greeting.code === 0);
    expect(greeted).toHaveLength(40);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length + cut.length).toBe(260);
    expect(refused[0]!.greeting.text).toMatch(/Too many connected clients, try again/);
    for (const r of refused) expect((await r.client.read()).code).toBe(0); // closed by the server
    const health = await emu.request('GET', '/emulator/health');
    expect(health.status).toBe(200);
    // The ones served still work, and a place freed is taken again.
    expect((await greeted[0]!.client.command('NOOP')).code).toBe(250);
    greeted[1]!.client.close();
    let again = await open(emu);
    for (let i = 0; again.greeting.code !== 220 && i < 50; i++) {
      again.client.close();
      await sleep(50);
      again = await open(emu);
    }
    expect(again.greeting.code).toBe(220);
  });
});

describe('SMTP sink: bytes of messages in flight', () => {
  const MiB = 1024 * 1024;
  /** A message of about `lines` KB. */
  const body = (tag: string, lines: number) => `From: app@example.com\r\nSubject: ${tag}\r\n\r\n${`${'y'.repeat(1022)}\r\n`.repeat(lines)}`;
  /** Resolves with the reply when it comes within `ms`, else null (the reply is still `pending`). */
  const replyWithin = <T>(pending: Promise<T>, ms: number) => Promise.race([pending, sleep(ms).then(() => null)]);

  it('a large message waits its turn while another holds the room (nothing refused, nothing lost)', async () => {
    emu = await startEmulator({ maxMessageBytes: 2 * MiB, smtpInFlightBytes: 3 * MiB });
    const a = await inTransaction(emu, 'a@example.org');
    const b = await inTransaction(emu, 'b@example.org');
    // A grows past 1 MiB and holds room for a whole 2 MiB message, and stays arriving (no final dot yet).
    expect((await a.command('DATA')).code).toBe(354);
    a.write(body('large a', 1400));
    await sleep(500);
    // B, complete, cannot get its room until A is stored: it is held back, not answered.
    expect((await b.command('DATA')).code).toBe(354);
    b.write(`${body('large b', 1400)}.\r\n`);
    const bReply = b.read();
    expect(await replyWithin(bReply, 1000)).toBeNull();
    a.write('.\r\n');
    expect((await a.read()).code).toBe(250);
    expect((await bReply).code).toBe(250);
    expect(await subjects(emu)).toEqual(['large a', 'large b']);
  });

  it('small messages filling the bytes in flight: the one past it is answered 451, kept nowhere, and goes through when tried again', async () => {
    emu = await startEmulator({ maxMessageBytes: 2 * MiB, smtpInFlightBytes: 3 * MiB });
    const clients = await Promise.all(['a', 'b', 'c', 'd'].map((n) => inTransaction(emu!, `${n}@example.org`)));
    for (const c of clients) expect((await c.command('DATA')).code).toBe(354);
    // Four messages of 0.9 MiB arrive at once (3.6 MiB), none finished yet.
    for (const [i, c] of clients.entries()) c.write(body(`small ${i}`, 900));
    await sleep(1000);
    for (const c of clients) c.write('.\r\n');
    const replies = await Promise.all(clients.map((c) => c.read()));
    const refused = clients.filter((_, i) => replies[i]!.code === 451);
    expect(replies.map((r) => r.code).filter((c) => c !== 250 && c !== 451)).toEqual([]);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    const refusal = replies.find((r) => r.code === 451)!;
    expect(refusal.text).toMatch(/Too much mail arriving at once \(at most 3145728 bytes in flight\): nothing was kept, try again later/);
    const storedFirst = await subjects(emu);
    expect(storedFirst).toHaveLength(4 - refused.length);
    for (const c of refused) {
      const i = clients.indexOf(c);
      expect((await c.command('MAIL FROM:<app@example.com>')).code).toBe(250);
      expect((await c.command(`RCPT TO:<${'abcd'[i]}@example.org>`)).code).toBe(250);
      expect((await c.data(body(`small ${i}`, 900))).code).toBe(250);
    }
    expect(await subjects(emu)).toEqual(['small 0', 'small 1', 'small 2', 'small 3']);
  });
});
