import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { decodeTime } from 'ulid';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src-main/cli/args';
import { DATABASE_FILE, loadMigrations, migrate } from '../../src-main/core/store/database';
import type { DnsRecord, DomainRecord } from '../../src-shared/schemas/domains';
import { DomainVerificationPayload } from '../../src-shared/schemas/events';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { closedPort, type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** The DKIM public key of a record value (`v=DKIM1; k=rsa; p=...`). */
function dkimKeyOf(value: string) {
  const p = /(?:^|;)\s*p=([^;]*)/.exec(value)![1]!.replace(/\s+/g, '');
  return createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' });
}

const MAILER_ID = /^domain_[0-9A-HJKMNP-TV-Z]{26}$/;
const SPF = 'v=spf1 include:spf.mailyard.test ~all';

/** The three sending records of `domain` as a new domain lists them (the DKIM value is the domain's own key). */
function pendingSending(domain: string, dkimValue: string, selector = 'mailyard') {
  return {
    spf: { key: domain, type: 'TXT', value: SPF, verified: false, status: 'pending' },
    dkim: { key: `${selector}._domainkey.${domain}`, type: 'TXT', value: dkimValue, verified: false, status: 'pending' },
    return_path: { key: `mly-bounces.${domain}`, type: 'CNAME', value: 'bounces.mailyard.test', verified: false, status: 'pending' },
  };
}

/** Every record of a domain with `verified` and `status` as a check left them. */
function checked(records: Record<string, DnsRecord>, verified: boolean, extra: Partial<DnsRecord> = {}) {
  return Object.fromEntries(
    Object.entries(records).map(([name, r]) => [
      name,
      { key: r.key, type: r.type, value: r.value, verified, status: verified ? 'verified' : 'failed', ...extra },
    ]),
  );
}

/** A domain of the default account, through the typed client. */
const add = async (domain: string, extra: Record<string, unknown> = {}) => (await emu.service.addDomain({ domain, ...extra })) as DomainRecord;

describe('domain operations (simulated verification)', () => {
  beforeEach(async () => {
    receiver.requests.length = 0;
    emu = await startEmulator();
  });
  afterEach(() => emu.cleanup());

  it('addDomain (POST /v1/domain/add) answers flat: success, domain, mailer_id, message, verified, the records by name, the part 2.6 fields', async () => {
    const res = await emu.request('POST', '/v1/domain/add', {
      body: { domain: 'Mail.Example.com', custom_args: { team: 'growth' }, ips: ['192.0.2.1', '2001:db8::1'], is_tenant_domain: true },
    });
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/PRIVATE KEY|BEGIN/);
    const d = res.json;
    const dkim = d.sending_records.dkim.value as string;
    expect(d).toEqual({
      success: true,
      domain: 'mail.example.com',
      mailer_id: expect.stringMatching(MAILER_ID),
      message: 'Domain added successfully',
      is_tenant_domain: true,
      verified: false,
      sending_records: pendingSending('mail.example.com', dkim),
      receiving_records: {},
      custom_args: { team: 'growth' },
      is_tenant_subdomain: false,
      shared_with_subaccounts: false,
      ips: ['192.0.2.1', '2001:db8::1'],
      selector: 'mailyard',
      domain_unicode: 'mail.example.com',
      status: 'pending',
      reason: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      verified_at: null,
      checked_at: null,
    });
    // The mailer_id's ULID is taken when the domain is added.
    expect(decodeTime(d.mailer_id.slice('domain_'.length))).toBe(Date.parse(d.created_at));
    expect(dkim).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
    const key = dkimKeyOf(dkim);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);

    // getDomain: the same shape, the same mailer_id.
    const got = await emu.request('GET', '/v1/domain/mail.example.com');
    expect(got.status).toBe(200);
    expect(got.json).toEqual({ ...d, message: 'Domain retrieved successfully' });
    expect(await emu.service.getDomain('MAIL.example.com')).toEqual(got.json);

    // GET /v1/domains: every domain as getDomain shows it, without the answer's own success and message.
    const { success: _s, message: _m, ...domain } = got.json;
    const list = await emu.request('GET', '/v1/domains');
    expect(list.status).toBe(200);
    expect(list.json).toEqual({ success: true, domains: [domain] });
    for (const path of ['/v1/domain/mail.example.com', '/v1/domains', '/emulator/domains']) {
      expect((await emu.request('GET', path)).text, path).not.toMatch(/PRIVATE KEY|BEGIN|dkim_private_key/);
    }
  });

  it('takes the documented body as the docs show it: custom_args of any values, shared_with_subaccounts a boolean', async () => {
    const body = {
      domain: 'mail.yourcompany.com',
      custom_args: { team: 'growth', tier: 2, tags: ['a', 'b'], meta: { owner: 'ann' }, active: true, none: null },
      is_tenant_domain: false,
      is_tenant_subdomain: true,
      selector: 's1',
      ips: ['192.168.1.1', '192.168.1.2'],
      shared_with_subaccounts: true,
    };
    const res = await emu.request('POST', '/v1/domain/add', { body });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ...body, success: true, verified: false, message: 'Domain added successfully' });
    expect((await emu.service.getDomain('mail.yourcompany.com')).custom_args).toEqual(body.custom_args);
  });

  it('takes "selector": "" as a selector not given (the domain guide: one is generated), as a typed client sends it', async () => {
    const res = await emu.request('POST', '/v1/domain/add', { body: { domain: 'typed.example', selector: '' } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.sending_records.dkim.key).toBe('mailyard._domainkey.typed.example');
    expect((await emu.service.getDomain('typed.example')).selector).toBe('mailyard');
  });

  it('gives each domain its own mailer_id and key, and takes a custom selector', async () => {
    const a = await add('a.example');
    const b = await add('b.example', { selector: 'S1-2026' });
    expect(a.mailer_id).not.toBe(b.mailer_id);
    expect(b.selector).toBe('s1-2026');
    expect(b.sending_records.dkim).toMatchObject({ key: 's1-2026._domainkey.b.example', type: 'TXT', value: expect.stringMatching(/^v=DKIM1/) });
    expect(a.sending_records.dkim.value).not.toBe(b.sending_records.dkim.value);
    const list = await emu.service.listDomains();
    expect(list.domains.map((x) => [x.domain, x.mailer_id])).toEqual([
      ['a.example', a.mailer_id],
      ['b.example', b.mailer_id],
    ]);
  });

  it('no longer answers on the old paths (POST /v1/domain, GET /v1/domain, POST /v1/domain/{domain}/verify)', async () => {
    await add('example.com');
    for (const [method, path] of [
      ['POST', '/v1/domain'],
      ['GET', '/v1/domain'],
      ['POST', '/v1/domain/example.com/verify'],
      ['PUT', '/v1/domain/example.com/verify'],
    ] as const) {
      const res = await emu.request(method, path, method === 'GET' ? {} : { body: { domain: 'other.example' } });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json).toEqual({ success: false, error: `Route ${method} ${path} not found` });
    }
    // Nothing was added or verified through them.
    expect((await emu.service.listDomains()).domains.map((d) => [d.domain, d.status])).toEqual([['example.com', 'pending']]);
  });

  it('handles an IDN: stored as punycode, addressed either way', async () => {
    const d = await add('Bücher.de');
    expect(d.domain).toBe('xn--bcher-kva.de');
    expect(d.domain_unicode).toBe('bücher.de');
    expect(d.sending_records.dkim.key).toBe('mailyard._domainkey.xn--bcher-kva.de');
    expect((await emu.service.getDomain('bücher.de')).mailer_id).toBe(d.mailer_id);
    expect((await emu.service.getDomain('xn--bcher-kva.de')).domain).toBe('xn--bcher-kva.de');
    const dup = await emu.request('POST', '/v1/domain/add', { body: { domain: 'xn--bcher-kva.de' } });
    expect(dup.status).toBe(409);
  });

  it.each([
    [{ domain: 'localhost' }, 'domain must have at least two labels (for example example.com)', 'domain'],
    [{ domain: '192.0.2.1' }, 'domain must be a domain name, not an IP address', 'domain'],
    [{ domain: 'a..example.com' }, 'domain must not have an empty label (two dots in a row)', 'domain'],
    [{ domain: 'bad_name.example.com' }, 'domain has an invalid label "bad_name": use letters, digits and hyphens, not at the start or end', 'domain'],
    [{ domain: 'http://example.com' }, 'domain is not a valid domain name (it contains a space or one of / \\ @ : ? # %)', 'domain'],
    [{ domain: '' }, 'domain must not be empty', 'domain'],
    [{ domain: `${'x'.repeat(64)}.com` }, 'domain has a label longer than 63 characters (xxxxxxxxxxxxxxxxxxxx...)', 'domain'],
    [
      { domain: 'example.com', selector: 'bad selector' },
      'selector must be DNS labels of letters, digits and hyphens (for example s1 or mail-2026)',
      'selector',
    ],
    [{ domain: 'example.com', ips: ['999.1.1.1'] }, 'ips.0 must be an IPv4 or IPv6 address', 'ips.0'],
    [{ domain: 'example.com', shared_with_subaccounts: 'yes' }, 'shared_with_subaccounts must be true or false', 'shared_with_subaccounts'],
    [{ domain: 'example.com', shared_with_subaccounts: ['sub-1'] }, 'shared_with_subaccounts must be true or false', 'shared_with_subaccounts'],
    [{ domain: 'example.com', custom_args: { note: 'x'.repeat(1001) } }, 'custom_args.note values must be at most 1000 characters as JSON', 'custom_args.note'],
    [{}, 'domain is required', 'domain'],
    [{ domain: 42 }, 'domain must be a string', 'domain'],
  ])('addDomain refuses %j with 400 {success: false, error, details, fields}', async (body, error, path) => {
    const res = await emu.request('POST', '/v1/domain/add', { body });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, error, details: expect.stringContaining(path), fields: { [path]: expect.any(String) } });
    expect(res.json.records).toBeUndefined();
  });

  it('adds a domain despite an unknown field, and names it in X-Mailyard-Ignored', async () => {
    const res = await emu.request('POST', '/v1/domain/add', { body: { domain: 'example.com', color: 'red' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-mailyard-ignored']).toBe('color');
  });

  it('refuses a duplicate with 409, case-insensitively; another account may add the same name', async () => {
    await add('example.com');
    const dup = await emu.request('POST', '/v1/domain/add', { body: { domain: 'EXAMPLE.com.' } });
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({ success: false, error: 'Domain Already Exists' });

    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    const res = await emu.request('POST', '/v1/domain/add', { body: { domain: 'example.com' }, apiKey: other.api_key });
    expect(res.status).toBe(200);
    expect(res.json.mailer_id).not.toBe((await emu.service.getDomain('example.com')).mailer_id);
  });

  it('answers 404 Domain Not Found (with records {} on get and verify) for an unknown domain, and for another account’s', async () => {
    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    await emu.request('POST', '/v1/domain/add', { body: { domain: 'theirs.example' }, apiKey: other.api_key });
    for (const domain of ['theirs.example', 'nothing.example']) {
      for (const [method, path] of [
        ['GET', `/v1/domain/${domain}`],
        ['PUT', `/v1/domain/verify/${domain}`],
      ] as const) {
        const res = await emu.request(method, path, method === 'GET' ? {} : { body: {} });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.json).toEqual({ success: false, error: 'Domain Not Found', records: {} });
      }
      const del = await emu.request('DELETE', `/v1/domain/${domain}`, { body: {} });
      expect(del.status).toBe(404);
      expect(del.json).toEqual({ success: false, error: 'Domain Not Found' });
    }
    const bad = await emu.request('GET', '/v1/domain/not_a.example');
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({
      success: false,
      error: 'domain has an invalid label "not_a": use letters, digits and hyphens, not at the start or end',
      details: 'One field has a problem: domain: has an invalid label "not_a": use letters, digits and hyphens, not at the start or end',
      fields: { domain: 'has an invalid label "not_a": use letters, digits and hyphens, not at the start or end' },
      records: {},
    });
    const badVerify = await emu.request('PUT', '/v1/domain/verify/localhost', { body: {} });
    expect(badVerify.status).toBe(400);
    expect(badVerify.json).toMatchObject({ success: false, error: 'domain must have at least two labels (for example example.com)', records: {} });
    const noKey = await emu.request('GET', '/v1/domain/x.example', { apiKey: null });
    expect(noKey.status).toBe(401);
    expect(noKey.json).toEqual({ success: false, error: 'Unauthorized', records: {} });
  });

  it('verifyDomain (PUT /v1/domain/verify/{domain}): 200 with every record verified, then delete', async () => {
    const d = await add('example.com');
    const res = await emu.request('PUT', '/v1/domain/verify/example.com', { body: {} });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, message: 'Domain verified successfully', records: checked(d.sending_records, true) });

    const after = await emu.service.getDomain('example.com');
    expect(after).toMatchObject({
      mailer_id: d.mailer_id,
      verified: true,
      status: 'verified',
      reason: null,
      sending_records: checked(d.sending_records, true),
    });
    expect(after.verified_at).toBe(after.checked_at);

    // Without a body and without a Content-Type, as `curl -X PUT` sends it.
    const bare = await emu.request('PUT', '/v1/domain/verify/example.com');
    expect(bare.status).toBe(200);

    const del = await emu.request('DELETE', '/v1/domain/example.com', { body: {} });
    expect(del.json).toEqual({ success: true, message: 'Domain deleted successfully' });
    expect((await emu.request('GET', '/v1/domain/example.com')).status).toBe(404);
    expect((await emu.service.listDomains()).domains).toEqual([]);
  });

  it('verifyDomain: 400 Invalid DNS records with each record’s verified when a record does not check out', async () => {
    const d = await add('example.com');
    await emu.control.setDomainVerification('example.com', { outcome: 'failed', reason: 'SPF record missing' });
    const res = await emu.request('PUT', '/v1/domain/verify/example.com', { body: {} });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      success: false,
      error: 'Invalid DNS records',
      records: checked(d.sending_records, false, { reason: 'SPF record missing' }),
    });
    // The failed check is recorded.
    const after = await emu.service.getDomain('example.com');
    expect(after).toMatchObject({ verified: false, status: 'failed', reason: 'SPF record missing', verified_at: null });
    expect(after.sending_records.spf).toMatchObject({ verified: false, status: 'failed', reason: 'SPF record missing' });
  });

  it('sends a DOMAIN_VERIFICATION notification on each status change, with mailer_id and the records by name', async () => {
    await emu.service.registerWebhook({ webhook_url: receiver.url, event: 'DOMAIN_VERIFICATION', method: 'POST', headers: { 'X-Secret': 's' } });
    const d = await add('example.com');
    const deliveries = async () => (await emu.control.listDeliveries({ category: 'DOMAIN_VERIFICATION' })).data.deliveries;
    const verify = () => emu.request('PUT', '/v1/domain/verify/example.com', { body: {} });
    expect(await deliveries()).toHaveLength(0); // adding is not a change

    expect((await verify()).status).toBe(200); // pending -> verified
    expect((await verify()).status).toBe(200); // verified again: nothing
    expect(await deliveries()).toHaveLength(1);

    const set = await emu.request('PUT', '/emulator/domains/example.com/verification', { body: { outcome: 'failed', reason: 'SPF record missing' } });
    expect(set.status).toBe(200);
    expect(set.json.data).toEqual({ domain: 'example.com', outcome: 'failed', reason: 'SPF record missing', accounts: 1 });
    expect(await deliveries()).toHaveLength(1); // setting the outcome is not a change either

    expect((await verify()).status).toBe(400); // verified -> failed
    expect((await verify()).status).toBe(400); // failed again: nothing
    expect(await deliveries()).toHaveLength(2);

    await emu.control.setDomainVerification('example.com', { outcome: 'verified' });
    expect((await verify()).status).toBe(200); // failed -> verified
    expect(await deliveries()).toHaveLength(3);

    const requests = await receiver.waitFor(3);
    const payloads = requests.map((r) => DomainVerificationPayload.parse(JSON.parse(r.body)));
    expect(payloads.map((p) => [p.previous_status, p.status, p.reason])).toEqual([
      ['pending', 'verified', undefined],
      ['verified', 'failed', 'SPF record missing'],
      ['failed', 'verified', undefined],
    ]);
    expect(JSON.parse(requests[1]!.body)).toEqual({
      event: 'domain_verification',
      timestamp: expect.stringMatching(/Z$/),
      domain: 'example.com',
      status: 'failed',
      previous_status: 'verified',
      mailer_id: d.mailer_id,
      records: checked(d.sending_records, false, { reason: 'SPF record missing' }),
      reason: 'SPF record missing',
    });
    expect(payloads[0]!.records).toEqual(checked(d.sending_records, true));
    expect(requests[0]!.headers['x-secret']).toBe('s');
    expect(requests[0]!.headers['webhook-id']).toBe((await deliveries()).at(-1)!.id);
    const list = await deliveries();
    expect(list.every((x) => x.event === 'domain_verification' && x.category === 'DOMAIN_VERIFICATION')).toBe(true);

    // The UI's view: the domain as getDomain shows it, the outcome setting and the history of checks, newest first.
    const all = (await emu.control.listEmulatorDomains()).data;
    expect(all).toHaveLength(1);
    expect(all[0]!.mailer_id).toBe(d.mailer_id);
    expect(all[0]!.verification).toEqual({ outcome: 'verified', reason: null });
    expect(all[0]!.checks.map((c) => c.status)).toEqual(['verified', 'failed', 'failed', 'verified', 'verified']);
    expect(all[0]!.checks[1]!.records).toEqual(checked(d.sending_records, false, { reason: 'SPF record missing' }));
    expect(all[0]!.account_id).toBe(emu.handle.defaultAccount.id);
  });

  it('lists receiving_records.mx while inbound routing uses the domain', async () => {
    const d = await add('in.example');
    expect(d.receiving_records).toEqual({});
    await emu.service.configureInboundRouting({ domain: 'in.example', url: receiver.url, method: 'POST' });
    const mx = { key: 'in.example', type: 'MX', value: '10 mx.mailyard.test', verified: false, status: 'pending' };
    const routed = await emu.service.getDomain('in.example');
    expect(routed.receiving_records).toEqual({ mx });
    expect(routed.sending_records).toEqual(d.sending_records);
    const v = await emu.request('PUT', '/v1/domain/verify/in.example', { body: {} });
    expect(v.json.records).toEqual(checked({ ...d.sending_records, mx } as Record<string, DnsRecord>, true));
    expect((await emu.service.getDomain('in.example')).receiving_records.mx).toMatchObject({ verified: true, status: 'verified' });
    await emu.request('DELETE', '/v1/inbound/domain/in.example', { body: {} });
    expect((await emu.service.getDomain('in.example')).receiving_records).toEqual({});
  });

  it('sends no notification without a DOMAIN_VERIFICATION webhook', async () => {
    await add('example.com');
    await emu.service.verifyDomain('example.com');
    expect((await emu.control.listDeliveries({})).data.deliveries).toHaveLength(0);
  });

  it('finds an account’s domain by its mailer_id (for a send that names one), and only its own', async () => {
    const d = await add('example.com');
    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    const { domains } = emu.handle.services;
    const own = emu.handle.defaultAccount.id;
    expect(domains.findByMailerId(own, d.mailer_id)).toEqual({ domain: 'example.com', status: 'pending' });
    await emu.service.verifyDomain('example.com');
    expect(domains.findByMailerId(own, d.mailer_id)).toEqual({ domain: 'example.com', status: 'verified' });
    expect(domains.findByMailerId(other.id, d.mailer_id)).toBeUndefined();
    expect(domains.findByMailerId(own, 'domain_01JC3BBW8S9YGX2VNKG5MD7BTA')).toBeUndefined();
    expect(domains.findByMailerId(own, 'mailer_x')).toBeUndefined();
  });

  it('control: 404 for an unknown domain, 400 for a bad body, scoped by account_id', async () => {
    const unknown = await emu.request('PUT', '/emulator/domains/nothing.example/verification', { body: { outcome: 'failed' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toBe('Domain Not Found');
    await add('example.com');
    const bad = await emu.request('PUT', '/emulator/domains/example.com/verification', { body: { outcome: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('outcome must be verified or failed');
    const reasonForVerified = await emu.request('PUT', '/emulator/domains/example.com/verification', { body: { outcome: 'verified', reason: 'x' } });
    expect(reasonForVerified.status).toBe(400);
    expect(reasonForVerified.json.error).toBe('reason is only for outcome failed');

    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    await emu.request('POST', '/v1/domain/add', { body: { domain: 'example.com' }, apiKey: other.api_key });
    const scoped = await emu.control.setDomainVerification('example.com', { outcome: 'failed', account_id: other.id });
    expect(scoped.data.accounts).toBe(1);
    expect(scoped.data.reason).toMatch(/outcome was set to failed/);
    expect((await emu.request('PUT', '/v1/domain/verify/example.com', { body: {} })).status).toBe(200);
    const theirs = await emu.request('PUT', '/v1/domain/verify/example.com', { body: {}, apiKey: other.api_key });
    expect(theirs.status).toBe(400);
    expect(theirs.json.error).toBe('Invalid DNS records');
    expect((await emu.control.setDomainVerification('example.com', { outcome: 'failed' })).data.accounts).toBe(2);
    const wrongAccount = await emu.request('PUT', '/emulator/domains/example.com/verification', { body: { outcome: 'failed', account_id: 'nope' } });
    expect(wrongAccount.status).toBe(404);
  });

  it('lists the domain operations in the OpenAPI document, under the new paths only', async () => {
    const doc = (await emu.request('GET', '/openapi.json')).json;
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(
      expect.arrayContaining(['/v1/domain/add', '/v1/domain/{domain}', '/v1/domain/verify/{domain}', '/v1/domains', '/emulator/domains/{domain}/verification']),
    );
    expect(paths).not.toContain('/v1/domain');
    expect(paths).not.toContain('/v1/domain/{domain}/verify');
    expect(doc.paths['/v1/domain/add'].post.operationId).toBe('addDomain');
    expect(doc.paths['/v1/domain/verify/{domain}'].put.operationId).toBe('verifyDomain');
    expect(doc.paths['/v1/domains'].get.operationId).toBe('listDomains');
    expect(doc.paths['/v1/domain/{domain}'].get.operationId).toBe('getDomain');
    expect(doc.paths['/v1/domain/{domain}'].delete.operationId).toBe('deleteDomain');
  });
});

describe('mailer_id of domains added before it existed', () => {
  it('the migration gives each existing domain one, whose time part is the domain’s created_at, kept from then on', async () => {
    // Two domains as a Mailyard of today stores them...
    const source = await startEmulator();
    const before = new Set<string>();
    let rows: { accounts: Record<string, unknown>[]; domains: Record<string, unknown>[] };
    try {
      for (const domain of ['old.example', 'older.example']) before.add((await source.service.addDomain({ domain })).mailer_id);
      await source.stop();
      const db = new Database(join(source.dataDir, DATABASE_FILE), { readonly: true });
      rows = { accounts: db.prepare('SELECT * FROM accounts').all() as never, domains: db.prepare('SELECT * FROM domains').all() as never };
      db.close();
    } finally {
      await source.cleanup();
    }

    // ...copied into a store at the schema before the migration (version 9: no mailer_id).
    const target = await startEmulator();
    const dir = target.dataDir;
    await target.stop();
    await rm(join(dir, DATABASE_FILE), { force: true });
    for (const suffix of ['-wal', '-shm']) await rm(join(dir, DATABASE_FILE + suffix), { force: true });
    const db = new Database(join(dir, DATABASE_FILE));
    migrate(
      db,
      loadMigrations().filter((m) => m.version < 10),
    );
    for (const table of ['accounts', 'domains'] as const) {
      const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
      expect(columns.includes('mailer_id')).toBe(false);
      const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
      for (const row of rows[table]) insert.run(Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
    }
    db.close();

    const migrated = await startEmulator({}, {}, dir);
    try {
      const domains = (await migrated.service.listDomains()).domains;
      expect(domains.map((d) => d.domain)).toEqual(['old.example', 'older.example']);
      for (const d of domains) {
        expect(d.mailer_id).toMatch(MAILER_ID);
        expect(before.has(d.mailer_id)).toBe(false);
        expect(decodeTime(d.mailer_id.slice('domain_'.length))).toBe(Date.parse(d.created_at));
      }
      expect(domains[0]!.mailer_id).not.toBe(domains[1]!.mailer_id);
      await migrated.stop();
      const again = await startEmulator({}, {}, dir);
      try {
        expect((await again.service.listDomains()).domains.map((d) => d.mailer_id)).toEqual(domains.map((d) => d.mailer_id));
        expect((await again.service.getDomain('old.example')).mailer_id).toBe(domains[0]!.mailer_id);
      } finally {
        await again.stop();
      }
    } finally {
      await migrated.cleanup();
    }
  });
});

describe('the --dns-verification flag', () => {
  it('takes simulated or real, from the flag or MAILYARD_DNS_VERIFICATION', () => {
    expect(parseServeArgs(['--dns-verification', 'real'], {}).config.dnsVerification).toBe('real');
    expect(parseServeArgs([], { MAILYARD_DNS_VERIFICATION: 'simulated' }).config.dnsVerification).toBe('simulated');
    expect(() => parseServeArgs(['--dns-verification', 'maybe'], {})).toThrow('invalid value for --dns-verification: must be simulated or real, got "maybe"');
  });
});

describe('real DNS verification against a local DNS server', () => {
  let dns: TestDnsServer;

  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns.close());
  beforeEach(async () => {
    receiver.requests.length = 0;
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.server]);
    emu = await startEmulator({ dnsVerification: 'real' }, { dnsResolver: resolver });
  });
  afterEach(() => emu.cleanup());

  /** Publishes the records as asked, optionally changing some (null: not published). */
  function publish(d: DomainRecord, change: { spf?: string | null; dkim?: string | null; cname?: string | null } = {}) {
    const { spf, dkim, return_path: cname } = d.sending_records;
    const pick = <T>(v: T | null | undefined, fallback: T) => (v === undefined ? fallback : v);
    const spfValue = pick(change.spf, spf.value);
    const dkimValue = pick(change.dkim, dkim.value);
    const cnameValue = pick(change.cname, cname.value);
    if (spfValue !== null) dns.zone.TXT.set(spf.key, ['google-site-verification=abc', spfValue]);
    if (dkimValue !== null) dns.zone.TXT.set(dkim.key, [dkimValue]);
    if (cnameValue !== null) dns.zone.CNAME.set(cname.key, cnameValue);
  }

  const verify = (domain: string) => emu.request('PUT', `/v1/domain/verify/${domain}`, { body: {} });

  it('verifies when every record is found, and reports what was found', async () => {
    await emu.service.registerWebhook({ webhook_url: receiver.url, event: 'DOMAIN_VERIFICATION', method: 'POST' });
    const d = await add('good.example');
    publish(d);
    const res = await verify('good.example');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      message: 'Domain verified successfully',
      records: {
        spf: { ...d.sending_records.spf, verified: true, status: 'verified', found: ['google-site-verification=abc', SPF] },
        dkim: { ...d.sending_records.dkim, verified: true, status: 'verified', found: [d.sending_records.dkim.value] },
        return_path: { ...d.sending_records.return_path, verified: true, status: 'verified', found: ['bounces.mailyard.test'] },
      },
    });
    expect(await emu.service.getDomain('good.example')).toMatchObject({ verified: true, status: 'verified', reason: null });
    expect(dns.queries.map((q) => `${q.type} ${q.name}`)).toEqual(
      expect.arrayContaining(['TXT good.example', 'TXT mailyard._domainkey.good.example', 'CNAME mly-bounces.good.example']),
    );
    const [req] = await receiver.waitFor(1);
    expect(JSON.parse(req!.body)).toMatchObject({ status: 'verified', previous_status: 'pending', domain: 'good.example', mailer_id: d.mailer_id });
  });

  it('fails with a reason per record when the records are missing', async () => {
    const d = await add('missing.example');
    const res = await verify('missing.example');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      success: false,
      error: 'Invalid DNS records',
      records: {
        spf: { ...d.sending_records.spf, status: 'failed', found: [], reason: 'no TXT record found' },
        dkim: { ...d.sending_records.dkim, status: 'failed', found: [], reason: 'no TXT record found' },
        return_path: { ...d.sending_records.return_path, status: 'failed', found: [], reason: 'no CNAME record found' },
      },
    });
    const after = await emu.service.getDomain('missing.example');
    expect(after.status).toBe('failed');
    expect(after.reason).toBe(
      'TXT missing.example: no TXT record found; TXT mailyard._domainkey.missing.example: no TXT record found; CNAME mly-bounces.missing.example: no CNAME record found',
    );
  });

  it('fails on wrong records: an SPF without the include, another DKIM key, a CNAME elsewhere', async () => {
    const d = await add('wrong.example');
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    publish(d, { spf: 'v=spf1 include:_spf.google.com ~all', dkim: `v=DKIM1; k=rsa; p=${otherKey}`, cname: 'bounces.elsewhere.example' });
    const res = await verify('wrong.example');
    expect(res.status).toBe(400);
    const records = res.json.records as Record<string, DnsRecord>;
    expect(Object.entries(records).map(([name, r]) => [name, r.verified, r.reason])).toEqual([
      ['spf', false, 'the SPF record does not include:spf.mailyard.test'],
      ['dkim', false, 'the DKIM record holds another public key'],
      ['return_path', false, 'the CNAME points to bounces.elsewhere.example, expected bounces.mailyard.test'],
    ]);
    expect(records.dkim!.found).toEqual([`v=DKIM1; k=rsa; p=${otherKey}`]);

    // Fixing the records turns it verified; a failed outcome set through the control API still wins.
    publish(d);
    expect((await verify('wrong.example')).status).toBe(200);
    await emu.control.setDomainVerification('wrong.example', { outcome: 'failed', reason: 'held for review' });
    const held = await verify('wrong.example');
    expect(held.status).toBe(400);
    expect(held.json.records.spf).toMatchObject({ verified: false, reason: 'held for review' });
    expect(await emu.service.getDomain('wrong.example')).toMatchObject({ status: 'failed', reason: 'held for review' });
    const checks = (await emu.control.listEmulatorDomains()).data.find((x) => x.domain === 'wrong.example')!.checks;
    expect(checks.map((c) => [c.mode, c.status])).toEqual([
      ['real', 'failed'],
      ['real', 'verified'],
      ['real', 'failed'],
    ]);
  });

  it('reports a failed lookup per record (no DNS server answering), never a 500', async () => {
    await emu.cleanup();
    const resolver = new Resolver({ timeout: 300, tries: 1 });
    resolver.setServers([`127.0.0.1:${await closedPort()}`]);
    emu = await startEmulator({ dnsVerification: 'real' }, { dnsResolver: resolver });
    await add('nodns.example');
    const res = await verify('nodns.example');
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('Invalid DNS records');
    const records = Object.values(res.json.records as Record<string, DnsRecord>);
    expect(records).toHaveLength(3);
    for (const r of records) {
      expect(r.verified).toBe(false);
      expect(r.reason).toMatch(/^DNS lookup failed \((ECONNREFUSED|ETIMEOUT)\)$/);
    }
  });

  it('checks the MX record when inbound routing uses the domain: found, missing, elsewhere', async () => {
    const d = await add('mx.example');
    publish(d);
    await emu.service.configureInboundRouting({ domain: 'mx.example', url: receiver.url, method: 'POST' });
    const missing = await verify('mx.example');
    expect(missing.status).toBe(400);
    expect(missing.json.records.spf.verified).toBe(true);
    expect(missing.json.records.mx).toEqual({
      key: 'mx.example',
      type: 'MX',
      value: '10 mx.mailyard.test',
      verified: false,
      status: 'failed',
      found: [],
      reason: 'no MX record found',
    });
    expect((await emu.service.getDomain('mx.example')).reason).toBe('MX mx.example: no MX record found');

    dns.zone.MX.set('mx.example', [{ priority: 5, exchange: 'mail.elsewhere.example' }]);
    const elsewhere = await verify('mx.example');
    expect(elsewhere.json.records.mx).toMatchObject({ verified: false, reason: 'the MX records point to 5 mail.elsewhere.example, expected mx.mailyard.test' });

    dns.zone.MX.set('mx.example', [{ priority: 10, exchange: 'mx.mailyard.test' }]);
    const found = await verify('mx.example');
    expect(found.status).toBe(200);
    expect(found.json.records.mx).toMatchObject({ verified: true, found: ['10 mx.mailyard.test'] });
    expect((await emu.service.getDomain('mx.example')).receiving_records.mx).toMatchObject({ verified: true, status: 'verified' });
  });

  it('fails when two SPF records are published', async () => {
    const d = await add('twospf.example');
    publish(d);
    dns.zone.TXT.set('twospf.example', ['v=spf1 include:spf.mailyard.test ~all', 'v=spf1 -all']);
    const res = await verify('twospf.example');
    expect(res.status).toBe(400);
    expect(res.json.records.spf).toMatchObject({ verified: false, reason: 'more than one SPF record found (RFC 7208 allows one; merge them)' });
    expect(res.json.records.dkim.verified).toBe(true);
  });
});

describe('DKIM signing of sent mail', () => {
  let dns: TestDnsServer;
  let resolver: Resolver;

  beforeAll(async () => {
    dns = await startDnsServer();
    resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.server]);
  });
  afterAll(() => dns.close());
  beforeEach(async () => {
    emu = await startEmulator();
    await emu.control.setClock({ speed: 0 });
  });
  afterEach(() => emu.cleanup());

  /** The raw source of the newest captured message (the send's answer is not this file's business). */
  async function newestRaw(on: TestEmulator): Promise<string> {
    const [newest] = (await on.control.listMessages({ limit: 1 })).data.messages;
    // A recipient's copy by its own key (`id`), where the list gives one; else by its ref_id.
    const key = (newest as { id?: string; ref_id: string }).id ?? newest!.ref_id;
    const raw = await on.request('GET', `/emulator/messages/${key}/raw`);
    expect(raw.status).toBe(200);
    return raw.text;
  }

  async function sendFrom(from: string, extra: Record<string, unknown> = {}, apiKey?: string) {
    const res = await emu.request('POST', '/v1/email/send', {
      apiKey,
      body: {
        from: { email: from, name: 'App' },
        to: [{ email: 'delivered@sim.mailyard.test' }, { email: 'ann@example.org' }],
        subject: 'Signed receipt',
        content: [
          { type: 'text/html', value: '<p>Thanks! <a href="https://example.org/x">link</a></p>' },
          { type: 'text/plain', value: 'Thanks!' },
        ],
        ...extra,
      },
    });
    expect(res.status).toBe(200);
    return newestRaw(emu);
  }

  /** mailauth verifies against the records published in the test's DNS server. */
  const verify = (raw: string) => dkimVerify(Buffer.from(raw), { resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT') });

  it('signs mail from a verified domain; the signature verifies against the published key (mailauth)', async () => {
    const d = await add('signed.example', { selector: 's2026' });
    const dkim = d.sending_records.dkim;
    dns.zone.TXT.set(dkim.key, [dkim.value]);

    expect(await sendFrom('app@signed.example')).not.toMatch(/^DKIM-Signature:/im); // pending: not signed
    await emu.service.verifyDomain('signed.example');

    for (const extra of [{}, { settings: { click_tracking: { enable: true }, open_tracking: { enable: true } } }]) {
      const raw = await sendFrom('App@Signed.Example', extra);
      expect(raw).toMatch(/^DKIM-Signature:/m);
      const result = await verify(raw);
      expect(result.results).toHaveLength(1);
      expect(result.results[0]).toMatchObject({ signingDomain: 'signed.example', selector: 's2026', status: { result: 'pass' } });
    }
  });

  it('a signature fails against another key and when the message is altered', async () => {
    const d = await add('signed.example');
    await emu.service.verifyDomain('signed.example');
    const raw = await sendFrom('app@signed.example');
    const dkim = d.sending_records.dkim;
    dns.zone.TXT.set(dkim.key, [dkim.value]);
    const tampered = raw.replace('Thanks!', 'Thanks?');
    // mailauth calls a body that no longer matches its hash "neutral" (RFC 6376 6.3: the signature does not verify).
    expect((await verify(tampered)).results[0]!.status).toMatchObject({ result: 'neutral', comment: 'body hash did not verify' });

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    dns.zone.TXT.set(dkim.key, [`v=DKIM1; k=rsa; p=${other}`]);
    expect((await verify(raw)).results[0]!.status.result).toBe('fail');
  });

  it('keeps domains, keys and status across a restart', async () => {
    const d = await add('kept.example');
    await emu.service.verifyDomain('kept.example');
    await emu.stop();
    const again = await startEmulator({}, {}, emu.dataDir);
    try {
      expect(await again.service.getDomain('kept.example')).toMatchObject({
        mailer_id: d.mailer_id,
        verified: true,
        status: 'verified',
        sending_records: checked(d.sending_records, true),
      });
      const res = await again.request('POST', '/v1/email/send', {
        body: { from: { email: 'app@kept.example' }, to: [{ email: 'ann@example.org' }], subject: 'Hi', content: [{ type: 'text/plain', value: 'Hi' }] },
      });
      expect(res.status).toBe(200);
      const raw = await newestRaw(again);
      expect(raw).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=kept.example;/m);
      dns.zone.TXT.set(d.sending_records.dkim.key, [d.sending_records.dkim.value]);
      expect((await verify(raw)).results[0]!.status.result).toBe('pass');
    } finally {
      await again.stop();
    }
  });

  it('does not sign for a failed domain, another domain, or another account’s verified domain', async () => {
    await add('signed.example');
    await emu.service.verifyDomain('signed.example');
    expect(await sendFrom('app@sub.signed.example')).not.toMatch(/^DKIM-Signature:/im);
    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    expect(await sendFrom('app@signed.example', {}, other.api_key)).not.toMatch(/^DKIM-Signature:/im);
    await emu.control.setDomainVerification('signed.example', { outcome: 'failed' });
    expect((await emu.request('PUT', '/v1/domain/verify/signed.example', { body: {} })).status).toBe(400);
    expect(await sendFrom('app@signed.example')).not.toMatch(/^DKIM-Signature:/im);
  });
});
