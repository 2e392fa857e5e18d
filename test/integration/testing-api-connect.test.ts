/**
 * mailyard/testing: attaching to a running emulator (connectMailyard), and the rough edges
 * of startMailyard (one-line option errors, a taken or unusable port, nothing left running, `await using`).
 */
import { createServer, type Server } from 'node:net';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMailyard, MailyardStartError, startMailyard } from '../../src-main/testing/index';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { closedPort } from '../helpers/receiver';

const CONTROL_KEY = 'connect-control-key-0123456789';

/** The error a start or an attach failed with (a success fails the test). */
function failure(attempt: Promise<unknown>): Promise<MailyardStartError> {
  return attempt.then(
    () => {
      throw new Error('expected it to fail');
    },
    (e: unknown) => e as MailyardStartError,
  );
}

/** TCP servers and sockets this process holds: a failed start must leave none behind. */
const tcpHandles = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap' || r === 'TCPSocketWrap').length;

/** The handle count once closing listeners have released their handles (released a tick or so after close). */
async function settledHandles(expected: number): Promise<number> {
  for (let i = 0; i < 100 && tcpHandles() !== expected; i++) await new Promise((r) => setTimeout(r, 20));
  return tcpHandles();
}

function listenOn(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('connectMailyard', () => {
  let running: TestEmulator;
  beforeAll(async () => {
    // As `mailyard serve --api-key ... --control-key ...` in a CI job would run it.
    running = await startEmulator({ apiKey: 'ci-job-api-key-1', controlKey: CONTROL_KEY });
  });
  afterAll(() => running.cleanup());

  it('attaches with the same helpers: waits, content, clock, reset', async () => {
    const yard = await connectMailyard(running.url, { apiKey: 'ci-job-api-key-1', controlKey: CONTROL_KEY });
    expect(yard.url).toBe(running.url);
    expect(yard.apiKey).toBe('ci-job-api-key-1');
    expect(yard.urls.smtp).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    const { ref_id } = await yard.service.sendEmail({
      from: { email: 'app@shop.example' },
      to: [{ email: 'bounce@sim.mailyard.test' }],
      subject: 'From the app',
      content: [{ type: 'text/plain', value: 'See https://shop.example/orders/7' }],
    });
    const message = await yard.waitForMessage({ ref_id });
    expect((await yard.content(message)).links).toEqual(['https://shop.example/orders/7']);
    const clock = await yard.advanceClock(60_000);
    expect(clock.in_flight).toBeGreaterThanOrEqual(0);
    // SMTP to the running emulator's sink, found through the attached helpers.
    const port = Number(new URL(yard.urls.smtp!).port);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({ from: 'app@shop.example', to: 'smtp@example.org', subject: 'Over SMTP', text: 'hi' });
    } finally {
      transport.close();
    }
    expect((await yard.waitForMessage({ recipient: 'smtp@example.org', source: 'smtp' })).subject).toBe('Over SMTP');
    // A function predicate works without the in-process announcements (it polls).
    expect((await yard.waitForMessage((m) => m.subject === 'From the app', { pollMs: 20 })).ref_id).toBe(ref_id);
    await yard.reset();
    expect(await yard.messages()).toEqual([]);
  });

  it('without apiKey takes the default account; a wrong key, URL or control key is said in one line', async () => {
    const attached = await connectMailyard(running.url, { controlKey: CONTROL_KEY });
    const accounts = (await attached.control.listAccounts()).data;
    expect(attached.apiKey).toBe(accounts.find((a) => a.is_default)!.api_key);

    const noKey = await failure(connectMailyard(running.url));
    expect(noKey).toBeInstanceOf(MailyardStartError);
    expect(noKey.message).toBe(`connectMailyard: ${running.url} wants a control key: pass { controlKey } (the one \`mailyard serve\` printed or was given)`);
    const badKey = await failure(connectMailyard(running.url, { controlKey: CONTROL_KEY, apiKey: 'no-such-key-123' }));
    expect(badKey.message).toContain('no account of the emulator');
    expect(badKey.option).toBe('apiKey');
    const nothing = `http://127.0.0.1:${await closedPort()}`;
    const down = await failure(connectMailyard(nothing));
    expect(down.message).toMatch(new RegExp(`^connectMailyard: no Mailyard emulator answered at ${nothing} \\(`));
    const notUrl = await failure(connectMailyard('localhost:4400'));
    expect(notUrl.option).toBe('url');
  });
});

describe('startMailyard rough edges', () => {
  it('a bad option is one line naming it', async () => {
    const error = await failure(startMailyard({ apiKey: 'test' }));
    expect(error).toBeInstanceOf(MailyardStartError);
    expect(error.message).toBe('startMailyard: invalid option apiKey: must be at least 8 characters, got "test"');
    expect(error.option).toBe('apiKey');
    const unknown = await failure(startMailyard({ colour: 'red' } as never));
    expect(unknown.message).toBe('startMailyard: unknown option "colour"');
    const clock = await failure(startMailyard({ clockStart: 'new year' }));
    expect(clock.message).toBe('startMailyard: invalid option clockStart: must be an ISO 8601 time such as 2026-01-01T00:00:00Z, got "new year"');
  });

  it('a taken port says which, and leaves nothing running', async () => {
    const taken = await listenOn();
    const port = (taken.address() as { port: number }).port;
    try {
      const before = tcpHandles();
      const http = await failure(startMailyard({ httpPort: port }));
      expect(http.message).toBe(`startMailyard: httpPort ${port} is already in use; pick another, or 0 for a free one`);
      expect(http.option).toBe('httpPort');
      // The SMTP port fails after the HTTP listener started: that one is closed again.
      const smtp = await failure(startMailyard({ smtpPort: port }));
      expect(smtp.message).toBe(`startMailyard: smtpPort ${port} is already in use; pick another, or 0 for a free one`);
      expect(await settledHandles(before)).toBe(before);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it('a port fetch() refuses is refused before anything starts', async () => {
    const before = tcpHandles();
    const error = await failure(startMailyard({ httpPort: 6000 }));
    expect(error.message).toBe(
      'startMailyard: httpPort 6000 is a port fetch() refuses to connect to (a "bad port" of the Fetch standard); pick another, or 0 for a free one',
    );
    expect(await settledHandles(before)).toBe(before);
  });

  it('`await using` stops the emulator when the scope ends', async () => {
    let url: string;
    {
      await using yard = await startMailyard();
      url = yard.url;
      expect((await yard.control.getHealth()).data.status).toBe('ok');
    }
    await expect(fetch(`${url}/emulator/health`)).rejects.toThrow();
  });
});
