import { get as httpGet, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src-main/cli/index';
import { CONTROL_SESSION_MS } from '../../src-main/core/http/control-sessions';
import { KEY_GUESS_LIMITS } from '../../src-main/core/http/key-guesses';
import { startMailyard } from '../../src-main/testing/index';
import { ControlClient, ServiceClient } from '../../src-shared/clients';
import { type RawResponse, rawRequest, startEmulator, type TestEmulator } from '../helpers/emulator';
import { logCapture } from '../helpers/log-capture';

/**
 * A Mailyard listening beyond loopback (`--host 0.0.0.0`) requires its control key for the control
 * API, the web UI's data and the release path, whatever the Host header: anyone on the network
 * could otherwise read the captured mail and drive the emulator. Every request here goes to
 * 127.0.0.1 only, with the Host header a client on the network would send.
 */

const HOSTS = ['0.0.0.0', '192.168.1.20:4400', 'mailyard.lan', 'localhost', '127.0.0.1'];

function local(emu: TestEmulator): string {
  return `http://127.0.0.1:${emu.handle.ports.http}`;
}

function call(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<RawResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return rawRequest(base, method, path, payload === undefined ? headers : { 'content-type': 'application/json', ...headers }, payload);
}

function expectRefused(res: RawResponse): void {
  expect(res.status).toBe(401);
  expect(res.json).toEqual({ success: false, error: expect.stringMatching(/control key/) });
  expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
}

describe('listening beyond loopback (--host 0.0.0.0)', () => {
  let emu: TestEmulator;
  let base: string;
  let key: string;
  let messageId: string;

  beforeAll(async () => {
    emu = await startEmulator({ host: '0.0.0.0' });
    base = local(emu);
    key = emu.handle.config.controlKey!;
    const service = new ServiceClient({ baseUrl: base, apiKey: emu.apiKey });
    await service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.com' }],
      subject: 'Secret',
      content: [{ type: 'text/plain', value: 'hi' }],
    });
    const control = new ControlClient({ baseUrl: base, headers: { authorization: `Bearer ${key}` } });
    messageId = (await control.listMessages()).data.messages[0]!.id;
  });
  afterAll(() => emu.cleanup());

  it('makes a random control key when none is given', () => {
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  const refusedCalls: Array<[string, string, unknown?]> = [
    ['GET', '/emulator/health'],
    ['GET', '/emulator/messages'],
    ['GET', '/emulator/accounts'],
    ['GET', '/emulator/deliveries'],
    ['GET', '/emulator/stream'],
    ['POST', '/emulator/reset'],
    ['POST', '/emulator/clock', { advance_ms: 60_000 }],
  ];

  it.each(HOSTS)('refuses the control API without the key (401, the API error shape) for Host %s, and changes nothing', async (host) => {
    for (const [method, path, body] of refusedCalls) expectRefused(await call(base, method, path, { host }, body));
    // The captured message's data and the release path (which could send it out through a mailer).
    expectRefused(await call(base, 'GET', `/emulator/messages/${messageId}`, { host }));
    expectRefused(await call(base, 'GET', `/emulator/messages/${messageId}/raw`, { host }));
    expectRefused(await call(base, 'GET', `/emulator/messages/${messageId}/html`, { host }));
    expectRefused(await call(base, 'POST', `/emulator/messages/${messageId}/release`, { host }, { mailer_id: 'mlr_x' }));
    // Nothing was reset: the message is still there.
    const res = await call(base, 'GET', `/emulator/messages/${messageId}`, { host, authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    expect(res.json.data.subject).toBe('Secret');
  });

  it('refuses a wrong key, an account API key, and the key in another header', async () => {
    const attempts: Array<Record<string, string>> = [
      { authorization: `Bearer ${key}x` },
      { authorization: `Bearer ${emu.apiKey}` },
      { 'x-api-key': key },
      { authorization: key },
      { cookie: `mailyard_control_${emu.handle.ports.http}=${key}` },
    ];
    for (const headers of attempts) {
      expectRefused(await call(base, 'GET', '/emulator/messages', { host: 'mailyard.lan', ...headers }));
    }
  });

  it.each(HOSTS)('answers with the key as a bearer token for Host %s', async (host) => {
    const auth = { host, authorization: `Bearer ${key}` };
    expect((await call(base, 'GET', '/emulator/health', auth)).status).toBe(200);
    const raw = await call(base, 'GET', `/emulator/messages/${messageId}/raw`, auth);
    expect(raw.status).toBe(200);
    expect(raw.text).toContain('Subject: Secret');
    // The release path is reached: it answers about the mailer, not about the key.
    const release = await call(base, 'POST', `/emulator/messages/${messageId}/release`, auth, { mailer_id: 'mlr_missing' });
    expect(release.status).toBeGreaterThanOrEqual(400);
    expect(release.status).not.toBe(401);
    expect(release.json.error).toMatch(/mailer/i);
  });

  it('keeps the JSON rule for mutating requests with the key (no cross-site form posts)', async () => {
    const res = await rawRequest(
      base,
      'POST',
      '/emulator/reset',
      { authorization: `Bearer ${key}`, 'content-type': 'text/plain', 'content-length': '2' },
      '{}',
    );
    expect(res.status).toBe(415);
  });

  it('logs the web UI in with an HttpOnly SameSite=Strict cookie, which opens the control API until logout', async () => {
    const host = { host: '192.168.1.20:4400' };
    // The UI's page itself loads (it shows the login); it holds no data.
    const page = await call(base, 'GET', '/', { ...host, accept: 'text/html' });
    expect(page.status).toBe(200);
    expect((await call(base, 'GET', '/emulator/session', host)).json.data).toEqual({ key_required: true, authenticated: false });

    const wrong = await call(base, 'POST', '/emulator/login', host, { key: 'not-the-key-at-all' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toMatch(/not the control key/);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect((await call(base, 'POST', '/emulator/login', host, { key: 42 })).status).toBe(400);
    expect((await call(base, 'POST', '/emulator/login', host, {})).json.error).toMatch(/key/);

    const login = await call(base, 'POST', '/emulator/login', host, { key });
    expect(login.status).toBe(200);
    const setCookie = login.headers['set-cookie']![0]!;
    expect(setCookie).toMatch(new RegExp(`^mailyard_control_${emu.handle.ports.http}=`));
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    // The cookie holds a session id, never the key itself.
    expect(setCookie).not.toContain(key);
    const cookie = setCookie.split(';')[0]!;

    expect((await call(base, 'GET', '/emulator/session', { ...host, cookie })).json.data).toEqual({ key_required: true, authenticated: true });
    expect((await call(base, 'GET', '/emulator/messages', { ...host, cookie })).status).toBe(200);
    expect((await call(base, 'GET', `/emulator/messages/${messageId}/raw`, { ...host, cookie })).status).toBe(200);

    const logout = await call(base, 'POST', '/emulator/logout', { ...host, cookie });
    expect(logout.headers['set-cookie']![0]).toMatch(/Max-Age=0/);
  });

  it('leaves the service API to its API keys, and tracking links public', async () => {
    expect((await call(base, 'GET', '/v1/webhook', { host: 'mailyard.lan' })).status).toBe(401);
    expect((await call(base, 'GET', '/v1/webhook', { host: 'mailyard.lan', authorization: `Bearer ${emu.apiKey}` })).status).toBe(200);
    // The control key is not an API key.
    expect((await call(base, 'GET', '/v1/webhook', { host: 'mailyard.lan', authorization: `Bearer ${key}` })).status).toBe(401);
    expect((await call(base, 'GET', '/openapi.json', { host: 'mailyard.lan' })).status).toBe(200);
  });
});

describe('web UI logins: sessions the server holds', () => {
  let emu: TestEmulator;
  let base: string;
  let key: string;
  // The wall time the emulator's logins see (a seam): moved by the test, never slept through.
  let now = Date.now();
  const host = { host: 'mailyard.lan:4400' };

  beforeAll(async () => {
    emu = await startEmulator({ host: '0.0.0.0' }, { wallClock: () => now });
    base = local(emu);
    key = emu.handle.config.controlKey!;
  });
  afterAll(() => emu.cleanup());

  async function login(): Promise<string> {
    const res = await call(base, 'POST', '/emulator/login', host, { key });
    expect(res.status).toBe(200);
    return res.headers['set-cookie']![0]!.split(';')[0]!;
  }
  const opens = async (cookie: string) => (await call(base, 'GET', '/emulator/messages', { ...host, cookie })).status === 200;

  it('gives each login its own random session id, and a logout ends it: the cookie replayed after it is refused', async () => {
    const first = await login();
    const second = await login();
    expect(first).not.toBe(second);
    for (const cookie of [first, second]) {
      expect(cookie).toMatch(new RegExp(`^mailyard_control_${emu.handle.ports.http}=[A-Za-z0-9_-]{43}$`));
      expect(await opens(cookie)).toBe(true);
    }
    expect((await call(base, 'POST', '/emulator/logout', { ...host, cookie: first })).status).toBe(200);
    // The browser's copy is cleared, and a copy kept elsewhere is worth nothing now.
    expectRefused(await call(base, 'GET', '/emulator/messages', { ...host, cookie: first }));
    expect((await call(base, 'GET', '/emulator/session', { ...host, cookie: first })).json.data).toEqual({ key_required: true, authenticated: false });
    // The other login goes on.
    expect(await opens(second)).toBe(true);
  });

  it('ends a login 12 hours of wall time after it began, whatever the emulator clock does', async () => {
    const cookie = await login();
    // A day on the emulator clock logs no one out.
    expect((await call(base, 'POST', '/emulator/clock', { ...host, cookie }, { advance_ms: 86_400_000 })).status).toBe(200);
    expect(await opens(cookie)).toBe(true);
    now += CONTROL_SESSION_MS - 1;
    expect(await opens(cookie)).toBe(true);
    now += 1;
    expectRefused(await call(base, 'GET', '/emulator/messages', { ...host, cookie }));
    expect(await opens(await login())).toBe(true);
  });

  it('ends a live stream opened with a login when the login ends', async () => {
    const cookie = await login();
    const stream = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet(`${base}/emulator/stream`, { headers: { ...host, cookie } }, resolve).on('error', reject),
    );
    expect(stream.statusCode).toBe(200);
    const events: string[] = [];
    stream.on('data', (chunk: Buffer) => events.push(chunk.toString()));
    const ended = new Promise<void>((resolve) => stream.on('end', resolve));
    const service = new ServiceClient({ baseUrl: base, apiKey: emu.apiKey });
    const send = (subject: string) =>
      service.sendEmail({ from: { email: 'app@example.com' }, to: [{ email: 'ann@example.com' }], subject, content: [{ type: 'text/plain', value: 'hi' }] });
    await send('Seen live');
    await expect.poll(() => events.join('')).toContain('Seen live');
    await call(base, 'POST', '/emulator/logout', { ...host, cookie });
    // The next announcement is not sent: the stream ends instead.
    await send('Not seen');
    await ended;
    expect(events.join('')).not.toContain('Not seen');
  });
});

describe('wrong control keys', () => {
  let emu: TestEmulator;
  let base: string;
  let key: string;
  // The wall time the throttle sees (a seam): the wait is moved through, never slept.
  let now = Date.now();
  const log = logCapture();
  const host = { host: 'mailyard.lan:4400' };

  beforeAll(async () => {
    emu = await startEmulator({ host: '0.0.0.0' }, { wallClock: () => now, logger: log.logger });
    base = local(emu);
    key = emu.handle.config.controlKey!;
  });
  afterAll(() => emu.cleanup());

  const login = (k: string) => call(base, 'POST', '/emulator/login', host, { key: k });
  const { perAddress, windowMs } = KEY_GUESS_LIMITS;

  it('are answered 429 with Retry-After once an address has sent too many, the right key too; it logs in after the wait', async () => {
    const statuses: number[] = [];
    let throttled: RawResponse | undefined;
    for (let i = 0; i < 60; i++) {
      const res = await login(`wrong-guess-${i}-of-the-key`);
      statuses.push(res.status);
      throttled ??= res.status === 429 ? res : undefined;
    }
    expect(statuses.slice(0, perAddress)).toEqual(Array(perAddress).fill(401));
    expect(statuses.indexOf(429)).toBe(perAddress);
    expect(statuses.slice(perAddress)).toEqual(Array(60 - perAddress).fill(429));
    expect(throttled!.headers['retry-after']).toBe(String(windowMs / 1000));
    expect(throttled!.json.error).toMatch(/^Too Many Requests: 10 wrong control keys from this address within 60 s/);
    // The right key is not checked either (a guess would show by being let in).
    expect((await login(key)).status).toBe(429);
    // One line for the first wrong key and one when the address was throttled: not one an attempt.
    const lines = log.lines.filter((l) => String(l.msg).includes('control key'));
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^wrong control key/), expect.stringMatching(/^10 wrong control keys from .* within 60 s/)]);

    now += windowMs - 1000;
    const later = await login(key);
    expect(later.status).toBe(429);
    expect(later.headers['retry-after']).toBe('1');
    now += 1000;
    const loggedIn = await login(key);
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.headers['set-cookie']).toBeDefined();
  });

  it('count in a bearer header and the session probe too, while a login made before goes on', async () => {
    now += windowMs;
    const cookie = (await login(key)).headers['set-cookie']![0]!.split(';')[0]!;
    for (let i = 0; i < perAddress - 1; i++) expectRefused(await call(base, 'GET', '/emulator/health', { authorization: `Bearer guess-${i}-of-the-key` }));
    expect((await call(base, 'GET', '/emulator/session', { ...host, authorization: 'Bearer one-more-guess-of-it' })).json.data).toEqual({
      key_required: true,
      authenticated: false,
    });
    const throttled = await call(base, 'GET', '/emulator/health', { authorization: `Bearer ${key}` });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect((await call(base, 'GET', '/emulator/session', { ...host, authorization: `Bearer ${key}` })).status).toBe(429);
    expect((await call(base, 'GET', '/emulator/health', { ...host, cookie })).status).toBe(200);
  });
});

describe('the control key, given', () => {
  it('is the one required beyond loopback', async () => {
    const emu = await startEmulator({ host: '0.0.0.0', controlKey: 'a-key-of-our-choosing-42' });
    try {
      const base = local(emu);
      expect(emu.handle.config.controlKey).toBe('a-key-of-our-choosing-42');
      expect((await call(base, 'GET', '/emulator/health', { authorization: 'Bearer a-key-of-our-choosing-42' })).status).toBe(200);
      const refused = await call(base, 'GET', '/emulator/health');
      expectRefused(refused);
      expect((refused.json as { error: string }).error).toMatch(/^Unauthorized: this Mailyard is reachable from the network, so/);
    } finally {
      await emu.cleanup();
    }
  });

  it('on loopback is required too, and the foreign-Host refusal stays', async () => {
    const emu = await startEmulator({ controlKey: 'a-key-of-our-choosing-42' });
    try {
      const refused = await call(emu.url, 'GET', '/emulator/health');
      expectRefused(refused);
      // Words that fit a loopback listener: nothing reaches it from the network; it was given a key.
      expect((refused.json as { error: string }).error).toMatch(/^Unauthorized: this Mailyard was started with a control key, so the control API/);
      expect((refused.json as { error: string }).error).not.toMatch(/network|printed at start-up/);
      const auth = { authorization: 'Bearer a-key-of-our-choosing-42' };
      expect((await call(emu.url, 'GET', '/emulator/health', auth)).status).toBe(200);
      expect((await call(emu.url, 'GET', '/emulator/health', { ...auth, host: 'evil.example' })).status).toBe(403);
    } finally {
      await emu.cleanup();
    }
  });

  it('must be 16 to 256 printable characters', async () => {
    await expect(startEmulator({ host: '0.0.0.0', controlKey: 'short' })).rejects.toThrow(/at least 16/);
    await expect(startEmulator({ host: '0.0.0.0', controlKey: 'has a space in it, see' })).rejects.toThrow(/printable/);
  });
});

describe('the testing API with a control key', () => {
  it('sends the key with its control client and helpers', async () => {
    const yard = await startMailyard({ controlKey: 'testing-api-control-key', ui: false });
    try {
      expect(yard.controlKey).toBe('testing-api-control-key');
      await yard.service.sendEmail({
        from: { email: 'app@example.com' },
        to: [{ email: 'bob@example.com' }],
        subject: 'Hello',
        content: [{ type: 'text/plain', value: 'hi' }],
      });
      expect((await yard.messages()).map((m) => m.subject)).toEqual(['Hello']);
      expect((await yard.advanceClock(1000)).offset_ms).toBeGreaterThanOrEqual(1000);
      expectRefused(await call(yard.url, 'GET', '/emulator/messages'));
    } finally {
      await yard.stop();
    }
  });
});

describe('loopback (the default), as before', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(() => emu.cleanup());

  it('needs no key, and refuses foreign Host headers', async () => {
    expect(emu.handle.config.controlKey).toBeUndefined();
    expect((await call(emu.url, 'GET', '/emulator/health')).status).toBe(200);
    expect((await call(emu.url, 'GET', '/emulator/session')).json.data).toEqual({ key_required: false, authenticated: true });
    for (const host of ['evil.example', '0.0.0.0', '192.168.1.20:4400']) {
      const res = await call(emu.url, 'GET', '/emulator/messages', { host });
      expect(res.status).toBe(403);
      expect(res.json.error).toMatch(/only loopback hosts/);
    }
  });
});

describe('mailyard serve --host 0.0.0.0', () => {
  async function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
    const out: string[] = [];
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((r) => (stop = r));
    const exit = main(['serve', '--http-port', '0', '--smtp-port', '0', '--memory', ...args], {
      out: (line) => out.push(line),
      err: (line) => out.push(line),
      env: { MAILYARD_LOG_LEVEL: 'silent', ...env },
      stopSignal: () => stopped,
    });
    for (let i = 0; i < 400 && !out.some((l) => l.startsWith('Data:')); i++) await new Promise((r) => setTimeout(r, 25));
    const port = /^HTTP:\s+http:\/\/[^\s]*:(\d+)/m.exec(out.join('\n'))?.[1];
    return {
      out,
      port,
      close: async () => {
        stop('SIGTERM');
        return exit;
      },
    };
  }

  it('warns that it is reachable from the network and prints the key it made, which the control API then needs', async () => {
    const run = await serve(['--host', '0.0.0.0']);
    try {
      const text = run.out.join('\n');
      expect(text).toMatch(/^WARNING: +listening on 0\.0\.0\.0: reachable from the network/m);
      const key = /^Control: +(\S+) +\(made at start/m.exec(text)?.[1];
      expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(text).toContain('Authorization: Bearer <control key>');
      const base = `http://127.0.0.1:${run.port}`;
      expectRefused(await call(base, 'GET', '/emulator/messages', { host: 'mailyard.lan' }));
      expect((await call(base, 'GET', '/emulator/messages', { host: 'mailyard.lan', authorization: `Bearer ${key}` })).status).toBe(200);
    } finally {
      expect(await run.close()).toBe(0);
    }
  });

  it('takes the key from MAILYARD_CONTROL_KEY and does not echo it', async () => {
    const run = await serve(['--host', '0.0.0.0'], { MAILYARD_CONTROL_KEY: 'from-the-environment-1234' });
    try {
      const text = run.out.join('\n');
      expect(text).not.toContain('from-the-environment-1234');
      expect(text).toMatch(/^Control: +\(the one given with --control-key/m);
      const base = `http://127.0.0.1:${run.port}`;
      expect((await call(base, 'GET', '/emulator/health', { authorization: 'Bearer from-the-environment-1234' })).status).toBe(200);
    } finally {
      await run.close();
    }
  });

  it('says nothing of a key on loopback, and refuses a bad --control-key with status 2', async () => {
    const run = await serve([]);
    try {
      expect(run.out.join('\n')).not.toMatch(/WARNING|Control:/);
    } finally {
      await run.close();
    }
    const lines: string[] = [];
    const code = await main(['serve', '--control-key', 'short'], {
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      env: {},
      stopSignal: () => new Promise(() => {}),
    });
    expect(code).toBe(2);
    expect(lines[0]).toMatch(/invalid value for --control-key: must be at least 16 characters/);
  });
});
