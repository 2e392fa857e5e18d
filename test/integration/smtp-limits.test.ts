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
    const { client } = await open(emu);
    expect((await client.command('EHLO client.test')).code).toBe(250);
    const started = Date.now();
    // One byte every 200 ms never completes a command and keeps the idle time-out (60 s) from firing.
    const trickle = setInterval(() => client.write('N'), 200);
    try {
      const reply = await client.read();
      expect(reply.code).toBe(421);
      expect(reply.text).toMatch(/Session too long: at most 2 s per connection/);
      expect((await client.read()).code).toBe(0); // closed
      expect(Date.now() - started).toBeLessThan(10_000);
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
  it('300 idle connections against a cap of 40: 40 are served, the rest told 421 and closed, HTTP stays answered', async () => {
    emu = await startEmulator({ smtpMaxClients: 40 });
    const opened = await Promise.all(Array.from({ length: 300 }, () => open(emu!)));
    const greeted = opened.filter((o) => o.greeting.code === 220);
    const refused = opened.filter((o) => o.greeting.code === 421);
    expect(greeted).toHaveLength(40);
    expect(refused).toHaveLength(260);
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
  const MB = 1024 * 1024;
  const body = (tag: string) => `From: app@example.com\r\nSubject: ${tag}\r\n\r\n${`${'y'.repeat(998)}\r\n`.repeat(1400)}`;

  it('a message that would pass the budget is answered 451 and kept nowhere; SIZE= is refused 452 up front; both go once room is back', async () => {
    emu = await startEmulator({ maxMessageBytes: 2 * MB, smtpInFlightBytes: 3 * MB });
    // Two messages of 1.4 MB arrive and stay arriving (no final dot yet): 2.8 MB of the 3 MB held.
    const a = await inTransaction(emu, 'a@example.org');
    const b = await inTransaction(emu, 'b@example.org');
    for (const [client, tag] of [[a, 'held a'], [b, 'held b']] as const) {
      expect((await client.command('DATA')).code).toBe(354);
      client.write(body(tag));
    }
    // A client announcing 1 MB is told at once that it does not fit now (once the server has read the 2.8 MB).
    const c = await inTransaction(emu, 'c@example.org');
    expect((await c.command('RSET')).code).toBe(250);
    let sized = await c.command('MAIL FROM:<app@example.com> SIZE=1000000');
    for (let i = 0; sized.code === 250 && i < 100; i++) {
      await c.command('RSET');
      await sleep(50);
      sized = await c.command('MAIL FROM:<app@example.com> SIZE=1000000');
    }
    expect(sized.code).toBe(452);
    expect(sized.text).toMatch(/Too much mail arriving at once .*try again later/);
    // One that does not announce it is read through and answered 451.
    expect((await c.command('MAIL FROM:<app@example.com>')).code).toBe(250);
    expect((await c.command('RCPT TO:<c@example.org>')).code).toBe(250);
    const refused = await c.data(body('refused c'));
    expect(refused.code).toBe(451);
    expect(refused.text).toMatch(/Too much mail arriving at once \(at most 3145728 bytes in flight\): nothing was kept, try again later/);
    // The two held ones finish and are stored; the budget is free again and the refused one goes through.
    a.write('.\r\n');
    b.write('.\r\n');
    expect((await a.read()).code).toBe(250);
    expect((await b.read()).code).toBe(250);
    expect((await c.command('MAIL FROM:<app@example.com> SIZE=1500000')).code).toBe(250);
    expect((await c.command('RCPT TO:<c@example.org>')).code).toBe(250);
    expect((await c.data(body('retried c'))).code).toBe(250);
    expect(await subjects(emu)).toEqual(['held a', 'held b', 'retried c']);
  });
});
