import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_KEY_FILE } from '../../src-main/core/services/mailers/secret-box';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { closedPort, type Receiver, startReceiver, startSilentTcpServer } from '../helpers/receiver';
import { type RelayTarget, startRelayTarget } from '../helpers/relay-target';

let emu: TestEmulator;
let receiver: Receiver;
let target: RelayTarget;

beforeEach(async () => {
  receiver = await startReceiver();
  target = await startRelayTarget({ user: 'relay-user', pass: 'relay-pass-123', accessToken: (t) => t.startsWith('mya_') });
  emu = await startEmulator();
  await emu.registerEmailWebhook(receiver.url);
});
afterEach(async () => {
  await emu.cleanup();
  await receiver.close();
  await target.close();
});

/** Polls `check` until it returns a value other than undefined (bounded). */
async function until<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const smtpConfig = (over: Record<string, unknown> = {}) => ({
  name: 'Relay',
  email: 'app@example.com',
  config_type: 'smtp',
  connection_type: 'basic',
  config: { host: '127.0.0.1', port: target.port, username: 'relay-user', password: 'relay-pass-123', secure: 'None' },
  ...over,
});

/**
 * An SMTP mailer that points at `port`: configureSMTP saves it only after logging in to the test's
 * server, so it is saved against that one and moved with updateSMTP (which does not connect).
 */
async function mailerAt(client: TestEmulator['service'], port: number, config: Record<string, unknown> = {}) {
  const created = (await client.configureSMTP(smtpConfig() as never)).data;
  return (await client.updateSMTP({ mailer_id: created.mailer_id, config: { port, ...config } } as never)).data;
}

function mail(to: string[], mailerId: string) {
  return {
    from: { email: 'app@example.com', name: 'Example App' },
    to: to.map((email) => ({ email })),
    subject: 'Relayed receipt',
    content: [{ type: 'text/plain', value: 'Thanks!' }],
    mailer_id: mailerId,
  };
}

/** A send's log entries (one per recipient) and its copies as the control API lists them. */
const logsOf = async (refId: string) => (await emu.service.getEmailLogs({ refId })).emailLogs;
const copiesOf = async (refId: string) => (await emu.control.listMessages({ q: refId })).data.messages;

const events = (kind: string) => receiver.requests.map((r) => JSON.parse(r.body)).filter((p) => p.event === kind);

describe('SMTP and IMAP configurations', () => {
  it('configures, reads, updates and deletes them, never returning the password', async () => {
    const created = await emu.request('POST', '/v1/smtpbasic/verify', { body: smtpConfig() });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({
      success: true,
      message: 'SMTP configuration verified and created successfully',
      data: {
        name: 'Relay',
        config_type: 'smtp',
        connection_type: 'basic',
        config: { host: '127.0.0.1', port: target.port, username: 'relay-user', secure: 'None', has_password: true },
        oauth_active: false,
        // Saved after a real login: it is known to work.
        status: 'ok',
        last_error: null,
      },
    });
    expect(created.text).not.toContain('relay-pass-123');
    expect(target.logins).toEqual([{ method: 'PLAIN', user: 'relay-user', ok: true, secure: false }]);
    const id = created.json.data.mailer_id as string;

    const got = await emu.request('GET', `/v1/smtp/${id}`);
    expect(got.json.data.mailer_id).toBe(id);
    expect(got.text).not.toContain('relay-pass-123');
    expect((await emu.request('GET', `/v1/imap/${id}`)).json).toEqual({ success: false, error: 'IMAP Config Not Found' });
    expect((await emu.request('GET', '/v1/smtp/01NOPE')).status).toBe(404);
    const other = await emu.control.createAccount({ name: 'other' });
    expect((await emu.request('GET', `/v1/smtp/${id}`, { apiKey: other.data.api_key })).status).toBe(404);

    const updated = await emu.request('PUT', '/v1/smtp', { body: { mailer_id: id, name: 'Renamed', config: { password: 'changed-pass' } } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.data).toMatchObject({ name: 'Renamed', config: { has_password: true, port: target.port } });
    const cleared = await emu.request('PUT', '/v1/smtp', { body: { mailer_id: id, config: { password: null, username: '' } } });
    expect(cleared.json.data.config).toMatchObject({ has_password: false, username: '' });
    expect((await emu.request('PUT', '/v1/smtp', { body: { mailer_id: '01NOPE', name: 'x' } })).status).toBe(404);
    expect((await emu.service.listSMTPConfigs()).data.map((m) => m.mailer_id)).toEqual([id]);

    expect((await emu.request('DELETE', `/v1/smtp/${id}`)).json).toEqual({ success: true, message: 'SMTP configuration deleted successfully' });
    expect((await emu.request('GET', `/v1/smtp/${id}`)).status).toBe(404);
    expect((await emu.request('DELETE', `/v1/smtp/${id}`)).status).toBe(404);
  });

  it('refuses bad configurations with a 400 naming the field, and an unreachable IMAP webhook with a 422', async () => {
    const cases: Array<[unknown, string, string]> = [
      [smtpConfig({ config_type: 'imap' }), '/v1/smtpbasic/verify', 'config_type'],
      [smtpConfig({ connection_type: 'token' }), '/v1/smtpbasic/verify', 'connection_type'],
      [smtpConfig({ config: { host: '127.0.0.1', port: 70000, secure: 'None' } }), '/v1/smtpbasic/verify', 'config.port'],
      [smtpConfig({ config: { host: '127.0.0.1', port: 25, secure: 'STARTTLS' } }), '/v1/smtpbasic/verify', 'config.secure'],
      [smtpConfig({ config: { host: 'bad host!', port: 25, secure: 'None' } }), '/v1/smtpbasic/verify', 'config.host'],
      [smtpConfig({ email: 'not-an-address' }), '/v1/smtpbasic/verify', 'email'],
      [smtpConfig({ webhook: { url: receiver.url } }), '/v1/smtpbasic/verify', 'webhook'],
      [smtpConfig({ config: { host: '127.0.0.1', port: 25, password: 'p', secure: 'None' } }), '/v1/smtpbasic/verify', 'config.username'],
      [smtpConfig({ connection_type: 'oauth', config: { host: '127.0.0.1', port: 25, secure: 'None' } }), '/v1/smtpbasic/verify', 'config.username'],
      [smtpConfig({ config_type: 'imap', config: { host: '127.0.0.1', port: 143, username: 'u', secure: 'None' } }), '/v1/imap', 'config.password'],
      // An unknown field is no longer refused (API.md part 0: ignored and named in X-Mailyard-Ignored; --strict-requests refuses it).
    ];
    for (const [body, path, field] of cases) {
      const res = await emu.request('POST', path, { body });
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(Object.keys(res.json.fields), res.text).toContain(field);
    }
    const unreachable = await emu.request('POST', '/v1/imap', {
      body: smtpConfig({
        config_type: 'imap',
        config: { host: '127.0.0.1', port: 143, username: 'u', password: 'p', secure: 'None' },
        webhook: { url: `http://127.0.0.1:${await closedPort()}/imap` },
      }),
    });
    expect(unreachable.status).toBe(422);
    expect(unreachable.json.error).toMatch(/^Webhook URL is not reachable: /);
    const noAuth = await emu.request('POST', '/v1/smtpbasic/verify', { body: smtpConfig(), apiKey: null });
    expect(noAuth.status).toBe(401);
    // Refused before any connection; the old create path is gone.
    expect(target.connections).toBe(0);
    expect((await emu.request('POST', '/v1/smtp', { body: smtpConfig() })).status).toBe(404);
    expect((await emu.service.listSMTPConfigs()).data).toEqual([]);
  });

  it('keeps passwords encrypted with a key file (mode 0600) outside the database', async () => {
    await emu.service.configureSMTP(smtpConfig() as never);
    await emu.stop();
    const db = readFileSync(join(emu.dataDir, 'mailyard.db'));
    const wal = (() => {
      try {
        return readFileSync(join(emu.dataDir, 'mailyard.db-wal'));
      } catch {
        return Buffer.alloc(0);
      }
    })();
    expect(db.includes('relay-pass-123')).toBe(false);
    expect(wal.includes('relay-pass-123')).toBe(false);
    const key = statSync(join(emu.dataDir, SECRET_KEY_FILE));
    expect(key.mode & 0o777).toBe(0o600);
  });
});

describe('configureSMTP: POST /v1/smtpbasic/verify saves a configuration only after a real login', () => {
  const verify = (body: unknown) => emu.request('POST', '/v1/smtpbasic/verify', { body });
  const saved = async () => (await emu.service.listSMTPConfigs()).data;

  it('logs in to the server with the given password, then saves the configuration', async () => {
    const res = await verify(smtpConfig());
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({ config: { port: target.port, has_password: true }, status: 'ok', last_error: null });
    expect(target.logins).toEqual([{ method: 'PLAIN', user: 'relay-user', ok: true, secure: false }]);
    expect((await saved()).map((m) => m.mailer_id)).toEqual([res.json.data.mailer_id]);
  });

  it("answers a refused login with 422 and the server's answer, and saves nothing", async () => {
    const res = await verify(
      smtpConfig({ config: { host: '127.0.0.1', port: target.port, username: 'relay-user', password: 'wrong-password', secure: 'None' } }),
    );
    expect(res.status, res.text).toBe(422);
    expect(res.json).toEqual({ success: false, error: '535 5.7.8 Authentication credentials invalid' });
    expect(target.logins).toEqual([{ method: 'PLAIN', user: 'relay-user', ok: false, secure: false }]);
    expect(await saved()).toEqual([]);
  });

  it('answers a server that cannot be connected to with 422 and the connection error, and saves nothing', async () => {
    const port = await closedPort();
    const res = await verify(smtpConfig({ config: { host: '127.0.0.1', port, username: 'relay-user', password: 'relay-pass-123', secure: 'None' } }));
    expect(res.status, res.text).toBe(422);
    expect(res.json.success).toBe(false);
    expect(res.json.error).toMatch(new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
    expect(await saved()).toEqual([]);
  });

  it('TlsWhenAvailable upgrades with STARTTLS when the server offers it and stays plain when it does not; Tls requires it', async () => {
    const withTls = await startRelayTarget({ user: 'relay-user', pass: 'relay-pass-123', starttls: true });
    try {
      const upgraded = await verify(
        smtpConfig({ config: { host: '127.0.0.1', port: withTls.port, username: 'relay-user', password: 'relay-pass-123', secure: 'TlsWhenAvailable' } }),
      );
      expect(upgraded.status, upgraded.text).toBe(200);
      expect(upgraded.json.data.config.secure).toBe('TlsWhenAvailable');
      expect(withTls.logins).toEqual([{ method: 'PLAIN', user: 'relay-user', ok: true, secure: true }]);
      // The relay connects the same way.
      await emu.service.sendEmail(mail(['ann@example.org'], upgraded.json.data.mailer_id) as never);
      await withTls.waitFor(1);
      expect(withTls.logins.at(-1)).toMatchObject({ ok: true, secure: true });
    } finally {
      await withTls.close();
    }

    // The test's own server offers no STARTTLS: the login goes over the plain connection.
    const plain = await verify(
      smtpConfig({ config: { host: '127.0.0.1', port: target.port, username: 'relay-user', password: 'relay-pass-123', secure: 'TlsWhenAvailable' } }),
    );
    expect(plain.status, plain.text).toBe(200);
    expect(target.logins).toEqual([{ method: 'PLAIN', user: 'relay-user', ok: true, secure: false }]);

    const required = await verify(
      smtpConfig({ config: { host: '127.0.0.1', port: target.port, username: 'relay-user', password: 'relay-pass-123', secure: 'Tls' } }),
    );
    expect(required.status, required.text).toBe(422);
    expect(required.json.error).toBe('500 Error: command not recognized (in reply to STARTTLS)');
    expect(target.logins).toHaveLength(1);
    expect((await saved()).map((m) => m.config.secure)).toEqual(['TlsWhenAvailable', 'TlsWhenAvailable']);
  });

  it('with --strict-webhook-urls, refuses a loopback or private server before connecting to it (422 on config.host)', async () => {
    const original = emu;
    // Saved before strict mode was on.
    const before = (await emu.service.configureSMTP(smtpConfig() as never)).data;
    await emu.stop();
    // A name that resolves to a loopback address (the DNS seam), and an IP literal (no DNS).
    emu = await startEmulator({ strictWebhookUrls: true }, { lookup: async (host) => (host === 'relay.internal.test' ? ['127.0.0.1'] : []) }, original.dataDir);
    try {
      for (const [host, why] of [
        ['relay.internal.test', 'relay.internal.test resolves to 127.0.0.1, which is not a public address (strict webhook URLs are on)'],
        ['127.0.0.1', '127.0.0.1 is not a public address (strict webhook URLs are on)'],
      ] as const) {
        const res = await verify(smtpConfig({ config: { host, port: target.port, username: 'relay-user', password: 'relay-pass-123', secure: 'None' } }));
        expect(res.status, res.text).toBe(422);
        expect(res.json).toEqual({ success: false, error: why, details: `One field has a problem: config.host: ${why}`, fields: { 'config.host': why } });
      }
      // An update that moves a configuration to such a host is refused the same way; other updates pass.
      const moved = await emu.request('PUT', '/v1/smtp', { body: { mailer_id: before.mailer_id, config: { host: 'relay.internal.test' } } });
      expect([moved.status, moved.json.fields]).toEqual([422, { 'config.host': expect.stringMatching(/not a public address/) }]);
      expect((await emu.request('PUT', '/v1/smtp', { body: { mailer_id: before.mailer_id, name: 'Renamed' } })).status).toBe(200);
      expect(target.connections).toBe(1);
      expect((await saved()).map((m) => [m.name, m.config.host])).toEqual([['Renamed', '127.0.0.1']]);
    } finally {
      await emu.stop();
      emu = original;
    }
  });
});

describe('SMTP relay', () => {
  it('relays a send through the mailer: accepted gives delivery, a 550 gives smtp_error and the log status failed', async () => {
    const mailer = (await emu.service.configureSMTP(smtpConfig() as never)).data;
    target.refuse.add('nobody@example.org');
    const sent = await emu.service.sendEmail(mail(['ann@example.org', 'nobody@example.org'], mailer.mailer_id) as never);

    const [relayed] = await target.waitFor(1);
    expect(relayed!.to).toEqual(['ann@example.org']);
    expect(relayed!.from).toBe('app@example.com');
    expect(relayed!.user).toBe('relay-user');
    expect(relayed!.raw.toString()).toContain('Subject: Relayed receipt');
    expect(relayed!.raw.toString()).toMatch(/Message-ID: <[0-9A-Z]{26}@mailyard\.local>/);

    await receiver.waitFor(2);
    const delivery = events('delivery')[0];
    expect(delivery).toMatchObject({ ref_id: sent.ref_id, mailer_id: mailer.mailer_id, recipient: { email: 'ann@example.org' } });
    const error = events('smtp_error')[0];
    expect(error).toMatchObject({ ref_id: sent.ref_id, mailer_id: mailer.mailer_id, smtp_code: 550, recipient: { email: 'nobody@example.org' } });
    expect(error.smtp_response).toMatch(/^550 5\.1\.1 <nobody@example\.org>: Recipient address rejected/);

    const logs = await logsOf(sent.ref_id);
    expect(logs.find((l) => l.recipientAddress === 'ann@example.org')).toMatchObject({ status: 'delivered' });
    const refused = logs.find((l) => l.recipientAddress === 'nobody@example.org')!;
    expect(refused.status).toBe('failed');
    expect(Object.keys(refused.track)).toContain('smtp_error');
    // A refused recipient is not the mailer's fault: it stays ok.
    expect((await emu.service.getSMTPConfig(mailer.mailer_id)).data).toMatchObject({ status: 'ok', last_error: null });
  });

  it('retries an unreachable server on the emulator clock, then reports smtp_error (421 4.4.1); the mailer is in error; sends naming no SMTP mailer are refused', async () => {
    const port = await closedPort();
    const mailer = await mailerAt(emu.service, port);
    const sent = await emu.service.sendEmail(mail(['ann@example.org'], mailer.mailer_id) as never);
    const refId = sent.ref_id;
    const statusOf = async () => (await logsOf(refId))[0]!.status;
    // The first attempt fails for now: the message waits, deferred, and nothing is reported yet.
    const record = await until(async () => {
      const m = (await emu.service.getSMTPConfig(mailer.mailer_id)).data;
      return m.status === 'error' ? m : undefined;
    });
    expect(record.last_error).toMatch(/ECONNREFUSED/);
    // Handed on and waiting: `sent` in the log (the copy is deferred).
    await until(async () => ((await statusOf()) === 'sent' ? true : undefined));
    expect(events('smtp_error')).toEqual([]);

    // Four more attempts, each after the schedule's delay (moved through on the clock), then the failure is final.
    const started = (await emu.control.getClock()).data.now_ms;
    await until(async () => {
      if (events('smtp_error').length > 0) return true;
      await emu.control.setClock({ advance_ms: 30 * 60_000 });
      await new Promise((r) => setTimeout(r, 100));
      return undefined;
    }, 15_000);
    expect(events('smtp_error')[0]).toMatchObject({ ref_id: refId, smtp_code: 421 });
    expect(events('smtp_error')[0].smtp_response).toMatch(/^421 4\.4\.1 .*ECONNREFUSED/);
    expect(await statusOf()).toBe('failed');
    // Not before the last delay: 1 + 5 + 15 + 60 minutes after the first attempt.
    expect(Date.parse(events('smtp_error')[0].timestamp) - started).toBeGreaterThanOrEqual(81 * 60_000);

    const unknown = await emu.request('POST', '/v1/email/send', { body: mail(['ann@example.org'], '01UNKNOWN') });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.json.fields)[0]).toBe('mailer_id');
  });

  it('retries a recipient the server greylists (451) after a minute on the emulator clock, and the message is delivered', async () => {
    await emu.control.setClock({ speed: 0 });
    const mailer = (await emu.service.configureSMTP(smtpConfig() as never)).data;
    target.tempfail.set('ann@example.org', 1);
    const announced: string[] = [];
    emu.handle.live.on('message.updated', (u) => announced.push(`${u.event}:${u.status}`));
    const sent = await emu.service.sendEmail(mail(['ann@example.org'], mailer.mailer_id) as never);
    const refId = sent.ref_id;
    const log = async () => (await logsOf(refId))[0]!;

    // Handed on and waiting: `sent` in the log, announced as relay_deferred.
    await until(async () => (announced.length > 0 ? true : undefined));
    expect((await log()).status).toBe('sent');
    expect(target.received).toEqual([]);
    expect(announced).toEqual(['relay_deferred:sent']);
    // The message says why it waits, and until when.
    const now = (await emu.control.getClock()).data.now_ms;
    const copyId = (await copiesOf(refId))[0]!.id;
    const waiting = (await emu.control.getMessage(copyId)).data.relay!;
    expect(waiting).toMatchObject({ mailer_id: mailer.mailer_id, attempts: 1 });
    expect(waiting.last_reply).toMatch(/^451 4\.7\.1 <ann@example\.org>: Recipient address rejected: Greylisted/);
    expect(Date.parse(waiting.next_attempt_at) - now).toBeGreaterThan(55_000);
    expect(Date.parse(waiting.next_attempt_at) - now).toBeLessThanOrEqual(60_000);
    // A refused recipient is not the mailer's fault, even for now.
    expect((await emu.service.getSMTPConfig(mailer.mailer_id)).data).toMatchObject({ status: 'ok', last_error: null });

    // Not before its minute is up.
    await emu.control.setClock({ advance_ms: 59_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(target.received).toEqual([]);
    await emu.control.setClock({ advance_ms: 1_000 });
    const [relayed] = await target.waitFor(1);
    expect(relayed!.to).toEqual(['ann@example.org']);
    await receiver.waitFor(1);
    expect(events('delivery')[0]).toMatchObject({ ref_id: refId, mailer_id: mailer.mailer_id });
    const delivered = await log();
    expect(delivered.status).toBe('delivered');
    expect(Object.keys(delivered.track)).toContain('delivery');
    expect(events('smtp_error')).toEqual([]);
    expect((await emu.control.getMessage(copyId)).data.relay).toBeNull();
  });

  it('releases a captured message byte for byte to real recipients through an SMTP mailer, without touching its log', async () => {
    await emu.control.setClock({ speed: 0 });
    const mailer = (await emu.service.configureSMTP(smtpConfig() as never)).data;
    // Captured by the SMTP sink, as an application sends it: never relayed by itself.
    await nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true }).sendMail({
      from: 'Shop <shop@example.com>',
      to: 'customer@example.net',
      subject: 'Release me',
      text: 'Captured first.',
      html: '<p>Captured <b>first</b>.</p>',
    });
    const captured = await until(async () => (await emu.control.listMessages({ q: 'Release me' })).data.messages[0]);
    const raw = Buffer.from(await (await fetch(`${emu.url}/emulator/messages/${captured.id}/raw`)).arrayBuffer());
    const before = (await emu.control.getMessage(captured.id)).data;

    const released = await emu.control.releaseMessage(captured.id, { mailer_id: mailer.mailer_id, to: ['me@example.org', 'qa@example.org'] });
    expect(released.message).toBe('Released to me@example.org, qa@example.org');
    expect(released.data).toMatchObject({
      ok: true,
      mailer_id: mailer.mailer_id,
      accepted: ['me@example.org', 'qa@example.org'],
      rejected: [],
      smtp_code: 250,
    });
    expect(released.data.smtp_response).toMatch(/^250 2\.0\.0 Ok: queued as RELAY1/);
    const [got] = await target.waitFor(1);
    expect(got).toMatchObject({ from: 'shop@example.com', to: ['me@example.org', 'qa@example.org'], user: 'relay-user' });
    expect(got!.raw.equals(raw)).toBe(true);

    // Its own recipient by default; a refusal comes back as the server said it.
    target.refuse.add('customer@example.net');
    const refused = await emu.control.releaseMessage(captured.id, { mailer_id: mailer.mailer_id });
    expect(refused.data).toMatchObject({ ok: false, accepted: [], rejected: ['customer@example.net'], smtp_code: 550 });
    expect(refused.message).toMatch(/^The SMTP server did not take the message: 550 5\.1\.1 <customer@example\.net>/);
    // A developer's action: the log, the events and the webhook stay as they were.
    expect((await emu.control.getMessage(captured.id)).data).toEqual(before);
    expect(receiver.requests).toEqual([]);

    // Clear answers for what cannot be released.
    const unknown = await emu.request('POST', `/emulator/messages/${captured.id}/release`, { body: { mailer_id: '01JDNOSUCHMAILER0000000000' } });
    expect([unknown.status, unknown.json.error]).toEqual([400, 'mailer_id names no SMTP mailer']);
    const badTo = await emu.request('POST', `/emulator/messages/${captured.id}/release`, { body: { mailer_id: mailer.mailer_id, to: ['nope'] } });
    expect([badTo.status, Object.keys(badTo.json.fields)[0]]).toEqual([400, 'to.0']);
    const missing = await emu.request('POST', '/emulator/messages/01JDNOSUCHMESSAGE000000000/release', { body: { mailer_id: mailer.mailer_id } });
    expect([missing.status, missing.json.error]).toEqual([404, 'Message Not Found']);
  });

  it('tests a configuration against the real server: login accepted, wrong password, unreachable', async () => {
    const good = (await emu.service.configureSMTP(smtpConfig() as never)).data;
    const okResult = await emu.control.testMailer(good.mailer_id);
    expect(okResult.data).toMatchObject({ ok: true, mailer: { status: 'ok' } });
    expect(target.logins.at(-1)).toMatchObject({ user: 'relay-user', ok: true });

    const wrong = await mailerAt(emu.service, target.port, { password: 'nope' });
    const failed = await emu.control.testMailer(wrong.mailer_id);
    expect(failed.data.ok).toBe(false);
    expect(failed.data.message).toMatch(/^535 /);
    expect(failed.data.mailer).toMatchObject({ status: 'error' });

    const down = await mailerAt(emu.service, await closedPort());
    expect((await emu.control.testMailer(down.mailer_id)).data).toMatchObject({ ok: false });
    expect((await emu.request('POST', '/emulator/mailers/01NOPE/test', { body: {} })).status).toBe(404);
  });
});

describe('SMTP relay across a restart', () => {
  it('keeps a message whose relay was cut short by a shutdown and relays it on the next start', async () => {
    const silent = await startSilentTcpServer();
    const original = emu;
    await emu.stop();
    const first = await startEmulator({ shutdownGraceMs: 200 }, {}, emu.dataDir);
    const mailer = await mailerAt(first.service, silent.port);
    const sent = await first.service.sendEmail(mail(['ann@example.org'], mailer.mailer_id) as never);
    await new Promise((r) => setTimeout(r, 200));
    await first.stop();
    await silent.close();

    const back = await startRelayTarget({ user: 'relay-user', pass: 'relay-pass-123', port: silent.port });
    emu = await startEmulator({}, {}, first.dataDir);
    try {
      const [relayed] = await back.waitFor(1);
      expect(relayed!.to).toEqual(['ann@example.org']);
      const log = await until(async () => {
        const l = (await logsOf(sent.ref_id))[0];
        return l?.status === 'delivered' ? l : undefined;
      });
      expect(Object.keys(log.track)).toContain('delivery');
      expect(Object.keys(log.track)).not.toContain('smtp_error');
    } finally {
      await back.close();
      await emu.stop();
      // afterEach removes the data directory through the emulator that made it.
      emu = original;
    }
  });
});

describe('OAuth (the emulator as its own offline authorization server)', () => {
  it('runs the authorization-code flow through the consent page with a real client following redirects, then relays with XOAUTH2', async () => {
    const mailer = (
      await emu.service.configureSMTP(
        smtpConfig({ connection_type: 'oauth', config: { host: '127.0.0.1', port: target.port, username: 'relay-user', secure: 'None' } }) as never,
      )
    ).data;
    expect(mailer.oauth).toEqual({ has_token: false, app_id: null, token_type: null, scope: null, expires_at: null });
    const redirectUri = receiver.url.replace('/hooks', '/oauth/callback');
    const login = await emu.service.oauthLogin({ app_id: 'my-app', redirect_uri: redirectUri, mailer_id: mailer.mailer_id, type: 'smtp', state: 'client-42' });
    expect(Object.keys(login).sort()).toEqual(['success', 'url']);
    const authorizationUrl = login.url;
    const state = new URL(authorizationUrl).searchParams.get('state')!;
    expect(authorizationUrl.startsWith(`${emu.url}/oauth/authorize?`)).toBe(true);

    // The consent page: plain HTML, no API key, no JSON guard.
    const consent = await fetch(authorizationUrl);
    expect(consent.status).toBe(200);
    expect(consent.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await consent.text();
    expect(html).toContain('my-app');
    expect(html).toContain('Relay');

    // Approving posts the form; the client follows the 302 to redirect_uri with code and state.
    const before = receiver.requests.length;
    const approved = await fetch(`${emu.url}/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams({ state, decision: 'approve' }),
      redirect: 'follow',
    });
    expect(approved.status).toBe(200);
    expect(approved.redirected).toBe(true);
    const callback = new URL(receiver.requests[before]!.url, receiver.url);
    expect(callback.pathname).toBe('/oauth/callback');
    // The redirect carries the client's own state back.
    expect(callback.searchParams.get('state')).toBe('client-42');
    const code = callback.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    // The page cannot be answered twice.
    expect((await fetch(`${emu.url}/oauth/authorize`, { method: 'POST', body: new URLSearchParams({ state, decision: 'approve' }) })).status).toBe(400);

    const stored = (await emu.service.getSMTPConfig(mailer.mailer_id)).data;
    expect(stored).toMatchObject({ oauth_active: true, oauth: { has_token: true, app_id: 'my-app', scope: 'mail.send' } });
    expect(JSON.stringify(stored)).not.toContain('mya_');

    await emu.service.sendEmail(mail(['ann@example.org'], mailer.mailer_id) as never);
    const [relayed] = await target.waitFor(1);
    expect(relayed!.method).toBe('XOAUTH2');
    expect(relayed!.user).toBe('relay-user');

    const off = await emu.service.setOAuthActive({ mailer_id: mailer.mailer_id, active: false });
    expect(off).toMatchObject({ message: 'OAuth deactivated', data: { mailer_id: mailer.mailer_id, oauth_active: false } });
    expect((await emu.request('POST', '/v1/oauth/active', { body: { mailer_id: '01NOPE' } })).status).toBe(404);
  });

  it('without redirect_uri the emulator finishes the login itself; denying stores nothing; tokens from elsewhere are stored as given', async () => {
    const mailer = (await emu.service.configureSMTP(smtpConfig() as never)).data;
    const stateOf = (url: string) => new URL(url).searchParams.get('state')!;
    const first = stateOf((await emu.service.oauthLogin({ app_id: 'ui', mailer_id: mailer.mailer_id })).url);
    const denied = await fetch(`${emu.url}/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams({ state: first, decision: 'deny' }),
      redirect: 'manual',
    });
    expect(denied.status).toBe(302);
    const deniedTo = new URL(denied.headers.get('location')!);
    expect(deniedTo.searchParams.get('error')).toBe('access_denied');
    expect((await emu.service.getSMTPConfig(mailer.mailer_id)).data.oauth_active).toBe(false);

    const second = stateOf((await emu.service.oauthLogin({ app_id: 'ui', mailer_id: mailer.mailer_id })).url);
    const done = await fetch(`${emu.url}/oauth/authorize`, { method: 'POST', body: new URLSearchParams({ state: second, decision: 'approve' }) });
    expect(done.status).toBe(200);
    expect(new URL(done.url).pathname).toBe('/oauth/callback');
    expect(await done.text()).toContain('Login successful');
    expect((await emu.service.getSMTPConfig(mailer.mailer_id)).data).toMatchObject({ oauth_active: true, oauth: { has_token: true, app_id: 'ui' } });

    // Without a mailer, approval stores nothing and the page says so.
    const bare = stateOf((await emu.service.oauthLogin({ app_id: 'cli', type: 'smtp' })).url);
    const shown = await fetch(`${emu.url}/oauth/authorize`, { method: 'POST', body: new URLSearchParams({ state: bare, decision: 'approve' }) });
    expect(await shown.text()).toContain('no token was stored');

    // exchange_token with a token obtained elsewhere: stored at once.
    const given = await emu.service.oauthLogin({
      app_id: 'ext',
      mailer_id: mailer.mailer_id,
      exchange_token: true,
      token: { access_token: 'ya29.external', refresh_token: '1//r', expires_in: 60 },
    });
    expect(given.success).toBe(true);
    expect((await emu.service.getSMTPConfig(mailer.mailer_id)).data).toMatchObject({
      oauth_active: true,
      oauth: { has_token: true, app_id: 'ext', token_type: 'Bearer' },
    });
    expect(
      Object.keys((await emu.request('POST', '/v1/oauth/login', { body: { app_id: 'ext', exchange_token: true, token: { access_token: 'x' } } })).json.fields),
    ).toContain('token.refresh_token');
    expect(
      Object.keys((await emu.request('POST', '/v1/oauth/login', { body: { app_id: 'ext', mailer_id: mailer.mailer_id, type: 'imap' } })).json.fields)[0],
    ).toBe('type');
    expect((await fetch(`${emu.url}/oauth/authorize?state=unknown-state-value-123`)).status).toBe(400);
  });
});
