import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorConfigSchema } from '../../src-main/core/config';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * Slow clients cannot hold connections: a request whose headers or body never arrive, an idle
 * keep-alive connection, an SMTP client that says nothing or trickles its DATA are each cut off
 * within the configured time, answered in the API's error body (or SMTP 421) where an answer is possible.
 * The time-outs are configured short here; the defaults are checked separately.
 */
const HEADERS_MS = 400;
const REQUEST_MS = 1000;
const KEEP_ALIVE_MS = 300;
const SMTP_IDLE_MS = 500;
const SMTP_DATA_MS = 1000;
/** Node checks header and request time-outs periodically, and lets a keep-alive socket linger up to a second more. */
const SLACK_MS = 1500;

/** One raw TCP connection: everything it received, and when it was closed. */
interface RawConnection {
  socket: Socket;
  received(): string;
  /** Resolves with the milliseconds from `since` (default: the connection) to the server's close. */
  closed: Promise<number>;
  write(data: string): void;
  /** Resolves once `pattern` has arrived. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

async function open(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const start = Date.now();
  let data = '';
  const listeners = new Set<() => void>();
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    data += chunk;
    for (const l of listeners) l();
  });
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - start)));
  return {
    socket,
    received: () => data,
    closed,
    write: (chunk) => socket.write(chunk),
    waitFor(pattern, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(data)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(data);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`did not receive ${pattern} within ${timeoutMs} ms; got ${JSON.stringify(data)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}

/** The status and JSON body of the one HTTP answer in `raw`. */
function parseAnswer(raw: string): { status: number; headers: string; body: any } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]);
  return { status, headers: head ?? '', body: JSON.parse(rest.join('\r\n\r\n')) };
}

function timeoutRace<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} still open after ${ms} ms`)), ms))]);
}

describe('time-out defaults', () => {
  it('bounds headers, whole requests, idle keep-alive and SMTP sessions by default', () => {
    const c = EmulatorConfigSchema.parse({});
    expect(c.httpHeadersTimeoutMs).toBe(10_000);
    expect(c.httpRequestTimeoutMs).toBe(60_000);
    expect(c.httpKeepAliveTimeoutMs).toBe(5_000);
    expect(c.httpIdleTimeoutMs).toBe(120_000);
    expect(c.smtpIdleTimeoutMs).toBe(60_000);
    expect(c.smtpDataTimeoutMs).toBe(120_000);
  });

  it('refuses a header time-out longer than the request time-out', () => {
    const result = EmulatorConfigSchema.safeParse({ httpHeadersTimeoutMs: 5000, httpRequestTimeoutMs: 1000 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['httpHeadersTimeoutMs']);
  });
});

describe('slow clients', () => {
  let emu: TestEmulator;
  let httpPort: number;
  let smtpPort: number;

  beforeAll(async () => {
    emu = await startEmulator({
      httpHeadersTimeoutMs: HEADERS_MS,
      httpRequestTimeoutMs: REQUEST_MS,
      httpKeepAliveTimeoutMs: KEEP_ALIVE_MS,
      smtpIdleTimeoutMs: SMTP_IDLE_MS,
      smtpDataTimeoutMs: SMTP_DATA_MS,
    });
    httpPort = emu.handle.ports.http;
    smtpPort = emu.handle.ports.smtp!;
  });
  afterAll(() => emu?.cleanup());

  it('cuts off a body that never arrives in full: 408 in the API error body, connection closed', async () => {
    const conn = await open(httpPort);
    conn.write(
      'POST /v1/email/send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${emu.apiKey}\r\nContent-Length: 1000\r\n\r\n{"from":"a`,
    );
    const elapsed = await timeoutRace(conn.closed, REQUEST_MS + SLACK_MS + 2000, 'a request with a missing body');
    expect(elapsed).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(elapsed).toBeLessThan(REQUEST_MS + SLACK_MS);
    const answer = parseAnswer(conn.received());
    expect(answer.status).toBe(408);
    expect(answer.headers).toMatch(/content-type: application\/json/i);
    expect(answer.body).toEqual({ success: false, error: expect.stringMatching(/^Request Timeout: the request was not received in full within 1 s/) });
    // Nothing was sent.
    const logs = await emu.service.getEmailLogs();
    expect(logs.emailLogs).toHaveLength(0);
  });

  it('cuts off a body trickled in a byte at a time: the whole request is bounded, not only silence', async () => {
    const conn = await open(httpPort);
    conn.write('POST /emulator/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    const trickle = setInterval(() => !conn.socket.destroyed && conn.write(' '), 100);
    try {
      const elapsed = await timeoutRace(conn.closed, REQUEST_MS + SLACK_MS + 2000, 'a trickled request');
      expect(elapsed).toBeLessThan(REQUEST_MS + SLACK_MS);
    } finally {
      clearInterval(trickle);
    }
    const answer = parseAnswer(conn.received());
    expect(answer.status).toBe(408);
    expect(answer.body.success).toBe(false);
  });

  it('cuts off headers that never end: 408 in the API error body', async () => {
    const conn = await open(httpPort);
    conn.write('GET /emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const elapsed = await timeoutRace(conn.closed, HEADERS_MS + SLACK_MS + 2000, 'a request with unfinished headers');
    expect(elapsed).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(elapsed).toBeLessThan(HEADERS_MS + SLACK_MS);
    const answer = parseAnswer(conn.received());
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({ success: false, error: 'Request Timeout: the request headers were not received within 400 ms' });
  });

  it('closes a connection that never sends anything', async () => {
    const conn = await open(httpPort);
    const elapsed = await timeoutRace(conn.closed, HEADERS_MS + SLACK_MS + 2000, 'a silent connection');
    expect(elapsed).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('closes an idle keep-alive connection after its answer', async () => {
    const conn = await open(httpPort);
    conn.write('GET /emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    await conn.waitFor(/"success":true/);
    const answeredAt = Date.now();
    await timeoutRace(conn.closed, KEEP_ALIVE_MS + SLACK_MS + 2000, 'an idle keep-alive connection');
    expect(Date.now() - answeredAt).toBeLessThan(KEEP_ALIVE_MS + SLACK_MS);
    expect(parseAnswer(conn.received()).status).toBe(200);
  });

  it('still serves a whole request, and a keep-alive connection that goes on in time', async () => {
    const conn = await open(httpPort);
    for (let i = 0; i < 3; i++) {
      const before = conn.received().length;
      conn.write('GET /emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await conn.waitFor(new RegExp(`(?:[\\s\\S]{${before}})[\\s\\S]*"success":true`));
      await new Promise((r) => setTimeout(r, KEEP_ALIVE_MS / 3));
    }
    expect(conn.received().match(/HTTP\/1\.1 200/g)).toHaveLength(3);
    conn.socket.destroy();
    // A body of 1 MB, sent at once, is well within the bound.
    const big = await emu.request('PUT', '/emulator/rules', { body: { rules: [], padding: 'x'.repeat(1024 * 1024) } });
    expect(big.status).toBeLessThan(500);
    expect(big.status).not.toBe(408);
  });

  it('disconnects an SMTP client that connects and says nothing (421)', async () => {
    const conn = await open(smtpPort);
    await conn.waitFor(/^220 /);
    const elapsed = await timeoutRace(conn.closed, SMTP_IDLE_MS + SLACK_MS + 2000, 'a silent SMTP client');
    expect(elapsed).toBeGreaterThanOrEqual(SMTP_IDLE_MS - 50);
    expect(elapsed).toBeLessThan(SMTP_IDLE_MS + SLACK_MS);
    expect(conn.received()).toMatch(/\r\n421 .*Timeout/);
  });

  it('cuts off an SMTP DATA trickled in a byte at a time (421) and keeps nothing of it', async () => {
    const before = (await emu.control.listMessages()).data.messages.length;
    const conn = await open(smtpPort);
    await conn.waitFor(/^220 /);
    conn.write('EHLO slow.example\r\n');
    await conn.waitFor(/\r\n250 /);
    conn.write('MAIL FROM:<slow@example.org>\r\nRCPT TO:<ann@example.org>\r\nDATA\r\n');
    await conn.waitFor(/\r\n354 /);
    const dataStarted = Date.now();
    const trickle = setInterval(() => !conn.socket.destroyed && conn.write('x'), 100);
    try {
      await timeoutRace(conn.closed, SMTP_DATA_MS + SLACK_MS + 2000, 'a trickled DATA');
    } finally {
      clearInterval(trickle);
    }
    expect(Date.now() - dataStarted).toBeLessThan(SMTP_DATA_MS + SLACK_MS);
    expect(conn.received()).toMatch(/\r\n421 .*did not arrive in full within 1 s/);
    const after = (await emu.control.listMessages()).data.messages.length;
    expect(after).toBe(before);
  });

  it('keeps answering other clients meanwhile', async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => open(httpPort)));
    for (const c of held) c.write('POST /emulator/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    const health = await emu.control.getHealth();
    expect(health.data.status).toBe('ok');
    const closes = await Promise.all(held.map((c) => timeoutRace(c.closed, REQUEST_MS + SLACK_MS + 2000, 'a held connection')));
    for (const ms of closes) expect(ms).toBeLessThan(REQUEST_MS + SLACK_MS);
  });
});
