import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;

beforeAll(async () => {
  emu = await startEmulator();
  receiver = await startReceiver();
});
afterAll(async () => {
  await emu.cleanup();
  await receiver.close();
});

const validBody = () => ({
  webhook_url: receiver.url,
  event: 'EMAIL_EVENT',
  method: 'POST',
  webhook_options: { events: { delivery: true } },
});

describe('authentication of /v1', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a Basic credential', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a token', 'Bearer'],
    ['Bearer with two tokens', 'Bearer a b'],
    ['an unknown key', 'Bearer mly_unknown_key_000000000000'],
  ])('401 Unauthorized for %s', async (_name, authorization) => {
    const res = await emu.request('GET', '/v1/webhook', {
      apiKey: null,
      headers: authorization ? { authorization } : {},
    });
    expect(res.status).toBe(401);
    // The webhook calls always carry `details`, as their REST pages show it: an object.
    expect(res.json).toEqual({ success: false, error: 'Unauthorized', details: {} });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="mailyard"');
  });

  it('takes the key from X-API-Key as the real service does, and refuses a request whose two keys disagree', async () => {
    const ok = await emu.request('GET', '/v1/webhook', { apiKey: null, headers: { 'x-api-key': emu.apiKey } });
    expect(ok.status).toBe(200);
    const both = await emu.request('GET', '/v1/webhook', { apiKey: null, headers: { 'x-api-key': emu.apiKey, authorization: `Bearer ${emu.apiKey}` } });
    expect(both.status).toBe(200);
    const wrong = await emu.request('GET', '/v1/webhook', { apiKey: null, headers: { 'x-api-key': 'mly_unknown_key_000000000000' } });
    expect([wrong.status, wrong.json.error]).toEqual([401, 'Unauthorized']);
    const disagree = await emu.request('GET', '/v1/webhook', {
      apiKey: null,
      headers: { 'x-api-key': emu.apiKey, authorization: 'Bearer mly_unknown_key_000000000000' },
    });
    expect(disagree.status).toBe(401);
  });

  it('accepts the scheme in any case', async () => {
    const res = await emu.request('GET', '/v1/webhook', { apiKey: null, headers: { authorization: `bearer ${emu.apiKey}` } });
    expect(res.status).toBe(200);
  });

  it('answers 401 before reading a malformed body', async () => {
    const res = await emu.request('POST', '/v1/webhook/register', { apiKey: null, body: '{broken' });
    expect(res.status).toBe(401);
  });
});

describe('request errors (contract part 0)', () => {
  it('400 for malformed JSON, naming the problem', async () => {
    const res = await emu.request('POST', '/v1/webhook/register', { body: '{"webhook_url": ' });
    expect(res.status).toBe(400);
    expect(res.json.success).toBe(false);
    expect(res.json.error).toMatch(/^request body is not valid JSON: /);
  });

  it.each([
    ['an array', '[1,2]'],
    ['a string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
    ['true', 'true'],
  ])('400 for %s instead of an object', async (_name, body) => {
    const res = await emu.request('POST', '/v1/webhook/register', { body });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      success: false,
      error: 'request body must be a JSON object',
      details: { fields: { body: 'request body must be a JSON object' } },
      fields: { body: 'request body must be a JSON object' },
    });
  });

  it.each([
    ['__proto__', '{"__proto__": {"polluted": true}, "event": "EMAIL_EVENT"}'],
    ['nested __proto__', '{"headers": {"__proto__": {"x": "1"}}}'],
    ['constructor.prototype', '{"constructor": {"prototype": {"polluted": true}}}'],
  ])('400 for a %s key, and nothing is polluted', async (_name, body) => {
    const res = await emu.request('POST', '/v1/webhook/register', { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('request body may not contain the keys __proto__ or constructor.prototype');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('415 for a body that is not application/json', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await emu.request('POST', '/v1/webhook/register', { body: JSON.stringify(validBody()), headers: { 'content-type': type } });
      expect(res.status, type).toBe(415);
      expect(res.json).toEqual({ success: false, error: 'Content-Type must be application/json', details: {} });
    }
  });

  it('accepts application/json with a charset', async () => {
    const res = await emu.request('POST', '/v1/webhook/register', {
      body: JSON.stringify(validBody()),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
    await emu.request('DELETE', '/v1/webhook/delete', { body: { event: 'EMAIL_EVENT' } });
  });

  it('413 Payload Too Large past 25 MB', async () => {
    const big = JSON.stringify({ ...validBody(), padding: 'x'.repeat(25 * 1024 * 1024) });
    // fetch, because the emulator answers before the body is sent and node:http would fail with EPIPE.
    const res = await fetch(`${emu.url}/v1/webhook/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ success: false, error: 'Payload Too Large', details: {} });
  });

  it('404 in the error shape for unknown routes', async () => {
    for (const path of ['/v1/nope', '/emulator/nope', '/openapi.json/x']) {
      const res = await emu.request('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.json).toEqual({ success: false, error: `Route GET ${path} not found` });
    }
    const wrongMethod = await emu.request('PATCH', '/v1/webhook/register', { body: {} });
    expect(wrongMethod.status).toBe(404);
  });

  it('answers errors the router raises before any route runs in the same body', async () => {
    for (const path of [
      '/v1/domain/%ZZ',
      '/v1/domain/%E0%A4%A',
      '/emulator/messages/%',
      `/v1/domain/${'a'.repeat(5000)}`,
      `/emulator/deliveries/${'%41'.repeat(300)}`,
    ]) {
      const res = await emu.request('GET', path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(['details', 'error', 'fields', 'success'], `${path}: ${res.text}`).toEqual(expect.arrayContaining(Object.keys(res.json)));
      expect(res.json.success).toBe(false);
      expect(res.json.error.slice(0, 200), path).toMatch(/^(Bad Request|URI Too Long|id must be at most 64 characters)/);
    }
  });

  it('lists every problem of a send under fields, the first in error, and names them in the details sentence', async () => {
    const res = await emu.request('POST', '/v1/email/send', {
      body: {
        from: { email: 'nope' },
        to: [],
        subject: 'Hi',
        content: [{ type: 'text/plain', value: 'x' }],
        settings: { open_tracking: true, unsubscribe_tracking: { enable: true } },
        mailer_id: 42,
      },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json).sort()).toEqual(['details', 'error', 'fields', 'success']);
    expect(res.json.details).toBe(
      `4 fields have problems: from.email: must be an email address; to: must list at least one recipient; settings.open_tracking: must be an object {"enable": true}, not a bare boolean; mailer_id: ${res.json.fields.mailer_id}`,
    );
    expect(res.json.success).toBe(false);
    expect(res.json.fields).toEqual({
      'from.email': 'must be an email address',
      to: 'must list at least one recipient',
      'settings.open_tracking': 'must be an object {"enable": true}, not a bare boolean',
      mailer_id: expect.any(String),
    });
    expect(res.json.error).toBe('from.email must be an email address');
  });

  it('never answers 500 to odd input', async () => {
    const bodies = [
      '{}',
      '{"event": {}}',
      '{"webhook_url": [], "event": [], "method": {}, "headers": "x", "webhook_options": []}',
      '{"webhook_options": {"events": null}}',
      '{"webhook_options": null}',
      '{"headers": {"": ""}}',
      `{"headers": {"${'h'.repeat(5000)}": "v"}}`,
      '{"webhook_url": "http://[::1", "event": "EMAIL_EVENT", "method": "POST"}',
      '{"webhook_url": "http://127.0.0.1:99999/", "event": "EMAIL_EVENT", "method": "POST", "webhook_options": {"events": {"open": true}}}',
      `{"webhook_url": "http://${'a'.repeat(300)}.test/", "event": "EMAIL_EVENT", "method": "POST", "webhook_options": {"events": {"open": true}}}`,
      '{"event": "EMAIL_EVENT", "event": "DOMAIN_VERIFICATION"}',
      '\u0000',
      '{"a": "\\ud800"}',
      '1e999999',
    ];
    for (const path of ['/v1/webhook/register', '/v1/webhook/update', '/v1/webhook/delete']) {
      const method = path.endsWith('register') ? 'POST' : path.endsWith('update') ? 'PUT' : 'DELETE';
      for (const body of bodies) {
        const res = await emu.request(method, path, { body });
        expect(res.status, `${method} ${path} ${body.slice(0, 60)}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${path} ${body.slice(0, 60)}`).toBeLessThan(500);
        expect(res.json.success).toBe(false);
        expect(typeof res.json.error).toBe('string');
      }
    }
  });
});
