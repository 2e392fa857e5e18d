/**
 * What the real service's docs say it refuses and Mailyard takes (docs/warnings.md): by default each
 * is answered 200 with `X-Mailyard-Warning` naming the rule and the service's answer; with
 * `--strict-requests`, the service's refusal.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { ApiError, startMailyard } from '../../src-main/testing/index';
import { ServiceClient } from '../../src-shared/clients';
import { parseWarningHeader } from '../../src-shared/http-client';
import { type RawResponse, startEmulator, type TestEmulator } from '../helpers/emulator';

/** A send the service takes: from a verified domain, with a subject. */
const send = (over: Record<string, unknown> = {}) => ({
  from: { email: 'app@verified.example' },
  to: [{ email: 'ann@example.org' }],
  subject: 'Receipt',
  content: [{ type: 'text/plain', value: 'Thanks' }],
  ...over,
});

const smtpConfig = (port: number, config: Record<string, unknown> = {}) => ({
  name: 'Relay',
  email: 'app@verified.example',
  config_type: 'smtp',
  connection_type: 'basic',
  config: { host: '127.0.0.1', port, secure: 'None', ...config },
});

/** Each rule: a request that breaks it, what the warning says, and the service's refusal. */
const RULES: Array<{ rule: string; request: (emu: TestEmulator) => Promise<RawResponse>; status: number; error: RegExp; field: string }> = [
  {
    rule: 'unverified-sender',
    request: (emu) => emu.request('POST', '/v1/email/send', { body: send({ from: { email: 'app@unverified.example' } }) }),
    status: 403,
    error: /^Unauthorized From Email$/,
    field: 'from.email',
  },
  {
    rule: 'empty-subject',
    request: (emu) => emu.request('POST', '/v1/email/send', { body: send({ subject: '' }) }),
    status: 400,
    error: /^subject is required$/,
    field: 'subject',
  },
  {
    rule: 'attachment-without-type',
    request: (emu) => emu.request('POST', '/v1/email/send', { body: send({ attachments: [{ filename: 'a.txt', content: 'aGk=' }] }) }),
    status: 400,
    error: /^attachments\.0\.type is required/,
    field: 'attachments.0.type',
  },
  {
    rule: 'smtp-without-credentials',
    request: (emu) => emu.request('POST', '/v1/smtpbasic/verify', { body: smtpConfig(emu.handle.ports.smtp!) }),
    status: 400,
    error: /^config\.username is required$/,
    field: 'config.username',
  },
  {
    rule: 'date-without-time',
    request: (emu) => emu.request('GET', '/v1/email/logs?startCreatedAt=2026-11-22'),
    status: 400,
    error: /^startCreatedAt must be an RFC 3339 date-time/,
    field: 'startCreatedAt',
  },
];

/** An emulator whose default account has verified.example verified (the sends below come from it). */
async function startWithVerifiedDomain(options?: Parameters<typeof startEmulator>[0]): Promise<TestEmulator> {
  const emu = await startEmulator(options);
  await emu.service.addDomain({ domain: 'verified.example' });
  const verified = await emu.request('PUT', '/v1/domain/verify/verified.example');
  expect(verified.status, verified.text).toBe(200);
  return emu;
}

describe('by default: taken, with a warning naming the rule and the service’s answer', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startWithVerifiedDomain();
  });
  afterAll(async () => {
    await emu.cleanup();
  });

  it.each(RULES)('$rule', async ({ rule, request, status, error }) => {
    const res = await request(emu);
    expect(res.status, res.text).toBe(200);
    // The first warning (an SMTP configuration without either has two: username, then password).
    const warning = parseWarningHeader(String(res.headers['x-mailyard-warning']))[0]!;
    expect(warning.startsWith(`${rule}: `), warning).toBe(true);
    expect(warning).toContain(`; the real service answers ${status} `);
    expect(warning.slice(warning.indexOf(`answers ${status} `) + `answers ${status} `.length)).toMatch(error);
  });

  it('says nothing of a request the service takes', async () => {
    const res = await emu.request('POST', '/v1/email/send', { body: send({ attachments: [{ filename: 'a.txt', content: 'aGk=', type: 'text/plain' }] }) });
    expect(res.status, res.text).toBe(200);
    expect(res.headers).not.toHaveProperty('x-mailyard-warning');
    const logs = await emu.request('GET', '/v1/email/logs?startCreatedAt=2026-11-22T00:00:00Z');
    expect(logs.headers).not.toHaveProperty('x-mailyard-warning');
  });

  it('tells a typed client through onWarning, each warning apart', async () => {
    const heard: string[][] = [];
    const client = new ServiceClient({ baseUrl: emu.url, apiKey: emu.apiKey, onWarning: (w) => heard.push(w) });
    await client.sendEmail(send({ subject: ' ', from: { email: 'x@elsewhere.example' }, attachments: [{ filename: 'a', content: 'aGk=' }] }) as never);
    expect(heard).toHaveLength(1);
    expect(heard[0]!.map((w) => w.slice(0, w.indexOf(':')))).toEqual(['unverified-sender', 'empty-subject', 'attachment-without-type']);
  });
});

describe('stored with what they concern: a send’s on each of its copies, a mailer’s while it lasts', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startWithVerifiedDomain();
  });
  afterAll(async () => {
    await emu.cleanup();
  });

  const copiesOf = async (refId: string) => (await emu.control.listMessages({ q: refId })).data.messages;

  it('every copy of a send shows the words its answer said; a send without any shows none; /v1 answers keep their fields; the last copy deleted takes them', async () => {
    const res = await emu.request('POST', '/v1/email/send', {
      body: send({ from: { email: 'app@unverified.example' }, subject: '', to: [{ email: 'ann@example.org' }, { email: 'bob@example.org' }] }),
    });
    expect(res.status, res.text).toBe(200);
    const said = parseWarningHeader(String(res.headers['x-mailyard-warning']));
    expect(said.map((w) => w.slice(0, w.indexOf(':')))).toEqual(['unverified-sender', 'empty-subject']);
    const copies = await copiesOf(res.json.ref_id);
    expect(copies).toHaveLength(2);
    for (const copy of copies) expect((await emu.control.getMessage(copy.id)).data.warnings).toEqual(said);

    const clean = await emu.request('POST', '/v1/email/send', { body: send() });
    expect(clean.headers).not.toHaveProperty('x-mailyard-warning');
    const [cleanCopy] = await copiesOf(clean.json.ref_id);
    expect((await emu.control.getMessage(cleanCopy!.id)).data.warnings).toEqual([]);

    // The service's logs answer its documented fields only.
    const logs = await emu.request('GET', `/v1/email/logs?ref_id=${res.json.ref_id}`);
    expect(logs.status, logs.text).toBe(200);
    expect(logs.text).not.toContain('warning');

    const db = new Database(join(emu.dataDir, DATABASE_FILE), { readonly: true });
    try {
      const stored = () => (db.prepare('SELECT COUNT(*) AS n FROM send_warnings WHERE ref_id = ?').get(res.json.ref_id) as { n: number }).n;
      await emu.control.deleteMessage(copies[0]!.id);
      expect((await emu.control.getMessage(copies[1]!.id)).data.warnings).toEqual(said);
      expect(stored()).toBe(1);
      await emu.control.deleteMessage(copies[1]!.id);
      expect(stored()).toBe(0);
      // Only sends with warnings have a row.
      expect((db.prepare('SELECT COUNT(*) AS n FROM send_warnings').get() as { n: number }).n).toBe(0);
    } finally {
      db.close();
    }
  });

  it('an SMTP mailer without a username and password says so in the control API until an update gives them; its /v1 record never does', async () => {
    const created = await emu.request('POST', '/v1/smtpbasic/verify', { body: smtpConfig(emu.handle.ports.smtp!) });
    expect(created.status, created.text).toBe(200);
    const said = parseWarningHeader(String(created.headers['x-mailyard-warning']));
    const id: string = created.json.data.mailer_id;
    expect(created.json.data).not.toHaveProperty('warnings');
    const listed = async () => (await emu.control.listEmulatorMailers()).data.find((m) => m.mailer_id === id)!.warnings;
    expect(await listed()).toEqual(said);
    expect(said).toEqual([
      'smtp-without-credentials: config.username is missing; the real service answers 400 config.username is required',
      'smtp-without-credentials: config.password is missing; the real service answers 400 config.password is required',
    ]);

    await emu.service.updateSMTP({ mailer_id: id, config: { username: 'relay-user' } } as never);
    expect(await listed()).toEqual([said[1]]);
    const got = await emu.request('GET', `/v1/smtp/${id}`);
    expect(got.json.data).not.toHaveProperty('warnings');
    await emu.service.updateSMTP({ mailer_id: id, config: { password: 'relay-pass' } } as never);
    expect(await listed()).toEqual([]);
  });
});

describe('--strict-requests: the service’s refusal', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startWithVerifiedDomain({ strictRequests: true });
  });
  afterAll(async () => {
    await emu.cleanup();
  });

  it.each(RULES)('$rule', async ({ request, status, error, field }) => {
    const res = await request(emu);
    expect(res.status, res.text).toBe(status);
    expect(res.json.error).toMatch(error);
    expect(Object.keys(res.json.fields)).toEqual([field]);
    expect(res.headers).not.toHaveProperty('x-mailyard-warning');
  });

  it('takes the same requests done as the service wants them', async () => {
    expect((await emu.request('POST', '/v1/email/send', { body: send() })).status).toBe(200);
    expect((await emu.request('GET', '/v1/email/logs?startCreatedAt=2026-11-22T00:00:00Z')).status).toBe(200);
  });
});

describe('mailyard/testing: startMailyard({ strict: true })', () => {
  it('fails the code path that sends what the service would refuse, with the service’s answer', async () => {
    await using yard = await startMailyard({ strict: true, ui: false });
    const refused = await yard.service.sendEmail(send({ from: { email: 'app@example.com' }, subject: '' }) as never).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(403);
    expect((refused as ApiError).body.error).toBe('Unauthorized From Email');
    await using loose = await startMailyard({ ui: false });
    expect((await loose.service.sendEmail(send({ from: { email: 'app@example.com' }, subject: '' }) as never)).success).toBe(true);
  });
});
