import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src-main/cli/args';
import type { DomainRecord } from '../../src-shared/schemas/domains';
import { DomainVerificationPayload } from '../../src-shared/schemas/events';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { closedPort, startReceiver, type Receiver } from '../helpers/receiver';

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

const byType = (d: DomainRecord, host: string) => d.dns_records.find((r) => r.host === host)!;

describe('domain operations (simulated verification)', () => {
  beforeEach(async () => {
    receiver.requests.length = 0;
    emu = await startEmulator();
  });
  afterEach(() => emu.cleanup());

  it('adds a domain: pending, with SPF, DKIM (a real RSA-2048 key) and return-path records, no private key', async () => {
    const res = await emu.request('POST', '/v1/domain', {
      body: { domain: 'Mail.Example.com', custom_args: { team: 'growth' }, ips: ['192.0.2.1', '2001:db8::1'], is_tenant_domain: true },
    });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe('Domain added successfully');
    expect(res.text).not.toMatch(/PRIVATE KEY|BEGIN/);
    const d = res.json.data as DomainRecord;
    expect(d).toMatchObject({
      domain: 'mail.example.com',
      domain_unicode: 'mail.example.com',
      status: 'pending',
      reason: null,
      selector: 'mailyard',
      custom_args: { team: 'growth' },
      ips: ['192.0.2.1', '2001:db8::1'],
      is_tenant_domain: true,
      is_tenant_subdomain: false,
      shared_with_subaccounts: false,
      verified_at: null,
      checked_at: null,
    });
    expect(d.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(d.dns_records.map((r) => [r.type, r.host, r.status])).toEqual([
      ['TXT', 'mail.example.com', 'pending'],
      ['TXT', 'mailyard._domainkey.mail.example.com', 'pending'],
      ['CNAME', 'mly-bounces.mail.example.com', 'pending'],
    ]);
    expect(d.dns_records[0]!.value).toBe('v=spf1 include:spf.mailyard.test ~all');
    expect(d.dns_records[2]!.value).toBe('bounces.mailyard.test');
    const dkim = d.dns_records[1]!.value;
    expect(dkim).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
    const key = dkimKeyOf(dkim);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);

    const got = await emu.service.getDomain('mail.example.com');
    expect(got.data).toEqual(d);
    for (const path of ['/v1/domain/mail.example.com', '/v1/domain', '/emulator/domains']) {
      expect((await emu.request('GET', path)).text, path).not.toMatch(/PRIVATE KEY|BEGIN|dkim_private_key/);
    }
    expect((await emu.service.listDomains()).data.map((x) => x.domain)).toEqual(['mail.example.com']);
  });

  it('generates a different key per domain and takes a custom selector', async () => {
    const a = (await emu.service.addDomain({ domain: 'a.example' })).data;
    const b = (await emu.service.addDomain({ domain: 'b.example', selector: 'S1-2026' })).data;
    expect(byType(b, 's1-2026._domainkey.b.example').value).toMatch(/^v=DKIM1/);
    expect(a.dns_records[1]!.value).not.toBe(b.dns_records[1]!.value);
  });

  it('handles an IDN: stored as punycode, addressed either way', async () => {
    const d = (await emu.service.addDomain({ domain: 'Bücher.de' })).data;
    expect(d.domain).toBe('xn--bcher-kva.de');
    expect(d.domain_unicode).toBe('bücher.de');
    expect(d.dns_records[1]!.host).toBe('mailyard._domainkey.xn--bcher-kva.de');
    expect((await emu.service.getDomain('bücher.de')).data.domain).toBe('xn--bcher-kva.de');
    expect((await emu.service.getDomain('xn--bcher-kva.de')).data.domain).toBe('xn--bcher-kva.de');
    const dup = await emu.request('POST', '/v1/domain', { body: { domain: 'xn--bcher-kva.de' } });
    expect(dup.status).toBe(409);
  });

  it.each([
    [{ domain: 'localhost' }, 'domain must have at least two labels (for example example.com)'],
    [{ domain: '192.0.2.1' }, 'domain must be a domain name, not an IP address'],
    [{ domain: 'a..example.com' }, 'domain must not have an empty label (two dots in a row)'],
    [{ domain: 'bad_name.example.com' }, 'domain has an invalid label "bad_name": use letters, digits and hyphens, not at the start or end'],
    [{ domain: 'http://example.com' }, 'domain is not a valid domain name (it contains a space or one of / \\ @ : ? # %)'],
    [{ domain: '' }, 'domain must not be empty'],
    [{ domain: `${'x'.repeat(64)}.com` }, 'domain has a label longer than 63 characters (xxxxxxxxxxxxxxxxxxxx...)'],
    [{ domain: 'example.com', selector: 'bad selector' }, 'selector must be DNS labels of letters, digits and hyphens (for example s1 or mail-2026)'],
    [{ domain: 'example.com', ips: ['999.1.1.1'] }, 'ips.0 must be an IPv4 or IPv6 address'],
    [{ domain: 'example.com', shared_with_subaccounts: 'yes' }, 'shared_with_subaccounts must be true, false or a list of subaccount ids'],
    [{ domain: 'example.com', color: 'red' }, 'color is not a known field'],
    [{}, 'domain is required'],
    [{ domain: 42 }, 'domain must be a string'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await emu.request('POST', '/v1/domain', { body });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, message });
  });

  it('refuses a duplicate with 409, case-insensitively; another account may add the same name', async () => {
    await emu.service.addDomain({ domain: 'example.com' });
    const dup = await emu.request('POST', '/v1/domain', { body: { domain: 'EXAMPLE.com.' } });
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({ success: false, error: 'Domain Already Exists' });

    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    const res = await emu.request('POST', '/v1/domain', { body: { domain: 'example.com' }, apiKey: other.api_key });
    expect(res.status).toBe(200);
  });

  it('answers 404 Domain Not Found for an unknown domain, and for another account’s', async () => {
    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    await emu.request('POST', '/v1/domain', { body: { domain: 'theirs.example' }, apiKey: other.api_key });
    for (const [method, path] of [
      ['GET', '/v1/domain/theirs.example'],
      ['POST', '/v1/domain/theirs.example/verify'],
      ['DELETE', '/v1/domain/theirs.example'],
      ['GET', '/v1/domain/nothing.example'],
    ] as const) {
      const res = await emu.request(method, path, method === 'GET' ? {} : { body: {} });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json).toEqual({ success: false, error: 'Domain Not Found' });
    }
    const bad = await emu.request('GET', '/v1/domain/not_a_domain');
    expect(bad.status).toBe(400);
    expect((await emu.request('GET', '/v1/domain/x.example', { apiKey: null })).status).toBe(401);
  });

  it('verifies (verified by default), then deletes', async () => {
    await emu.service.addDomain({ domain: 'example.com' });
    const res = await emu.request('POST', '/v1/domain/example.com/verify', { body: {} });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe('Domain verified successfully');
    const d = res.json.data as DomainRecord;
    expect(d.status).toBe('verified');
    expect(d.verified_at).toBe(d.checked_at);
    expect(d.dns_records.every((r) => r.status === 'verified')).toBe(true);

    const del = await emu.request('DELETE', '/v1/domain/example.com', { body: {} });
    expect(del.json).toEqual({ success: true, message: 'Domain deleted successfully' });
    expect((await emu.request('GET', '/v1/domain/example.com')).status).toBe(404);
    expect((await emu.request('DELETE', '/v1/domain/example.com', { body: {} })).status).toBe(404);
  });

  it('sends a DOMAIN_VERIFICATION notification on each status change and only on a change', async () => {
    await emu.service.registerWebhook({ webhook_url: receiver.url, event: 'DOMAIN_VERIFICATION', method: 'POST', headers: { 'X-Secret': 's' } });
    await emu.service.addDomain({ domain: 'example.com' });
    const deliveries = async () => (await emu.control.listDeliveries({ category: 'DOMAIN_VERIFICATION' })).data.deliveries;
    expect(await deliveries()).toHaveLength(0); // adding is not a change

    await emu.service.verifyDomain('example.com'); // pending -> verified
    await emu.service.verifyDomain('example.com'); // verified again: nothing
    expect(await deliveries()).toHaveLength(1);

    const set = await emu.request('PUT', '/emulator/domains/example.com/verification', { body: { outcome: 'failed', reason: 'SPF record missing' } });
    expect(set.status).toBe(200);
    expect(set.json.data).toEqual({ domain: 'example.com', outcome: 'failed', reason: 'SPF record missing', accounts: 1 });
    expect(await deliveries()).toHaveLength(1); // setting the outcome is not a change either

    const failed = await emu.service.verifyDomain('example.com'); // verified -> failed
    expect(failed.message).toBe('Domain verification failed: SPF record missing');
    expect(failed.data).toMatchObject({ status: 'failed', reason: 'SPF record missing', verified_at: null });
    expect(failed.data.dns_records.every((r) => r.status === 'failed' && r.reason === 'SPF record missing')).toBe(true);
    await emu.service.verifyDomain('example.com'); // failed again: nothing
    expect(await deliveries()).toHaveLength(2);

    await emu.control.setDomainVerification('example.com', { outcome: 'verified' });
    await emu.service.verifyDomain('example.com'); // failed -> verified
    expect(await deliveries()).toHaveLength(3);

    const requests = await receiver.waitFor(3);
    const payloads = requests.map((r) => DomainVerificationPayload.parse(JSON.parse(r.body)));
    expect(payloads.map((p) => [p.previous_status, p.status, p.reason])).toEqual([
      ['pending', 'verified', undefined],
      ['verified', 'failed', 'SPF record missing'],
      ['failed', 'verified', undefined],
    ]);
    expect(payloads[0]).toMatchObject({ event: 'domain_verification', domain: 'example.com' });
    expect(payloads[1]!.records).toEqual([
      { type: 'TXT', host: 'example.com', status: 'failed' },
      { type: 'TXT', host: 'mailyard._domainkey.example.com', status: 'failed' },
      { type: 'CNAME', host: 'mly-bounces.example.com', status: 'failed' },
    ]);
    expect(requests[0]!.headers['x-secret']).toBe('s');
    expect(requests[0]!.headers['webhook-id']).toBe((await deliveries()).at(-1)!.id);
    const list = await deliveries();
    expect(list.every((d) => d.event === 'domain_verification' && d.category === 'DOMAIN_VERIFICATION')).toBe(true);

    // The UI's view: the outcome setting and the history of checks, newest first.
    const all = (await emu.control.listEmulatorDomains()).data;
    expect(all).toHaveLength(1);
    expect(all[0]!.verification).toEqual({ outcome: 'verified', reason: null });
    expect(all[0]!.checks.map((c) => c.status)).toEqual(['verified', 'failed', 'failed', 'verified', 'verified']);
    expect(all[0]!.account_id).toBe(emu.handle.defaultAccount.id);
  });

  it('lists an MX record while inbound routing uses the domain', async () => {
    await emu.service.addDomain({ domain: 'in.example' });
    expect((await emu.service.getDomain('in.example')).data.dns_records.map((r) => r.type)).toEqual(['TXT', 'TXT', 'CNAME']);
    await emu.service.configureInboundRouting({ domain: 'in.example', url: receiver.url, method: 'POST' });
    const d = (await emu.service.getDomain('in.example')).data;
    expect(d.dns_records[3]).toEqual({ type: 'MX', host: 'in.example', value: '10 mx.mailyard.test', status: 'pending' });
    const v = (await emu.service.verifyDomain('in.example')).data;
    expect(v.dns_records.map((r) => [r.type, r.status])).toEqual([
      ['TXT', 'verified'],
      ['TXT', 'verified'],
      ['CNAME', 'verified'],
      ['MX', 'verified'],
    ]);
    await emu.request('DELETE', '/v1/inbound/domain/in.example', { body: {} });
    expect((await emu.service.getDomain('in.example')).data.dns_records.map((r) => r.type)).toEqual(['TXT', 'TXT', 'CNAME']);
  });

  it('sends no notification without a DOMAIN_VERIFICATION webhook', async () => {
    await emu.service.addDomain({ domain: 'example.com' });
    await emu.service.verifyDomain('example.com');
    expect((await emu.control.listDeliveries({})).data.deliveries).toHaveLength(0);
  });

  it('control: 404 for an unknown domain, 400 for a bad body, scoped by account_id', async () => {
    const unknown = await emu.request('PUT', '/emulator/domains/nothing.example/verification', { body: { outcome: 'failed' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toBe('Domain Not Found');
    await emu.service.addDomain({ domain: 'example.com' });
    const bad = await emu.request('PUT', '/emulator/domains/example.com/verification', { body: { outcome: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('outcome must be verified or failed');
    const reasonForVerified = await emu.request('PUT', '/emulator/domains/example.com/verification', { body: { outcome: 'verified', reason: 'x' } });
    expect(reasonForVerified.status).toBe(400);
    expect(reasonForVerified.json.error).toBe('reason is only for outcome failed');

    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    await emu.request('POST', '/v1/domain', { body: { domain: 'example.com' }, apiKey: other.api_key });
    const scoped = await emu.control.setDomainVerification('example.com', { outcome: 'failed', account_id: other.id });
    expect(scoped.data.accounts).toBe(1);
    expect(scoped.data.reason).toMatch(/outcome was set to failed/);
    expect((await emu.service.verifyDomain('example.com')).data.status).toBe('verified');
    const theirs = await emu.request('POST', '/v1/domain/example.com/verify', { body: {}, apiKey: other.api_key });
    expect(theirs.json.data.status).toBe('failed');
    expect((await emu.control.setDomainVerification('example.com', { outcome: 'failed' })).data.accounts).toBe(2);
    const wrongAccount = await emu.request('PUT', '/emulator/domains/example.com/verification', { body: { outcome: 'failed', account_id: 'nope' } });
    expect(wrongAccount.status).toBe(404);
  });

  it('lists the domain operations in the OpenAPI document', async () => {
    const doc = (await emu.request('GET', '/openapi.json')).json;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/domain', '/v1/domain/{domain}', '/v1/domain/{domain}/verify', '/emulator/domains/{domain}/verification']),
    );
    expect(doc.paths['/v1/domain/{domain}/verify'].post.operationId).toBe('verifyDomain');
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

  /** Publishes the records as asked, optionally changing some. */
  function publish(d: DomainRecord, change: { spf?: string | null; dkim?: string | null; cname?: string | null } = {}) {
    const [spf, dkim, cname] = d.dns_records;
    const pick = <T>(v: T | null | undefined, fallback: T) => (v === undefined ? fallback : v);
    const spfValue = pick(change.spf, spf!.value);
    const dkimValue = pick(change.dkim, dkim!.value);
    const cnameValue = pick(change.cname, cname!.value);
    if (spfValue !== null) dns.zone.TXT.set(spf!.host, ['google-site-verification=abc', spfValue]);
    if (dkimValue !== null) dns.zone.TXT.set(dkim!.host, [dkimValue]);
    if (cnameValue !== null) dns.zone.CNAME.set(cname!.host, cnameValue);
  }

  it('verifies when every record is found, and reports what was found', async () => {
    await emu.service.registerWebhook({ webhook_url: receiver.url, event: 'DOMAIN_VERIFICATION', method: 'POST' });
    const d = (await emu.service.addDomain({ domain: 'good.example' })).data;
    publish(d);
    const v = (await emu.service.verifyDomain('good.example')).data;
    expect(v.status).toBe('verified');
    expect(v.reason).toBeNull();
    expect(v.dns_records.map((r) => [r.type, r.status, r.found])).toEqual([
      ['TXT', 'verified', ['google-site-verification=abc', 'v=spf1 include:spf.mailyard.test ~all']],
      ['TXT', 'verified', [d.dns_records[1]!.value]],
      ['CNAME', 'verified', ['bounces.mailyard.test']],
    ]);
    expect(dns.queries.map((q) => `${q.type} ${q.name}`)).toEqual(
      expect.arrayContaining(['TXT good.example', 'TXT mailyard._domainkey.good.example', 'CNAME mly-bounces.good.example']),
    );
    const [req] = await receiver.waitFor(1);
    expect(JSON.parse(req!.body)).toMatchObject({ status: 'verified', previous_status: 'pending', domain: 'good.example' });
  });

  it('fails with a reason per record when the records are missing', async () => {
    await emu.service.addDomain({ domain: 'missing.example' });
    const v = (await emu.service.verifyDomain('missing.example')).data;
    expect(v.status).toBe('failed');
    expect(v.dns_records.map((r) => [r.status, r.found, r.reason])).toEqual([
      ['failed', [], 'no TXT record found'],
      ['failed', [], 'no TXT record found'],
      ['failed', [], 'no CNAME record found'],
    ]);
    expect(v.reason).toBe(
      'TXT missing.example: no TXT record found; TXT mailyard._domainkey.missing.example: no TXT record found; CNAME mly-bounces.missing.example: no CNAME record found',
    );
  });

  it('fails on wrong records: an SPF without the include, another DKIM key, a CNAME elsewhere', async () => {
    const d = (await emu.service.addDomain({ domain: 'wrong.example' })).data;
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    publish(d, { spf: 'v=spf1 include:_spf.google.com ~all', dkim: `v=DKIM1; k=rsa; p=${otherKey}`, cname: 'bounces.elsewhere.example' });
    const v = (await emu.service.verifyDomain('wrong.example')).data;
    expect(v.status).toBe('failed');
    expect(v.dns_records.map((r) => [r.status, r.reason])).toEqual([
      ['failed', 'the SPF record does not include:spf.mailyard.test'],
      ['failed', 'the DKIM record holds another public key'],
      ['failed', 'the CNAME points to bounces.elsewhere.example, expected bounces.mailyard.test'],
    ]);
    expect(v.dns_records[1]!.found).toEqual([`v=DKIM1; k=rsa; p=${otherKey}`]);

    // Fixing the records turns it verified; a failed outcome set through the control API still wins.
    publish(d);
    expect((await emu.service.verifyDomain('wrong.example')).data.status).toBe('verified');
    await emu.control.setDomainVerification('wrong.example', { outcome: 'failed', reason: 'held for review' });
    expect((await emu.service.verifyDomain('wrong.example')).data).toMatchObject({ status: 'failed', reason: 'held for review' });
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
    await emu.service.addDomain({ domain: 'nodns.example' });
    const res = await emu.request('POST', '/v1/domain/nodns.example/verify', { body: {} });
    expect(res.status).toBe(200);
    const v = res.json.data as DomainRecord;
    expect(v.status).toBe('failed');
    for (const r of v.dns_records) expect(r.reason).toMatch(/^DNS lookup failed \((ECONNREFUSED|ETIMEOUT)\)$/);
  });

  it('checks the MX record when inbound routing uses the domain: found, missing, elsewhere', async () => {
    const d = (await emu.service.addDomain({ domain: 'mx.example' })).data;
    publish(d);
    await emu.service.configureInboundRouting({ domain: 'mx.example', url: receiver.url, method: 'POST' });
    const missing = (await emu.service.verifyDomain('mx.example')).data;
    expect(missing.status).toBe('failed');
    expect(missing.dns_records[3]).toMatchObject({ type: 'MX', status: 'failed', found: [], reason: 'no MX record found' });
    expect(missing.reason).toBe('MX mx.example: no MX record found');

    dns.zone.MX.set('mx.example', [{ priority: 5, exchange: 'mail.elsewhere.example' }]);
    const elsewhere = (await emu.service.verifyDomain('mx.example')).data;
    expect(elsewhere.dns_records[3]).toMatchObject({ status: 'failed', reason: 'the MX records point to 5 mail.elsewhere.example, expected mx.mailyard.test' });

    dns.zone.MX.set('mx.example', [{ priority: 10, exchange: 'mx.mailyard.test' }]);
    const found = (await emu.service.verifyDomain('mx.example')).data;
    expect(found.status).toBe('verified');
    expect(found.dns_records[3]).toMatchObject({ status: 'verified', found: ['10 mx.mailyard.test'] });
  });

  it('fails when two SPF records are published', async () => {
    const d = (await emu.service.addDomain({ domain: 'twospf.example' })).data;
    publish(d);
    dns.zone.TXT.set('twospf.example', ['v=spf1 include:spf.mailyard.test ~all', 'v=spf1 -all']);
    const v = (await emu.service.verifyDomain('twospf.example')).data;
    expect(v.dns_records[0]).toMatchObject({ status: 'failed', reason: 'more than one SPF record found (RFC 7208 allows one; merge them)' });
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
    const refId = res.json.data.messages[0].ref_id as string;
    const raw = await emu.request('GET', `/emulator/messages/${refId}/raw`);
    expect(raw.status).toBe(200);
    return raw.text;
  }

  /** mailauth verifies against the records published in the test's DNS server. */
  const verify = (raw: string) => dkimVerify(Buffer.from(raw), { resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT') });

  it('signs mail from a verified domain; the signature verifies against the published key (mailauth)', async () => {
    const d = (await emu.service.addDomain({ domain: 'signed.example', selector: 's2026' })).data;
    const dkim = d.dns_records[1]!;
    dns.zone.TXT.set(dkim.host, [dkim.value]);

    expect(await sendFrom('app@signed.example')).not.toMatch(/^DKIM-Signature:/im); // pending: not signed
    await emu.service.verifyDomain('signed.example');

    for (const extra of [{}, { settings: { click_tracking: true, open_tracking: true } }]) {
      const raw = await sendFrom('App@Signed.Example', extra);
      expect(raw).toMatch(/^DKIM-Signature:/m);
      const result = await verify(raw);
      expect(result.results).toHaveLength(1);
      expect(result.results[0]).toMatchObject({ signingDomain: 'signed.example', selector: 's2026', status: { result: 'pass' } });
    }
  });

  it('a signature fails against another key and when the message is altered', async () => {
    const d = (await emu.service.addDomain({ domain: 'signed.example' })).data;
    await emu.service.verifyDomain('signed.example');
    const raw = await sendFrom('app@signed.example');
    const dkim = d.dns_records[1]!;
    dns.zone.TXT.set(dkim.host, [dkim.value]);
    const tampered = raw.replace('Thanks!', 'Thanks?');
    // mailauth calls a body that no longer matches its hash "neutral" (RFC 6376 6.3: the signature does not verify).
    expect((await verify(tampered)).results[0]!.status).toMatchObject({ result: 'neutral', comment: 'body hash did not verify' });

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    dns.zone.TXT.set(dkim.host, [`v=DKIM1; k=rsa; p=${other}`]);
    expect((await verify(raw)).results[0]!.status.result).toBe('fail');
  });

  it('keeps domains, keys and status across a restart', async () => {
    const d = (await emu.service.addDomain({ domain: 'kept.example' })).data;
    await emu.service.verifyDomain('kept.example');
    await emu.stop();
    const again = await startEmulator({}, {}, emu.dataDir);
    try {
      expect((await again.service.getDomain('kept.example')).data).toMatchObject({ status: 'verified', dns_records: d.dns_records.map((r) => ({ ...r, status: 'verified' })) });
      const res = await again.request('POST', '/v1/email/send', {
        body: { from: { email: 'app@kept.example' }, to: [{ email: 'ann@example.org' }], subject: 'Hi', content: [{ type: 'text/plain', value: 'Hi' }] },
      });
      const raw = (await again.request('GET', `/emulator/messages/${res.json.data.messages[0].ref_id}/raw`)).text;
      expect(raw).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=kept.example;/m);
      dns.zone.TXT.set(d.dns_records[1]!.host, [d.dns_records[1]!.value]);
      expect((await verify(raw)).results[0]!.status.result).toBe('pass');
    } finally {
      await again.stop();
    }
  });

  it('does not sign for a failed domain, another domain, or another account’s verified domain', async () => {
    await emu.service.addDomain({ domain: 'signed.example' });
    await emu.service.verifyDomain('signed.example');
    expect(await sendFrom('app@sub.signed.example')).not.toMatch(/^DKIM-Signature:/im);
    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    expect(await sendFrom('app@signed.example', {}, other.api_key)).not.toMatch(/^DKIM-Signature:/im);
    await emu.control.setDomainVerification('signed.example', { outcome: 'failed' });
    await emu.service.verifyDomain('signed.example');
    expect(await sendFrom('app@signed.example')).not.toMatch(/^DKIM-Signature:/im);
  });
});
