/**
 * `mailyard/testing` (src-main/testing): the emulator for users' test suites. Its helpers run against
 * the real core on free ports with a real local webhook receiver and real SMTP.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type Mailyard, startMailyard, WaitTimeoutError } from '../../src-main/testing/index';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { type Receiver, startReceiver } from '../helpers/receiver';

let yard: Mailyard;
let receiver: Receiver;
const everyEvent = Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true]));

const send = (to: string, subject = 'Hello', extra: Record<string, unknown> = {}) =>
  yard.service.sendEmail({
    from: { email: 'app@shop.example' },
    to: [{ email: to }],
    subject,
    content: [{ type: 'text/html', value: `<p>${subject}</p>` }],
    ...extra,
  });

beforeAll(async () => {
  yard = await startMailyard({ apiKey: 'testing-api-key-123' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await yard.stop();
  await receiver.close();
});
beforeEach(async () => {
  await yard.reset();
  receiver.requests.length = 0;
  receiver.answer = undefined;
  await yard.service.registerWebhook({ webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: everyEvent } });
});

describe('startMailyard', () => {
  it('starts the core on free ports with a fresh in-memory store and the given key, with typed clients', async () => {
    expect(yard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(yard.httpPort).toBeGreaterThan(0);
    expect(yard.httpPort).not.toBe(4400);
    expect(yard.smtpPort).toBeGreaterThan(0);
    expect(yard.smtp).toEqual({ host: '127.0.0.1', port: yard.smtpPort, certificate: null });
    expect(yard.urls.smtp).toBe(`smtp://127.0.0.1:${yard.smtpPort}`);
    expect(yard.apiKey).toBe('testing-api-key-123');
    expect(yard.dataDir).toBeNull();
    const health = (await yard.control.getHealth()).data;
    expect(health).toMatchObject({ status: 'ok', data_dir: null, version: yard.version, ports: { http: yard.httpPort, smtp: yard.smtpPort } });
    // The service client speaks the real service's shapes with the given key.
    const sent = await send('ann@example.org');
    expect(sent).toEqual({ success: true, ref_id: expect.any(String) });
    const logs = await yard.service.getEmailLogs({ refId: sent.ref_id });
    expect(logs).toMatchObject({ success: true, totalCount: 1, nextPageToken: '', emailLogs: [{ refId: sent.ref_id, recipientAddress: 'ann@example.org' }] });
    // Another key is refused, as the real service would.
    const { ServiceClient } = await import('../../src-main/testing/index');
    await expect(new ServiceClient({ baseUrl: yard.url, apiKey: 'wrong-key-123456' }).listWebhooks()).rejects.toBeInstanceOf(ApiError);
  });

  it('serves the built web UI at its URL', async () => {
    const res = await fetch(`${yard.url}/`);
    // npm test builds first; the UI is there whenever out/renderer is.
    if (existsSync(resolve(import.meta.dirname, '../../out/renderer/index.html'))) {
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('keeps a given data directory across restarts; stop() twice is fine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailyard-testing-'));
    try {
      const first = await startMailyard({ dataDir: dir, apiKey: 'kept-key-123456' });
      expect(first.dataDir).toBe(dir);
      const { ref_id } = await first.service.sendEmail({
        from: { email: 'a@shop.example' },
        to: [{ email: 'kept@example.org' }],
        subject: 'Kept',
        content: [{ type: 'text/plain', value: 'kept' }],
      });
      await first.stop();
      await first.stop();
      const second = await startMailyard({ dataDir: dir, apiKey: 'kept-key-123456' });
      try {
        const message = await second.waitForMessage((m) => m.ref_id === ref_id);
        expect(message.subject).toBe('Kept');
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('waitForMessage and waitForDelivery', () => {
  it('find a captured message (with its HTML) and the webhook deliveries the clock plays', async () => {
    const { ref_id } = await send('bounce@sim.mailyard.test', 'Your order');
    const message = await yard.waitForMessage((m) => m.ref_id === ref_id);
    expect(message).toMatchObject({ recipient: { email: 'bounce@sim.mailyard.test' }, subject: 'Your order', source: 'api' });
    expect(message.html).toContain('<p>Your order</p>');

    await yard.advanceClock(60_000);
    const bounce = await yard.waitForDelivery((d) => d.event === 'bounce' && d.ref_id === ref_id && d.status === 'succeeded');
    expect(bounce.payload).toMatchObject({ event: 'bounce', ref_id, recipient: { email: 'bounce@sim.mailyard.test' }, bounce_type: 'hard' });
    expect(bounce.attempt_log).toHaveLength(1);
    expect(bounce.attempt_log[0]!.response!.status).toBe(200);
    expect(receiver.requests.some((r) => JSON.parse(r.body).event === 'bounce')).toBe(true);
    // The message's status follows its events.
    const bounced = await yard.waitForMessage((m) => m.ref_id === ref_id && m.status === 'bounced');
    expect(bounced.events.map((e) => e.event)).toContain('bounce');
  });

  it("take mail that arrives over SMTP, sent with nodemailer's default transport", async () => {
    expect(yard.smtp.certificate).toBeNull();
    const transport = nodemailer.createTransport({ host: yard.smtp.host, port: yard.smtp.port });
    try {
      await transport.sendMail({ from: 'app@shop.example', to: 'smtp-user@example.org', subject: 'Over SMTP', text: 'hello over smtp' });
    } finally {
      transport.close();
    }
    const message = await yard.waitForMessage((m) => m.subject === 'Over SMTP');
    expect(message).toMatchObject({ source: 'smtp', recipient: { email: 'smtp-user@example.org' } });
    expect(message.text).toContain('hello over smtp');
  });

  it("with smtpTls: 'starttls', take mail over STARTTLS from a client that trusts smtp.certificate", async () => {
    const tls = await startMailyard({ smtpTls: 'starttls' });
    const transport = nodemailer.createTransport({ host: tls.smtp.host, port: tls.smtp.port, requireTLS: true, tls: { ca: tls.smtp.certificate! } });
    try {
      expect(tls.smtp.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
      await transport.sendMail({ from: 'app@shop.example', to: 'tls-user@example.org', subject: 'Over STARTTLS', text: 'hello' });
      expect(await tls.waitForMessage({ subject: 'Over STARTTLS' })).toMatchObject({ source: 'smtp', recipient: { email: 'tls-user@example.org' } });
    } finally {
      transport.close();
      await tls.stop();
    }
  });

  it('a time-out error lists what did arrive', async () => {
    const { ref_id } = await send('delivered@sim.mailyard.test', 'Shipped');
    await yard.advanceClock(60_000);
    await yard.waitForDelivery((d) => d.event === 'delivery' && d.status === 'succeeded');

    const waited = yard.waitForDelivery((d) => d.event === 'spam', { timeoutMs: 300 });
    await expect(waited).rejects.toBeInstanceOf(WaitTimeoutError);
    const error = (await waited.catch((e: unknown) => e)) as WaitTimeoutError;
    expect(error.message).toMatch(/^waitForDelivery: no webhook delivery matched within 300 ms\.\n1 webhook delivery arrived \(oldest first\):\n/);
    expect(error.message).toMatch(
      new RegExp(`- \\S+ delivery ref_id=${ref_id} recipient=delivered@sim\\.mailyard\\.test status=succeeded attempts=1 last_status=200 -> ${receiver.url}`),
    );
    expect(error.arrived).toHaveLength(1);

    const noMessage = (await yard.waitForMessage((m) => m.subject === 'Refund', { timeoutMs: 200 }).catch((e: unknown) => e)) as WaitTimeoutError;
    expect(noMessage).toBeInstanceOf(WaitTimeoutError);
    expect(noMessage.message).toContain('waitForMessage: no captured message matched within 200 ms.\n1 captured message arrived (oldest first):');
    expect(noMessage.message).toContain(`to=delivered@sim.mailyard.test from=app@shop.example subject="Shipped" status=delivered ref_id=${ref_id}`);

    await yard.reset();
    const nothing = (await yard.waitForMessage(() => true, { timeoutMs: 100 }).catch((e: unknown) => e)) as WaitTimeoutError;
    expect(nothing.message).toBe('waitForMessage: no captured message matched within 100 ms.\nNo captured message arrived at all.');
  });

  it('a predicate that throws does not match, and the time-out says so', async () => {
    await yard.fireEvent({ event: 'open', recipient: 'ann@example.org' });
    const error = (await yard
      .waitForDelivery((d) => (d.payload as { missing: { field: string } }).missing.field === 'x', { timeoutMs: 200 })
      .catch((e: unknown) => e)) as WaitTimeoutError;
    expect(error.message).toContain('1 webhook delivery arrived');
    expect(error.message).toMatch(/The predicate threw for 1 record \(taken as no match\); the first error: TypeError: /);
  });

  it('wake on what the emulator announces, not on a slow poll', async () => {
    // The wait looks once at the start and would look again only after a minute, past its time-out: it
    // can resolve only by waking on the emulator's announcement.
    const waiting = yard.waitForDelivery((d) => d.event === 'click' && d.status === 'succeeded', { pollMs: 60_000, timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 50));
    await yard.fireEvent({ event: 'click', recipient: 'ann@example.org' });
    expect(await waiting).toMatchObject({ event: 'click', status: 'succeeded' });
  });
});

describe('advanceClock, fireEvent, setRules, reset', () => {
  it('a retry after the receiver answered 500 happens when the clock is advanced', async () => {
    receiver.answer = (_req, index) => (index === 0 ? 500 : 200);
    const fired = await yard.fireEvent({ event: 'spam', recipient: 'ann@example.org', fields: { ref_id: 'ref-retry-1' } });
    expect(fired).toMatchObject({ sent: true, delivery_id: expect.any(String) });
    const failed = await yard.waitForDelivery((d) => d.id === fired.delivery_id && d.attempts === 1 && d.status === 'pending');
    expect(failed.last_status_code).toBe(500);
    const before = Date.now();
    const clock = await yard.advanceClock(5_000);
    expect(clock.now_ms).toBeGreaterThanOrEqual(before + 5_000);
    const delivered = await yard.waitForDelivery((d) => d.id === fired.delivery_id && d.status === 'succeeded');
    expect(delivered.attempt_log.map((a) => a.response?.status)).toEqual([500, 200]);
    expect(receiver.requests).toHaveLength(2);
  });

  it('simulation rules decide the events of matching recipients', async () => {
    const rules = await yard.setRules([
      {
        pattern: '*@complainers.example',
        events: [
          { event: 'delivery', delay_ms: 0 },
          { event: 'spam', delay_ms: 1000 },
        ],
      },
    ]);
    expect(rules).toHaveLength(1);
    const { ref_id } = await send('zoe@complainers.example');
    await yard.advanceClock(10_000);
    const spam = await yard.waitForDelivery((d) => d.event === 'spam' && d.ref_id === ref_id && d.status === 'succeeded');
    expect(spam.payload.recipient?.email).toBe('zoe@complainers.example');
  });

  it('reset wipes messages, deliveries, webhooks and rules and keeps the key', async () => {
    await yard.setRules([{ pattern: 'x@y.example', events: [] }]);
    await send('ann@example.org');
    await yard.fireEvent({ event: 'delivery', recipient: 'ann@example.org' });
    await yard.waitForDelivery(() => true);
    const result = await yard.reset();
    expect(result).toMatchObject({ messages: 1, webhooks: 1, simulation_rules: 1 });
    expect(await yard.deliveries()).toEqual([]);
    expect(await yard.messages()).toEqual([]);
    expect((await yard.control.getRules()).data.rules).toEqual([]);
    expect((await yard.service.listWebhooks()).success).toBe(true);
  });
});

describe('the built bundle', () => {
  const OUT = resolve(import.meta.dirname, '../../out/main');
  it.runIf(['index.js', 'testing.js', 'matchers.js'].every((entry) => existsSync(join(OUT, entry))))(
    'loads only runtime dependencies and Node built-ins, never electron',
    () => {
      const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { dependencies: Record<string, string> };
      const seen = new Set<string>();
      const packages = new Set<string>();
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        const code = readFileSync(file, 'utf8');
        for (const m of code.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"'\s]+)["']|\bimport\(\s*["']([^"'\s]+)["']\s*\)/gm)) {
          const spec = (m[1] ?? m[2])!;
          if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
          else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
        }
      };
      for (const entry of ['index.js', 'testing.js', 'matchers.js']) visit(join(OUT, entry));
      const foreign = [...packages].filter((p) => !p.startsWith('node:') && !builtinModules.includes(p) && !(p in pkg.dependencies));
      expect(foreign).toEqual([]);
    },
  );
});

// Last in the file: it runs two more emulators for seconds on a loaded machine, and a request of a later test
// could meet an idle keep-alive socket of the main one just as the server closes it (ECONNRESET).
describe('startMailyard options', () => {
  it('takes an option given as undefined as not given (process.env.X is string | undefined): free ports, memory, a made key', async () => {
    // Two at once: on the defaults of `mailyard serve` (4400, 2525) the second could not start.
    const env: Record<string, string | undefined> = {};
    const options = { httpPort: undefined, smtpPort: undefined, dataDir: env.DATA_DIR, apiKey: env.MAIL_API_KEY, clockStart: undefined, ui: undefined };
    const both = await Promise.all([startMailyard(options), startMailyard(options)]);
    try {
      for (const one of both) {
        expect(one.httpPort).not.toBe(4400);
        expect(one.smtpPort).not.toBe(2525);
        expect(one.dataDir).toBeNull();
        expect(one.apiKey).toMatch(/^\S{8,}$/);
      }
      expect(both[0]!.httpPort).not.toBe(both[1]!.httpPort);
    } finally {
      await Promise.all(both.map((one) => one.stop()));
    }
  });
});
