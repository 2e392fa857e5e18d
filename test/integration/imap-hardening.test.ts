import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorConfigInput } from '../../src-main/core/config';
import type { InboxWatchDeps } from '../../src-main/core/imap/imap-deps';
import { InboxWatch } from '../../src-main/core/imap/inbox-watch';
import type { MailerRow } from '../../src-main/core/store/mailers.repo';
import { ImapMessagePayload } from '../../src-shared/schemas/mailers';
import { type Dovecot, hasDovecot, startDovecot } from '../helpers/dovecot';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type ImapStub, startImapStub } from '../helpers/imap-stub';
import { type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator | undefined;
let dovecot: Dovecot | undefined;
let stub: ImapStub | undefined;
/** The IMAP configuration's webhook. */
let inbox: Receiver;
/** The account's EMAIL_EVENT webhook (imap_error). */
let events: Receiver;

async function start(config: EmulatorConfigInput = {}): Promise<TestEmulator> {
  inbox = await startReceiver();
  events = await startReceiver();
  emu = await startEmulator(config);
  await emu.registerEmailWebhook(events.url);
  return emu;
}

afterEach(async () => {
  await emu?.cleanup();
  await dovecot?.cleanup();
  await stub?.close();
  await inbox?.close();
  await events?.close();
  emu = undefined;
  dovecot = undefined;
  stub = undefined;
});

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${dovecot?.log().slice(-2000) ?? ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function imapConfig(port: number) {
  return {
    name: 'Support inbox',
    email: 'alice@example.org',
    config_type: 'imap' as const,
    connection_type: 'basic' as const,
    config: { host: '127.0.0.1', port, username: 'alice', password: 'alice-secret', secure: 'None' as const },
    webhook: { url: inbox.url, method: 'POST' as const },
  };
}

const mailerOf = async (id: string) => (await emu!.service.getIMAPConfig(id)).data;
const connected = (id: string) => until(`${id} connected`, async () => ((await mailerOf(id)).status === 'connected' ? true : undefined));
const imapErrors = () => events.requests.map((r) => JSON.parse(r.body)).filter((p) => p.event === 'imap_error');

function mail(subject: string, body = `Hello from ${subject}\r\n`): string {
  return `From: Carol <carol@example.net>\r\nTo: alice@example.org\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@example.net>\r\n\r\n${body}`;
}

/** `head` and a body of lines of `fill` (CRLF line ends), `total` bytes in all. */
function sized(head: string, total: number, fill: string): string {
  let body = '';
  let left = total - head.length;
  while (left > 0) {
    const line = left >= 78 ? 76 : Math.max(0, left - 2);
    body += left >= 78 || left >= 2 ? `${fill.repeat(line)}\r\n` : fill;
    left -= left >= 78 ? 78 : left >= 2 ? line + 2 : 1;
  }
  return head + body;
}

/** 1,200 MIME parts: mailparser refuses it ("Max allowed child nodes exceeded"). */
function manyParts(subject: string): string {
  const parts = Array.from({ length: 1200 }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join('');
  return `From: Mallory <mallory@example.net>\r\nTo: alice@example.org\r\nSubject: ${subject}\r\nMessage-ID: <manyparts@example.net>\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n${parts}--b--\r\n`;
}

describe.skipIf(!hasDovecot && !process.env.CI)('IMAP connector: what one message cannot stop (Dovecot)', () => {
  it('a message mailparser refuses, between two good ones: all three are stored, the good ones whole, and the later one is posted', async () => {
    await start();
    dovecot = await startDovecot({ alice: 'alice-secret' });
    const mailer = (await emu!.service.configureIMAP(imapConfig(dovecot.port))).data;
    await connected(mailer.mailer_id);

    const malformed = manyParts('Too many parts');
    await dovecot.deliver('alice', mail('Before'));
    await dovecot.deliver('alice', malformed);
    await dovecot.deliver('alice', mail('After'));

    const posts = (await inbox.waitFor(3)).map((r) => ImapMessagePayload.parse(JSON.parse(r.body)));
    expect(posts.map((p) => p.subject)).toEqual(['Before', 'Too many parts', 'After']);
    expect(posts[0]).toMatchObject({ text: expect.stringContaining('Hello from Before'), problem: null });
    expect(posts[2]).toMatchObject({ text: expect.stringContaining('Hello from After'), problem: null, message_id: '<After@example.net>' });
    // The refused one is carried by what its header block says, with the parse error.
    expect(posts[1]).toMatchObject({
      from: { email: 'mallory@example.net', name: 'Mallory' },
      to: [{ email: 'alice@example.org', name: '' }],
      message_id: '<manyparts@example.net>',
      date: '2026-11-24T10:00:00.000Z',
      text: '',
      attachments: [],
    });
    expect(posts[1]!.problem).toMatch(/^mailparser could not parse it: Max allowed child nodes exceeded/);

    const listed = (await emu!.control.listImapMessages(mailer.mailer_id)).data;
    expect(listed.total).toBe(3);
    const [after, refused, before] = listed.messages;
    expect([before!.problem, after!.problem]).toEqual([null, null]);
    expect(refused).toMatchObject({
      subject: 'Too many parts',
      from_email: 'mallory@example.net',
      size: Buffer.byteLength(malformed),
      problem: posts[1]!.problem,
    });
    // Kept byte for byte as the server gave it.
    const raw = await fetch(`${emu!.url}/emulator/imap-messages/${refused!.ref_id}/raw`);
    expect(Buffer.from(await raw.arrayBuffer()).toString()).toBe(malformed);

    // Nothing is stuck: the mailer is connected and fine, and mail keeps coming.
    expect(await mailerOf(mailer.mailer_id)).toMatchObject({ status: 'connected', last_error: null });
    expect(imapErrors()).toEqual([]);
    await dovecot.deliver('alice', mail('Later still'));
    const later = await inbox.waitFor(4);
    expect(JSON.parse(later[3]!.body).subject).toBe('Later still');
  });

  it('a message over the size limit is not downloaded: its header block is kept with its size and the reason, and its post is small', async () => {
    const limit = 16 * 1024;
    await start({ maxMessageBytes: limit });
    dovecot = await startDovecot({ alice: 'alice-secret' });
    const mailer = (await emu!.service.configureIMAP(imapConfig(dovecot.port))).data;
    await connected(mailer.mailer_id);

    const head = 'From: Carol <carol@example.net>\r\nTo: alice@example.org\r\nSubject: Holiday photos\r\nMessage-ID: <photos@example.net>\r\n\r\n';
    // One byte over the limit; the next one exactly at it.
    const big = sized(head, limit + 1, 'x');
    const fits = sized(head.replace('Holiday photos', 'Just under').replace('photos@', 'under@'), limit, 'y');
    expect([Buffer.byteLength(big), Buffer.byteLength(fits)]).toEqual([limit + 1, limit]);
    await dovecot.deliver('alice', big);
    await dovecot.deliver('alice', fits);

    const posts = await inbox.waitFor(2);
    const [bigPost, fitsPost] = posts.map((r) => ImapMessagePayload.parse(JSON.parse(r.body)));
    expect(bigPost).toMatchObject({ subject: 'Holiday photos', from: { email: 'carol@example.net' }, message_id: '<photos@example.net>', text: '', html: '' });
    expect(bigPost!.problem).toBe(
      `over the size limit: ${Buffer.byteLength(big).toLocaleString('en-US')} bytes on the server, ${limit.toLocaleString('en-US')} bytes allowed; only its header block was taken`,
    );
    // The post carries none of the body.
    expect(posts[0]!.body.length).toBeLessThan(2048);
    expect(posts[0]!.body).not.toContain('xxxxxxxx');
    // A message at the limit is taken whole.
    expect(fitsPost).toMatchObject({ subject: 'Just under', problem: null });
    expect(fitsPost!.text).toContain('yyyyyyyy');

    const listed = (await emu!.control.listImapMessages(mailer.mailer_id)).data.messages;
    const stored = listed.find((m) => m.subject === 'Holiday photos')!;
    expect(stored).toMatchObject({ size: Buffer.byteLength(big), problem: bigPost!.problem });
    const raw = await fetch(`${emu!.url}/emulator/imap-messages/${stored.ref_id}/raw`);
    expect(Buffer.from(await raw.arrayBuffer()).toString()).toBe(head);
    expect(await mailerOf(mailer.mailer_id)).toMatchObject({ status: 'connected', last_error: null });

    // What Dovecot sent the connector: the message at the limit whole, of the other only its start.
    await emu!.service.deleteIMAPConfig(mailer.mailer_id);
    const sessions = await until('the connector logged out', () => {
      const outs = [...dovecot!.log().matchAll(/Logged out in=\d+ out=(\d+)/g)].map((m) => Number(m[1]));
      // Two deliveries and the connector's session.
      return outs.length >= 3 ? outs : undefined;
    });
    const connectorOut = Math.max(...sessions);
    expect(connectorOut).toBeGreaterThan(limit);
    expect(connectorOut).toBeLessThan(limit + 4096);
  });
});

describe('IMAP connector: servers that misbehave (127.0.0.1 stubs)', () => {
  it('a server that closes during connect (* BYE Too many connections) is retried on wall time, with back-off, even at clock speed 100,000; one imap_error', async () => {
    await start();
    stub = await startImapStub('bye');
    await emu!.control.setClock({ speed: 100_000 });
    const mailer = (await emu!.service.configureIMAP(imapConfig(stub.port))).data;
    const started = Date.now();
    await until('first attempt', () => (stub!.connections() >= 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 3500));
    // Attempts at 0 s, 1 s and 3 s of wall time (the next is at 7 s): three, four with generous slack,
    // at most (a busy machine makes fewer, never more); on emulated time there would be hundreds.
    const seconds = (Date.now() - started) / 1000;
    expect(stub.connections(), `connections in ${seconds} s`).toBeLessThanOrEqual(4);
    // And it does try again.
    await until('a second attempt', () => (stub!.connections() >= 2 ? true : undefined));
    expect(await mailerOf(mailer.mailer_id)).toMatchObject({ status: 'error', last_error: expect.stringMatching(/close|BYE|Too many/i) });
    await until('imap_error', () => (imapErrors().length > 0 ? true : undefined));
    expect(imapErrors()).toHaveLength(1);
    expect(imapErrors()[0]).toMatchObject({ mailer_id: mailer.mailer_id, host: '127.0.0.1' });
  });

  it('an answer that is not IMAP is reported as a protocol error, not AUTHENTICATIONFAILED', async () => {
    await start();
    stub = await startImapStub('garbage');
    const mailer = (await emu!.service.configureIMAP(imapConfig(stub.port))).data;
    const record = await until('status error', async () => {
      const m = await mailerOf(mailer.mailer_id);
      return m.status === 'error' ? m : undefined;
    });
    expect(record.last_error).toMatch(/^protocol error: the server's answer is not IMAP: ".*garbage.*" \(ParserError\d*\)$/);
    expect(record.last_error).not.toMatch(/AUTHENTICATIONFAILED/);
    await until('imap_error', () => (imapErrors().length > 0 ? true : undefined));
    expect(imapErrors()[0].error).toBe(record.last_error);
    const test = (await emu!.control.testMailer(mailer.mailer_id)).data;
    expect(test).toMatchObject({ ok: false, message: expect.stringMatching(/^protocol error/) });
  });
});

describe.skipIf(!hasDovecot && !process.env.CI)('IMAP connector: a store that fails (Dovecot)', () => {
  it('shows status error with the reason and sends one imap_error while mail cannot be stored, and takes it once it can', async () => {
    dovecot = await startDovecot({ alice: 'alice-secret' });
    const row = {
      id: 'm1',
      account_id: 'a1',
      config_type: 'imap',
      host: '127.0.0.1',
      port: dovecot.port,
      username: 'alice',
      secure: 'None',
      status: 'connecting',
      last_error: null,
      webhook: null,
      imap_uidvalidity: null,
      imap_uid_next: null,
    } as unknown as MailerRow;
    const stored: string[] = [];
    const imapEvents: unknown[] = [];
    // The store as on a full disk: every write fails until `full` is cleared.
    let full = true;
    const write = () => {
      if (full) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    const deps = {
      mailerId: 'm1',
      mailers: {
        row: () => row,
        credentials: () => ({ user: 'alice', pass: 'alice-secret' }),
        setStatus: (_id: string, status: string, error: string | null) => Object.assign(row, { status, last_error: error }),
      },
      repo: {
        setImapPosition: (_id: string, uidValidity: number, next: number) => Object.assign(row, { imap_uidvalidity: uidValidity, imap_uid_next: next }),
        hasImapMessage: () => false,
        insertImapMessage: (m: { subject: string }) => {
          write();
          stored.push(m.subject);
        },
        sameSend: () => [],
      },
      unitOfWork: { run: (fn: () => void) => fn() },
      dispatcher: { enqueue: () => null, commitEnqueued: () => {} },
      emailEvents: {
        record: () => undefined,
        buildPayload: (event: string, _m: unknown, extra: object) => ({ event, ...extra }),
        emitEmailEvent: (_account: string, payload: unknown) => imapEvents.push(payload),
      },
      clock: { now: () => Date.now(), setTimer: () => () => {} },
      logger: pino({ level: 'silent' }),
      verifyTls: false,
      serverAddress: async () => undefined,
    } as unknown as InboxWatchDeps;
    const watch = new InboxWatch(deps);
    try {
      watch.open();
      await until('connected', () => (row.status === 'connected' ? true : undefined));
      await dovecot.deliver('alice', mail('First'));
      await until('status error', () => (row.status === 'error' ? true : undefined));
      expect(row.last_error).toBe('could not take new mail: database or disk is full (SQLITE_FULL)');
      await dovecot.deliver('alice', mail('Second'));
      await new Promise((r) => setTimeout(r, 300));
      expect(imapEvents).toEqual([expect.objectContaining({ event: 'imap_error', mailer_id: 'm1', error: row.last_error })]);

      // Space again: the next try (1 s, 2 s, ... after the failures) takes both, in order, with no new mail needed.
      full = false;
      await until('both stored', () => (stored.length === 2 ? true : undefined));
      await dovecot.deliver('alice', mail('Third'));
      await until('all three stored', () => (stored.length === 3 ? true : undefined));
      expect(stored).toEqual(['First', 'Second', 'Third']);
      await until('connected again', () => (row.status === 'connected' ? true : undefined));
      expect(row.last_error).toBeNull();
      expect(imapEvents).toHaveLength(1);
    } finally {
      await watch.close();
    }
  });
});
