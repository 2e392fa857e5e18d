import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src-shared/clients';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { logCapture } from '../helpers/log-capture';

/** A send the API takes as it is. */
function message(extra: Record<string, unknown> = {}) {
  return {
    from: { email: 'app@example.com', name: 'Example App' },
    to: [{ email: 'a@example.com', name: 'A' }],
    subject: 'Your receipt',
    content: [{ type: 'text/plain', value: 'Thanks!' }],
    ...extra,
  };
}

describe('a lenient /v1 (the default)', () => {
  let emu: TestEmulator;
  const log = logCapture();
  beforeAll(async () => {
    emu = await startEmulator({}, { logger: log.logger });
  });
  afterAll(async () => {
    await emu.cleanup();
  });

  const send = (body: unknown) => emu.request('POST', '/v1/email/send', { body });

  it('sends despite an unknown body field, and names it in X-Mailyard-Ignored', async () => {
    const res = await send(message({ foo: 'bar' }));
    expect(res.status).toBe(200);
    expect(res.headers['x-mailyard-ignored']).toBe('foo');
    const logs = await emu.service.getEmailLogs({ refId: res.json.ref_id });
    expect(logs.emailLogs.map((e) => e.recipientAddress)).toEqual(['a@example.com']);
  });

  it('ignores an unknown nested field and names its path with the index', async () => {
    const res = await send(message({ to: [{ email: 'a@example.com', extra: 1 }], settings: { open_tracking: { enable: true, color: 'red' } } }));
    expect(res.status).toBe(200);
    expect(res.headers['x-mailyard-ignored']).toBe('to[0].extra, settings.open_tracking.color');
  });

  it('takes "cc": null as cc left out', async () => {
    const res = await send(message({ cc: null, bcc: null }));
    expect(res.json).toMatchObject({ success: true });
    expect(res.status).toBe(200);
    expect(res.headers['x-mailyard-ignored']).toBe('cc, bcc');
    const logs = await emu.service.getEmailLogs({ refId: res.json.ref_id });
    expect(logs.emailLogs).toHaveLength(1);
  });

  it('answers an unknown query parameter on the logs (a cache-buster) as if it were absent', async () => {
    const res = await emu.request('GET', '/v1/email/logs?foo=bar&_=1700000000&pageSize=5');
    expect(res.status).toBe(200);
    expect(res.headers['x-mailyard-ignored']).toBe('foo, _');
    expect(res.json.emailLogs.length).toBeLessThanOrEqual(5);
  });

  it('quotes odd keys in the header (line breaks, non-ASCII, commas, long), and bounds the header', async () => {
    const odd = await send(message({ 'a\r\nX-Injected: 1': 1, 'café,x': 2, ['k'.repeat(150)]: 3 }));
    expect(odd.status).toBe(200);
    expect(odd.headers).not.toHaveProperty('x-injected');
    expect(odd.headers['x-mailyard-ignored']).toBe(`["a\\r\\nX-Injected: 1"], ["caf\\u00e9\\u002cx"], ["${'k'.repeat(100)}..."]`);
    const many = await send(message(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field_${i}`, i]))));
    expect(many.status).toBe(200);
    const header = String(many.headers['x-mailyard-ignored']);
    expect(header.length).toBeLessThan(2100);
    expect(header).toMatch(/^field_0, field_1, .*, \.\.\. \(\d+ more\)$/);
    // The log is bounded too: 20 lines one by one, the rest in one.
    expect(log.lines.filter((l) => String(l.path ?? '').startsWith('field_'))).toHaveLength(20);
    expect(log.lines.filter((l) => l.count === 4980)).toHaveLength(1);
  });

  it('sends no X-Mailyard-Ignored header when nothing was ignored', async () => {
    const res = await send(message());
    expect(res.status).toBe(200);
    expect(res.headers).not.toHaveProperty('x-mailyard-ignored');
  });

  it('logs each ignored path once per operation, at warn', async () => {
    await send(message({ once: 1 }));
    await send(message({ once: 2 }));
    await emu.request('POST', '/v1/email/logs', {}); // another operation does not count
    const about = log.lines.filter((l) => l.path === 'once');
    expect(about).toHaveLength(1);
    expect(about[0]).toMatchObject({ level: 40, operation: 'POST /v1/email/send', path: 'once' });
    expect(String(about[0]!.msg)).toContain('ignored once');
  });

  it.each([
    ['a wrong type', { priority: 'high' }, 'priority must be a whole number'],
    ['an unknown enum value', { content: [{ type: 'text/markdown', value: '#' }] }, 'content.0.type must be text/html or text/plain'],
    ['null for a required field', { from: null }, 'from must be an object, not null'],
    ['null for the recipients', { to: null }, 'to must be an array, not null'],
  ])('still refuses %s with its message, whatever else it ignores', async (_name, overrides, error) => {
    const res = await send(message({ ...overrides, unknown_too: true }));
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(error);
    expect(Object.keys(res.json.fields)).not.toContain('unknown_too');
  });

  it('names what it ignored on a refusal too', async () => {
    const res = await send(message({ priority: 'high', foo: 1, bcc: null }));
    expect(res.status).toBe(400);
    expect(res.headers['x-mailyard-ignored']).toBe('bcc, foo');
    expect(Object.keys(res.json.fields)).toEqual(['priority']);
  });

  it('ignores the members of a JSON object sent to an operation that takes no body', async () => {
    expect((await emu.request('POST', '/v1/domain/add', { body: { domain: 'example.com' } })).status).toBe(200);
    const res = await emu.request('DELETE', '/v1/domain/example.com', { body: { force: true } });
    expect(res.headers['x-mailyard-ignored']).toBe('force');
    expect(res.status).toBe(200);
    expect((await emu.request('GET', '/v1/domain/example.com')).status).toBe(404);
    const array = await emu.request('DELETE', '/v1/domain/example.com', { body: [1] });
    expect(array.status).toBe(400);
    expect(array.json.error).toBe('request body must be empty: DELETE /v1/domain/{domain} takes no body');
  });

  it('still refuses an unknown enum value in a query', async () => {
    const res = await emu.request('GET', '/v1/email/logs?status=lost&foo=1');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/^status must be one of /);
  });

  it('still refuses an unknown webhook event kind (a documented rule), while ignoring an unknown field beside it', async () => {
    const body = {
      webhook_url: 'http://127.0.0.1:9/hook',
      event: 'EMAIL_EVENT',
      method: 'POST',
      webhook_options: { events: { delivered: true } },
      secret: 'x',
    };
    const res = await emu.request('POST', '/v1/webhook/register', { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('webhook_options.events.delivered is not a known field');
    expect(Object.keys(res.json.fields)).toEqual(['webhook_options.events.delivered']);
  });

  it('tells the typed client what was ignored (what the Send page shows beside the answer)', async () => {
    const seen: Array<{ paths: string[]; op: string }> = [];
    const client = new ServiceClient({ baseUrl: emu.url, apiKey: emu.apiKey, onIgnored: (paths, op) => seen.push({ paths, op: op.path }) });
    await client.sendEmail(message({ cc: null, sdk_version: '2.1' }) as never);
    await client.sendEmail(message() as never);
    expect(seen).toEqual([{ paths: ['cc', 'sdk_version'], op: '/v1/email/send' }]);
  });

  it('keeps the control API strict', async () => {
    const res = await emu.request('GET', '/emulator/messages?foo=bar');
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('foo is not a known field');
  });
});

describe('a lenient /v1 given a great many unknown fields', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(async () => {
    await emu.cleanup();
  });

  it('takes 130,000 unknown top-level fields (1.6 MB) as any other ignored fields, on a send and on an operation without a body', async () => {
    const fields = Object.fromEntries(Array.from({ length: 130_000 }, (_, i) => [`f${i}`, 0]));
    const res = await emu.request('POST', '/v1/email/send', { body: message(fields) });
    expect(res.status).toBe(200);
    expect(String(res.headers['x-mailyard-ignored'])).toMatch(/^f0, f1, .*, \.\.\. \(\d+ more\)$/);
    expect((await emu.request('POST', '/v1/domain/add', { body: { domain: 'many.example' } })).status).toBe(200);
    const noBody = await emu.request('DELETE', '/v1/domain/many.example', { body: fields });
    expect(noBody.status).toBe(200);
    expect(String(noBody.headers['x-mailyard-ignored'])).toMatch(/^f0, f1, .*, \.\.\. \(\d+ more\)$/);
  });
});

describe('--strict-requests', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ strictRequests: true });
  });
  afterAll(async () => {
    await emu.cleanup();
  });

  it.each([
    ['an unknown body field', message({ foo: 'bar' }), 'foo is not a known field'],
    ['an unknown nested field', message({ to: [{ email: 'a@example.com', extra: 1 }] }), 'to.0.extra is not a known field'],
    ['"cc": null', message({ cc: null }), 'cc must be an array, not null'],
  ])('refuses %s with 400', async (_name, body, error) => {
    const res = await emu.request('POST', '/v1/email/send', { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(error);
    expect(res.headers).not.toHaveProperty('x-mailyard-ignored');
    expect((await emu.service.getEmailLogs()).emailLogs).toEqual([]);
  });

  it('refuses a JSON object sent to an operation that takes no body', async () => {
    expect((await emu.request('POST', '/v1/domain/add', { body: { domain: 'example.com' } })).status).toBe(200);
    const res = await emu.request('DELETE', '/v1/domain/example.com', { body: { force: true } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('request body must be empty: DELETE /v1/domain/{domain} takes no body');
  });

  it('refuses an unknown query parameter on the logs', async () => {
    const res = await emu.request('GET', '/v1/email/logs?foo=bar');
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('foo is not a known field');
  });
});
