/**
 * Conformance with the real service's documented surface (../shared/spec/REAL-SERVICE.md): each
 * documented request sent exactly as written there, and every documented answer field, status and error
 * text asserted. A user's integration written against the real docs depends on each of these.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawResponse, startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { type RelayTarget, startRelayTarget } from '../helpers/relay-target';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const DOMAIN_MAILER_ID = /^domain_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The documented example request of sendEmail, verbatim. */
const DOCUMENTED_SEND = `{"from": {"email": "app@example.com", "name": "App"},
 "to": [{"email": "ann@example.org", "name": "Ann"}],
 "cc": [], "bcc": [],
 "subject": "Welcome", "content": [{"type": "text/html", "value": "<p>Hi</p>"}],
 "replyTo": "help@example.com", "headers": {}, "custom_args": {"user": "42"},
 "campaign_id": "welcome", "mailer_id": "domain_01JC3BBW8S9YGX2VNKG5MD7BTA",
 "template_id": "", "substitutions": {}, "priority": 0, "process_email_inbulk": false,
 "settings": {"open_tracking": {"enable": true}, "click_tracking": {"enable": true},
              "unsubscribe": {"enable": false}, "validate": {"enable": false},
              "phishing_protection": {"enable": false}, "ip_pool": ""}}`;

let emu: TestEmulator;
let receiver: Receiver;
let smtp: RelayTarget;

beforeAll(async () => {
  receiver = await startReceiver();
  smtp = await startRelayTarget({ user: 'smtp-user', pass: 'smtp-pass-123' });
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
});
afterAll(async () => {
  await emu.cleanup();
  await receiver.close();
  await smtp.close();
});

/** A request as a user's code sends it: JSON, with the key in Authorization: Bearer (or X-API-Key). */
function call(method: string, path: string, body?: string | object, auth: 'bearer' | 'x-api-key' = 'bearer'): Promise<RawResponse> {
  const headers: Record<string, string> = auth === 'bearer' ? {} : { 'x-api-key': emu.apiKey };
  return emu.request(method, path, { body, headers, ...(auth === 'bearer' ? {} : { apiKey: null }) });
}

/** An error body as the docs show it: success false, `error` a string, nothing but the documented members. */
function expectError(res: RawResponse, status: number, error: string | RegExp, extra: string[] = [], details: 'string' | 'object' = 'string'): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json.success).toBe(false);
  if (typeof error === 'string') expect(res.json.error).toBe(error);
  else expect(res.json.error).toMatch(error);
  expect(['details', 'error', 'fields', 'records', 'success']).toEqual(expect.arrayContaining(Object.keys(res.json)));
  // The getting-started page shows `details` as an optional string; the webhook calls' pages, an object.
  if ('details' in res.json) expect(typeof res.json.details).toBe(details);
  for (const key of extra) expect(res.json, key).toHaveProperty(key);
}

/** A DNS record as the docs show it: {key, type, value, verified}. */
function expectRecordMap(records: Record<string, Record<string, unknown>>): void {
  for (const [name, record] of Object.entries(records)) {
    expect(typeof record.key, name).toBe('string');
    expect(['TXT', 'CNAME', 'MX'], name).toContain(record.type);
    expect(typeof record.value, name).toBe('string');
    expect(typeof record.verified, name).toBe('boolean');
  }
}

describe('sendEmail: POST /v1/email/send', () => {
  it('accepts the documented example as it stands and answers {success, ref_id}', async () => {
    for (const auth of ['bearer', 'x-api-key'] as const) {
      const res = await call('POST', '/v1/email/send', DOCUMENTED_SEND, auth);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.json).sort()).toEqual(['ref_id', 'success']);
      expect(res.json.success).toBe(true);
      expect(res.json.ref_id).toMatch(ULID);
    }
  });

  it('answers 400 {success: false, error} to a body the real service refuses, and shows the {"enable"} form for a bare boolean', async () => {
    const bad = JSON.parse(DOCUMENTED_SEND) as Record<string, any>;
    bad.settings.open_tracking = true;
    expectError(await call('POST', '/v1/email/send', bad), 400, 'settings.open_tracking must be an object {"enable": true}, not a bare boolean');
    expectError(await call('POST', '/v1/email/send', { ...bad, to: [] }), 400, /^to must list at least one recipient|^settings/);
  });

  it("answers 403 Unauthorized From Email for a sender outside the mailer_id's domain", async () => {
    const added = await call('POST', '/v1/domain/add', { domain: 'mail.example.net' });
    const body = { ...(JSON.parse(DOCUMENTED_SEND) as object), mailer_id: added.json.mailer_id };
    expectError(await call('POST', '/v1/email/send', body), 403, 'Unauthorized From Email');
    await call('DELETE', '/v1/domain/mail.example.net');
  });
});

describe('getEmailLogs: GET /v1/email/logs', () => {
  it('answers {success, emailLogs, nextPageToken, totalCount} with every documented entry field, for each documented query', async () => {
    const sent = await call('POST', '/v1/email/send', DOCUMENTED_SEND);
    const refId = sent.json.ref_id as string;
    const queries = [
      `refId=${refId}`,
      `email=ann@example.org&refId=${refId}`,
      `recipientDomain=example.org&refId=${refId}`,
      `fromAddress=app@example.com&refId=${refId}`,
      `subject=Welcome&refId=${refId}`,
      `campaignId=welcome&refId=${refId}`,
      `recipientType=to&refId=${refId}`,
      `status=queued&refId=${refId}`,
      `pageSize=20&refId=${refId}`,
    ];
    for (const query of queries) {
      for (const auth of ['bearer', 'x-api-key'] as const) {
        const res = await call('GET', `/v1/email/logs?${query}`, undefined, auth);
        expect(res.status, `${query}: ${res.text}`).toBe(200);
        expect(Object.keys(res.json).sort()).toEqual(['emailLogs', 'nextPageToken', 'success', 'totalCount']);
        expect(res.json).toMatchObject({ success: true, nextPageToken: '', totalCount: 1 });
        const [entry] = res.json.emailLogs;
        expect(entry, query).toEqual({
          refId,
          recipientAddress: 'ann@example.org',
          recipientDomain: 'example.org',
          recipientType: 'to',
          fromAddress: 'app@example.com',
          subject: 'Welcome',
          status: 'queued',
          campaignId: 'welcome',
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          deliveredDate: '',
          failedReason: '',
          opened: false,
          clicked: false,
          priority: '0',
          track: {},
          accountId: expect.any(Number),
          tenantId: 0,
        });
      }
    }
    // failedReason is an exact-match filter, as documented.
    const none = await call('GET', `/v1/email/logs?failedReason=nothing&refId=${refId}`);
    expect([none.status, none.json.totalCount]).toEqual([200, 0]);
  });

  it('pages by the opaque nextPageToken, "" on the last page', async () => {
    const many = JSON.parse(DOCUMENTED_SEND) as Record<string, any>;
    many.to = Array.from({ length: 7 }, (_, i) => ({ email: `p${i}@example.org` }));
    const refId = (await call('POST', '/v1/email/send', many)).json.ref_id as string;
    const first = await call('GET', `/v1/email/logs?refId=${refId}&pageSize=5`);
    expect([first.json.emailLogs.length, first.json.totalCount]).toEqual([5, 7]);
    expect(first.json.nextPageToken).not.toBe('');
    const second = await call('GET', `/v1/email/logs?refId=${refId}&pageSize=5&pageToken=${encodeURIComponent(first.json.nextPageToken)}`);
    expect([second.json.emailLogs.length, second.json.nextPageToken]).toEqual([2, '']);
  });

  it('answers 400 "date range cannot exceed 7 days" for a longer window', async () => {
    const res = await call('GET', '/v1/email/logs?startCreatedAt=2026-11-01T00:00:00Z&endCreatedAt=2026-11-09T00:00:00Z');
    expectError(res, 400, 'date range cannot exceed 7 days');
    expectError(await call('GET', '/v1/email/logs?pageSize=51'), 400, /^pageSize /);
  });
});

describe('domains', () => {
  it('addDomain: POST /v1/domain/add answers the documented shape', async () => {
    const res = await call('POST', '/v1/domain/add', { domain: 'example.com', shared_with_subaccounts: false });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      success: true,
      mailer_id: expect.stringMatching(DOMAIN_MAILER_ID),
      message: expect.any(String),
      is_tenant_domain: false,
      verified: false,
    });
    expectRecordMap(res.json.sending_records);
    expect(Object.keys(res.json.sending_records).length).toBeGreaterThan(0);
    expect(res.json.receiving_records).toEqual({});
  });

  it('getDomain: GET /v1/domain/{domain} answers the same shape; an unknown domain 404 with records {}', async () => {
    const res = await call('GET', '/v1/domain/example.com', undefined, 'x-api-key');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ success: true, mailer_id: expect.stringMatching(DOMAIN_MAILER_ID), verified: false, is_tenant_domain: false });
    expectRecordMap(res.json.sending_records);
    const unknown = await call('GET', '/v1/domain/unknown.example.com');
    expectError(unknown, 404, 'Domain Not Found', ['records']);
    expect(unknown.json.records).toEqual({});
  });

  it('verifyDomain: PUT /v1/domain/verify/{domain} answers {success, message, records}, or 400 Invalid DNS records with records', async () => {
    const ok = await call('PUT', '/v1/domain/verify/example.com');
    expect(ok.status, ok.text).toBe(200);
    expect(Object.keys(ok.json).sort()).toEqual(['message', 'records', 'success']);
    expect(ok.json).toMatchObject({ success: true, message: 'Domain verified successfully' });
    expectRecordMap(ok.json.records);
    expect(Object.values(ok.json.records as Record<string, { verified: boolean }>).every((r) => r.verified)).toBe(true);

    await call('POST', '/v1/domain/add', { domain: 'broken.example.com' });
    await emu.control.setDomainVerification('broken.example.com', { outcome: 'failed', reason: 'no SPF record found' });
    const failed = await call('PUT', '/v1/domain/verify/broken.example.com');
    expectError(failed, 400, 'Invalid DNS records', ['records']);
    expectRecordMap(failed.json.records);
    expect(Object.values(failed.json.records as Record<string, { verified: boolean }>).some((r) => !r.verified)).toBe(true);
    const missing = await call('PUT', '/v1/domain/verify/unknown.example.com');
    expectError(missing, 404, 'Domain Not Found', ['records']);
    expect(missing.json.records).toEqual({});
  });

  it('lists domains: GET /v1/domains answers {success, domains}', async () => {
    const res = await call('GET', '/v1/domains');
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    expect(res.json.domains.map((d: { domain: string }) => d.domain).sort()).toEqual(['broken.example.com', 'example.com']);
    for (const d of res.json.domains) expect(d.mailer_id).toMatch(DOMAIN_MAILER_ID);
  });
});

describe('webhooks', () => {
  it('registerWebhook answers 200 {success, message} with no id; 400, 409 and 422 carry error and details, an object as the page shows', async () => {
    const body = { webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } };
    const res = await call('POST', '/v1/webhook/register', body);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['message', 'success']);
    expectError(await call('POST', '/v1/webhook/register', body), 409, 'Webhook Already Exists', ['details'], 'object');
    const updated = await call('PUT', '/v1/webhook/update', { event: 'EMAIL_EVENT', webhook_options: { events: { delivery: true, bounce: true } } });
    expect([updated.status, Object.keys(updated.json).sort()]).toEqual([200, ['message', 'success']]);
    const unreachable = await call('POST', '/v1/webhook/register', { webhook_url: 'http://127.0.0.1:9/hook', event: 'DOMAIN_VERIFICATION', method: 'POST' });
    expectError(unreachable, 422, /^Webhook URL is not reachable: /, ['details'], 'object');
    expectError(
      await call('POST', '/v1/webhook/register', { ...body, webhook_options: { events: {} } }),
      400,
      'at least one of webhook_options.events must be true',
      ['details'],
      'object',
    );
  });
});

describe('configureSMTP: POST /v1/smtpbasic/verify', () => {
  const config = (password: string) => ({
    name: 'Relay',
    email: 'relay@example.com',
    config_type: 'smtp',
    connection_type: 'basic',
    config: { host: '127.0.0.1', port: smtp.port, username: 'smtp-user', password, secure: 'TlsWhenAvailable' },
  });

  it('saves the configuration after logging in to the server for real', async () => {
    const res = await call('POST', '/v1/smtpbasic/verify', config('smtp-pass-123'));
    expect(res.status, res.text).toBe(200);
    expect(res.json.success).toBe(true);
    expect(smtp.logins.at(-1)).toMatchObject({ user: 'smtp-user', ok: true });
  });

  it("answers 422 with the server's answer when the login fails, and saves nothing", async () => {
    const before = (await emu.service.listSMTPConfigs()).data.length;
    const res = await call('POST', '/v1/smtpbasic/verify', config('wrong-password'));
    expectError(res, 422, /535/);
    expect((await emu.service.listSMTPConfigs()).data.length).toBe(before);
  });
});

describe('templates: POST /v1/email/template', () => {
  it('takes {name, subject, content} as the docs show it', async () => {
    const res = await call('POST', '/v1/email/template', {
      name: 'Welcome Email',
      subject: 'Welcome to {{company_name}}, {{first_name}}!',
      content: [{ type: 'text/html', value: '<!DOCTYPE html><html><body><h1>Hi {{first_name}}</h1></body></html>' }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ success: true, template_id: expect.any(String) });
  });
});

describe('authentication', () => {
  it('answers 401 {success: false, error: "Unauthorized"} without a key, or with a wrong one in either header', async () => {
    expectError(await emu.request('GET', '/v1/email/logs', { apiKey: null }), 401, 'Unauthorized');
    expectError(await emu.request('GET', '/v1/email/logs', { apiKey: null, headers: { 'x-api-key': 'mly_wrong_key_00000000' } }), 401, 'Unauthorized');
  });
});
