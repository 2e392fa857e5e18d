import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboxWatchDeps } from '../../../../src-main/core/imap/imap-deps';
import { describeImapError } from '../../../../src-main/core/imap/imap-options';
import { InboxWatch } from '../../../../src-main/core/imap/inbox-watch';
import { ReconnectBackoff, reconnectDelay, STABLE_CONNECTION_MS, type WallScheduler } from '../../../../src-main/core/imap/reconnect-backoff';
import type { MailerRow } from '../../../../src-main/core/store/mailers.repo';
import { type ImapStub, startImapStub } from '../../../helpers/imap-stub';

/** Wall time that moves only when the test says: timers are listed and fired by hand. */
class FakeWall implements WallScheduler {
  time = 0;
  readonly timers: Array<{ delayMs: number; fn: () => void; done: boolean }> = [];

  now(): number {
    return this.time;
  }

  after(delayMs: number, fn: () => void): () => void {
    const timer = { delayMs, fn, done: false };
    this.timers.push(timer);
    return () => {
      timer.done = true;
    };
  }

  pending() {
    return this.timers.filter((t) => !t.done);
  }

  /** Moves time to the earliest pending timer and fires it; answers its delay. */
  fireNext(): number {
    const timer = this.pending()[0];
    if (!timer) throw new Error('no timer pending');
    timer.done = true;
    this.time += timer.delayMs;
    timer.fn();
    return timer.delayMs;
  }
}

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An InboxWatch on a stub server, with the mailer's status and the events it sends recorded. */
function watchOn(port: number, wall: FakeWall) {
  const row = {
    id: 'm1',
    account_id: 'a1',
    config_type: 'imap',
    host: '127.0.0.1',
    port,
    username: 'u',
    secure: 'None',
    status: 'connecting',
    last_error: null,
  } as unknown as MailerRow;
  const statuses: Array<{ status: string; error: string | null }> = [];
  const events: unknown[] = [];
  const deps = {
    mailerId: 'm1',
    mailers: {
      row: () => row,
      credentials: () => ({ user: 'u', pass: 'p' }),
      setStatus: (_id: string, status: string, error: string | null) => {
        Object.assign(row, { status, last_error: error });
        statuses.push({ status, error });
      },
    },
    emailEvents: {
      buildPayload: (event: string, _m: unknown, extra: object) => ({ event, ...extra }),
      emitEmailEvent: (_account: string, payload: unknown) => events.push(payload),
    },
    clock: { now: () => 0, setTimer: () => () => {} },
    logger: pino({ level: 'silent' }),
    verifyTls: false,
    serverAddress: async () => undefined,
    wall,
  } as unknown as InboxWatchDeps;
  return { watch: new InboxWatch(deps), statuses, events, row };
}

describe('reconnection back-off', () => {
  it('is 1 s, doubling, at most 5 minutes', () => {
    expect([1, 2, 3, 4, 5, 9, 10, 50, 5000].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 16_000, 256_000, 300_000, 300_000, 300_000]);
  });

  it('starts again at 1 s only after a connection that stayed up, never after one the server dropped at once', () => {
    const wall = new FakeWall();
    const backoff = new ReconnectBackoff(wall);
    expect([backoff.failed(), backoff.failed(), backoff.failed()]).toEqual([1000, 2000, 4000]);
    backoff.connected();
    wall.time += 5000;
    expect(backoff.failed()).toBe(8000);
    backoff.connected();
    wall.time += STABLE_CONNECTION_MS;
    expect(backoff.failed()).toBe(1000);
  });
});

describe('InboxWatch against misbehaving servers (127.0.0.1)', () => {
  let stub: ImapStub | undefined;
  let watch: InboxWatch | undefined;
  afterEach(async () => {
    await watch?.close();
    await stub?.close();
    watch = undefined;
    stub = undefined;
  });

  it('a server that closes during connect (* BYE Too many connections) is retried 1 s, 2 s, 4 s ... up to 5 minutes, with one imap_error', async () => {
    stub = await startImapStub('bye');
    const wall = new FakeWall();
    const w = watchOn(stub.port, wall);
    watch = w.watch;
    watch.open();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 11; attempt++) {
      // Each attempt ends with exactly one reconnection timer (the set-up deadline is cancelled with it).
      await until(`attempt ${attempt} fails`, () =>
        stub!.connections() === attempt && wall.pending().length === 1 && wall.pending()[0]!.delayMs !== 10_000 ? true : undefined,
      );
      delays.push(wall.fireNext());
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000]);
    await until('the 12th attempt', () => (stub!.connections() === 12 ? true : undefined));
    expect(w.events).toHaveLength(1);
    expect(w.events[0]).toMatchObject({ event: 'imap_error', mailer_id: 'm1', host: '127.0.0.1' });
    expect(w.row.status).toBe('error');
    expect(w.row.last_error).toMatch(/closed|BYE|Too many connections/i);
    // Never "connecting" between attempts: the status stays error with the reason.
    expect(w.statuses.map((s) => s.status)).not.toContain('connected');
  });

  it('a server that greets and then says nothing fails the attempt after 10 s of wall time, then retries after 1 s', async () => {
    stub = await startImapStub('greet-then-hang');
    const wall = new FakeWall();
    const w = watchOn(stub.port, wall);
    watch = w.watch;
    watch.open();
    await until('connected to the stub', () => (stub!.connections() === 1 ? true : undefined));
    const deadline = await until('the set-up deadline', () => wall.pending()[0]);
    expect(deadline.delayMs).toBe(10_000);
    expect(w.row.status).toBe('connecting');
    wall.fireNext();
    await until('status error', () => (w.row.status === 'error' ? true : undefined));
    expect(w.row.last_error).toMatch(/within 10 s/);
    expect(w.events).toEqual([expect.objectContaining({ event: 'imap_error', error: w.row.last_error })]);
    const retry = await until('a reconnection timer', () => wall.pending()[0]);
    expect(retry.delayMs).toBe(1000);
  });
});

describe('describeImapError', () => {
  it('names an answer that is not IMAP a protocol error, not a failed login', () => {
    const parserFailure = Object.assign(new Error('Failed to parse the server response for this command'), {
      code: 'ParserError2',
      authenticationFailed: true,
      parserError: { code: 'ParserError2', parserContext: { input: '2 ???garbage [[[', element: '???garbage', pos: 2 } },
    });
    expect(describeImapError(parserFailure)).toBe(`protocol error: the server's answer is not IMAP: "2 ???garbage [[[" (ParserError2)`);
    expect(
      describeImapError(
        Object.assign(new Error('Command failed'), {
          authenticationFailed: true,
          serverResponseCode: 'AUTHENTICATIONFAILED',
          responseText: 'Authentication failed.',
        }),
      ),
    ).toBe('AUTHENTICATIONFAILED Authentication failed.');
  });
});
