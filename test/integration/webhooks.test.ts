import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, ServiceClient } from '../../src-shared/clients';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { closedPort, type Receiver, startReceiver, startSilentTcpServer } from '../helpers/receiver';

const NO_EVENT = 'at least one of webhook_options.events must be true';
const DV_EVENTS = 'invalid webhook_options.events for DOMAIN_VERIFICATION';

let emu: TestEmulator;
let receiver: Receiver;
let deadUrl: string;

beforeAll(async () => {
  receiver = await startReceiver();
  deadUrl = `http://127.0.0.1:${await closedPort()}/hooks`;
});
afterAll(() => receiver.close());
beforeEach(async () => {
  emu = await startEmulator();
});
afterEach(() => emu.cleanup());

function emailWebhook(overrides: Record<string, unknown> = {}) {
  return {
    webhook_url: receiver.url,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: { delivery: true, bounce: true } },
    ...overrides,
  };
}

async function register(body: unknown) {
  return emu.request('POST', '/v1/webhook/register', { body });
}

describe('register', () => {
  it('creates an EMAIL_EVENT webhook and lists it with a resolved flag for every event kind', async () => {
    const res = await register(emailWebhook({ headers: { 'X-Webhook-Secret': 's3cret' } }));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, message: 'Webhook created successfully' });

    const list = await emu.service.listWebhooks();
    expect(list.data).toHaveLength(1);
    const hook = list.data[0]!;
    expect(hook).toMatchObject({ event: 'EMAIL_EVENT', webhook_url: receiver.url, method: 'POST', headers: { 'X-Webhook-Secret': 's3cret' } });
    expect(Object.keys(hook.webhook_options!.events).sort()).toEqual([...EMAIL_EVENT_KINDS].sort());
    expect(
      Object.entries(hook.webhook_options!.events)
        .filter(([, on]) => on)
        .map(([k]) => k),
    ).toEqual(['delivery', 'bounce']);
    expect(hook.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('creates a DOMAIN_VERIFICATION webhook without options, beside the EMAIL_EVENT one', async () => {
    expect((await register(emailWebhook())).status).toBe(200);
    const res = await register({ webhook_url: receiver.url, event: 'DOMAIN_VERIFICATION', method: 'PUT' });
    expect(res.status).toBe(200);
    const list = await emu.service.listWebhooks();
    expect(list.data.map((w) => w.event)).toEqual(['DOMAIN_VERIFICATION', 'EMAIL_EVENT']);
    expect(list.data[0]!.webhook_options).toBeUndefined();
  });

  it.each(EMAIL_EVENT_KINDS)('accepts %s as the only enabled kind', async (kind) => {
    const res = await register(emailWebhook({ webhook_options: { events: { [kind]: true } } }));
    expect(res.status).toBe(200);
  });

  describe('rule 1: schema (400, every problem listed)', () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['a relative URL', { webhook_url: '/hooks' }, 'webhook_url', 'webhook_url must be an absolute http or https URL'],
      ['an ftp URL', { webhook_url: 'ftp://127.0.0.1/x' }, 'webhook_url', 'webhook_url must be an absolute http or https URL'],
      ['a 5,000-character URL', { webhook_url: `http://127.0.0.1/${'a'.repeat(5000)}` }, 'webhook_url', 'webhook_url must be at most 2048 characters'],
      ['an unknown event type', { event: 'EMAIL' }, 'event', 'event must be one of EMAIL_EVENT, DOMAIN_VERIFICATION'],
      ['a 5,000-character event', { event: 'E'.repeat(5000) }, 'event', 'event must be one of EMAIL_EVENT, DOMAIN_VERIFICATION'],
      ['a lower-case method', { method: 'post' }, 'method', 'method must be one of GET, POST, PUT, DELETE, PATCH'],
      ['a method of the wrong type', { method: 1 }, 'method', 'method must be one of GET, POST, PUT, DELETE, PATCH'],
      ['a missing URL', { webhook_url: undefined }, 'webhook_url', 'webhook_url is required'],
      ['a null URL', { webhook_url: null }, 'webhook_url', 'webhook_url must be a string, not null'],
      ['a Host header', { headers: { Host: 'x' } }, 'headers.Host', 'headers.Host may not be set: the emulator sets this header itself'],
      [
        'a content-length header',
        { headers: { 'content-length': '1' } },
        'headers.content-length',
        'headers.content-length may not be set: the emulator sets this header itself',
      ],
      [
        'a Transfer-Encoding header',
        { headers: { 'Transfer-Encoding': 'chunked' } },
        'headers.Transfer-Encoding',
        'headers.Transfer-Encoding may not be set: the emulator sets this header itself',
      ],
      [
        'a CONNECTION header',
        { headers: { CONNECTION: 'close' } },
        'headers.CONNECTION',
        'headers.CONNECTION may not be set: the emulator sets this header itself',
      ],
      [
        'a header name with a space',
        { headers: { 'X Bad': 'v' } },
        'headers.X Bad',
        'headers.X Bad is not a valid header name (an HTTP token of at most 256 characters)',
      ],
      [
        'a header value with a line break',
        { headers: { 'X-A': 'a\r\nInjected: 1' } },
        'headers.X-A',
        'headers.X-A value may not contain line breaks or control characters',
      ],
      ['a 5,000-character header value', { headers: { 'X-A': 'v'.repeat(5000) } }, 'headers.X-A', 'headers.X-A value must be at most 4096 characters'],
      ['a non-string header value', { headers: { 'X-A': 1 } }, 'headers.X-A', 'headers.X-A header values must be strings'],
      ['headers as an array', { headers: ['X-A'] }, 'headers', 'headers must be an object of header names to string values'],
      [
        'an unknown event kind',
        { webhook_options: { events: { delivery: true, delivered: true } } },
        'webhook_options.events.delivered',
        'webhook_options.events.delivered is not a known field',
      ],
      [
        'a non-boolean flag',
        { webhook_options: { events: { delivery: 'true' } } },
        'webhook_options.events.delivery',
        'webhook_options.events.delivery must be a boolean',
      ],
    ];
    it.each(cases)('refuses %s', async (_name, overrides, path, message) => {
      const body = emailWebhook(overrides);
      const res = await register(body);
      expect(res.status).toBe(400);
      expect(res.json.success).toBe(false);
      expect(res.json.error).toBe(message);
      expect(res.json.fields).toHaveProperty([path]);
      expect((await emu.service.listWebhooks()).data).toEqual([]);
    });

    it('registers despite an unknown option and an unknown field, and names them in X-Mailyard-Ignored', async () => {
      const res = await register(emailWebhook({ webhook_options: { events: { delivery: true }, batch: true }, url: 'http://x' }));
      expect(res.status).toBe(200);
      expect(res.headers['x-mailyard-ignored']).toBe('webhook_options.batch, url');
      expect((await emu.service.listWebhooks()).data).toHaveLength(1);
    });

    it('lists every problem, not only the first (an unknown field is none: it is ignored)', async () => {
      const res = await register({ webhook_url: 'nope', event: 'X', method: 'y', extra: 1 });
      expect(res.status).toBe(400);
      expect(Object.keys(res.json.fields)).toEqual(['webhook_url', 'event', 'method']);
    });

    it('needs more than 50 headers to refuse them', async () => {
      const headers = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v']));
      const res = await register(emailWebhook({ headers }));
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('headers must have at most 50 headers');
      const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`X-H${i}`, 'v']));
      expect((await register(emailWebhook({ headers: fifty }))).status).toBe(200);
    });

    it('checks the schema before the other rules', async () => {
      const res = await register({ webhook_url: deadUrl, event: 'EMAIL_EVENT', method: 'post' });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('method must be one of GET, POST, PUT, DELETE, PATCH');
    });
  });

  describe('rule 2: an EMAIL_EVENT webhook needs one event enabled', () => {
    it.each([
      ['no webhook_options', { webhook_options: undefined }],
      ['empty webhook_options', { webhook_options: {} }],
      ['empty events', { webhook_options: { events: {} } }],
      ['every kind false', { webhook_options: { events: Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, false])) } }],
    ])('400 with the spec message for %s', async (_name, overrides) => {
      const res = await register(emailWebhook(overrides));
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        success: false,
        error: NO_EVENT,
        details: { fields: { 'webhook_options.events': NO_EVENT } },
        fields: { 'webhook_options.events': NO_EVENT },
      });
    });

    it('comes before the reachability check', async () => {
      const res = await register(emailWebhook({ webhook_url: deadUrl, webhook_options: undefined }));
      expect(res.status).toBe(400);
      expect(res.json.error).toBe(NO_EVENT);
    });
  });

  describe('rule 3: a DOMAIN_VERIFICATION webhook takes no events', () => {
    it('400 with the spec message', async () => {
      const res = await register({ webhook_url: receiver.url, event: 'DOMAIN_VERIFICATION', method: 'POST', webhook_options: { events: { delivery: true } } });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe(DV_EVENTS);
    });

    it('even when every event is false', async () => {
      const res = await register({ webhook_url: receiver.url, event: 'DOMAIN_VERIFICATION', method: 'POST', webhook_options: { events: {} } });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe(DV_EVENTS);
    });
  });

  describe('rule 4: one webhook per event type', () => {
    it('409 Webhook Already Exists, and the first one is kept', async () => {
      expect((await register(emailWebhook())).status).toBe(200);
      const res = await register(emailWebhook({ method: 'PUT' }));
      expect(res.status).toBe(409);
      // Webhook calls' errors always carry details, an object as the register-webhook page shows it.
      expect(res.json).toEqual({ success: false, error: 'Webhook Already Exists', details: {} });
      expect((await emu.service.listWebhooks()).data[0]!.method).toBe('POST');
    });

    it('comes before the reachability check', async () => {
      await register(emailWebhook());
      const res = await register(emailWebhook({ webhook_url: deadUrl }));
      expect(res.status).toBe(409);
    });

    it('holds under concurrent registrations: exactly one wins', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => register(emailWebhook())));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
      expect((await emu.service.listWebhooks()).data).toHaveLength(1);
    });
  });

  describe('rule 5: reachability', () => {
    it('422 for a closed port, naming the reason; nothing is stored', async () => {
      const res = await register(emailWebhook({ webhook_url: deadUrl }));
      expect(res.status).toBe(422);
      expect(res.json.error).toMatch(/^Webhook URL is not reachable: connection refused by 127\.0\.0\.1:\d+$/);
      expect((await emu.service.listWebhooks()).data).toEqual([]);
    });

    it('422 for a host that does not resolve', async () => {
      const res = await register(emailWebhook({ webhook_url: 'http://mailyard-no-such-host.invalid/hooks' }));
      expect(res.status).toBe(422);
      expect(res.json.error).toBe('Webhook URL is not reachable: host mailyard-no-such-host.invalid not found');
    });

    it('connects to a live receiver without sending it any request', async () => {
      const before = { connections: receiver.connections, requests: receiver.requests.length };
      expect((await register(emailWebhook())).status).toBe(200);
      expect(receiver.connections).toBe(before.connections + 1);
      expect(receiver.requests.length).toBe(before.requests);
    });

    it('completes a TLS handshake for https (a self-signed local receiver is accepted)', async () => {
      const tls = await startReceiver({ https: true });
      try {
        expect((await register(emailWebhook({ webhook_url: tls.url }))).status).toBe(200);
        expect(tls.requests).toEqual([]);
      } finally {
        await tls.close();
      }
    });

    it('422 when the https handshake does not complete within the time-out', async () => {
      const silent = await startSilentTcpServer();
      const quick = await startEmulator({ reachabilityTimeoutMs: 300 });
      try {
        const res = await quick.request('POST', '/v1/webhook/register', {
          body: emailWebhook({ webhook_url: `https://127.0.0.1:${silent.port}/hooks` }),
        });
        expect(res.status).toBe(422);
        expect(res.json.error).toBe(`Webhook URL is not reachable: no TLS connection to 127.0.0.1:${silent.port} within 300 ms`);
      } finally {
        await quick.cleanup();
        await silent.close();
      }
    });

    it('422 when an https URL points at a server that does not speak TLS', async () => {
      const res = await register(emailWebhook({ webhook_url: receiver.url.replace('http:', 'https:') }));
      expect(res.status).toBe(422);
      expect(res.json.error).toMatch(/^Webhook URL is not reachable: (TLS handshake with 127\.0\.0\.1:\d+ failed|connection reset)/);
    });
  });
});

describe('update', () => {
  beforeEach(async () => {
    expect((await register(emailWebhook({ headers: { 'X-A': '1', 'X-B': '2' } }))).status).toBe(200);
  });

  async function update(body: unknown) {
    return emu.request('PUT', '/v1/webhook/update', { body });
  }

  it('keeps the fields it is not given', async () => {
    const res = await update({ event: 'EMAIL_EVENT', method: 'PATCH' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, message: 'Webhook updated successfully' });
    const hook = (await emu.service.listWebhooks()).data[0]!;
    expect(hook).toMatchObject({ method: 'PATCH', webhook_url: receiver.url, headers: { 'X-A': '1', 'X-B': '2' } });
    expect(hook.webhook_options!.events.delivery).toBe(true);
    expect(hook.webhook_options!.events.bounce).toBe(true);
    expect(hook.updated_at >= hook.created_at).toBe(true);
  });

  it('replaces headers and webhook_options wholesale', async () => {
    const res = await update({ event: 'EMAIL_EVENT', headers: { 'X-C': '3' }, webhook_options: { events: { open: true } } });
    expect(res.status).toBe(200);
    const hook = (await emu.service.listWebhooks()).data[0]!;
    expect(hook.headers).toEqual({ 'X-C': '3' });
    const on = Object.entries(hook.webhook_options!.events)
      .filter(([, v]) => v)
      .map(([k]) => k);
    expect(on).toEqual(['open']);
  });

  it('applies rule 2 when webhook_options is given', async () => {
    const res = await update({ event: 'EMAIL_EVENT', webhook_options: { events: { delivery: false } } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(NO_EVENT);
  });

  it('applies rule 3 to a DOMAIN_VERIFICATION webhook', async () => {
    await register({ webhook_url: receiver.url, event: 'DOMAIN_VERIFICATION', method: 'POST' });
    const res = await update({ event: 'DOMAIN_VERIFICATION', webhook_options: { events: { delivery: true } } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(DV_EVENTS);
  });

  it('404 Webhook Not Found when there is none of that type', async () => {
    const res = await update({ event: 'DOMAIN_VERIFICATION', method: 'GET' });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ success: false, error: 'Webhook Not Found', details: {} });
  });

  it('checks reachability when the URL changes, and keeps the old URL on failure', async () => {
    const res = await update({ event: 'EMAIL_EVENT', webhook_url: deadUrl });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatch(/^Webhook URL is not reachable: /);
    expect((await emu.service.listWebhooks()).data[0]!.webhook_url).toBe(receiver.url);
  });

  it('does not check reachability when the URL stays the same', async () => {
    const other = await startReceiver();
    await update({ event: 'EMAIL_EVENT', webhook_url: other.url });
    await other.close();
    // The receiver is gone, but an update that does not change the URL needs no connection.
    const res = await update({ event: 'EMAIL_EVENT', webhook_url: other.url, method: 'PUT' });
    expect(res.status).toBe(200);
  });

  it('refuses schema violations with 400', async () => {
    const res = await update({ event: 'EMAIL_EVENT', webhook_url: 'x', unknown: true });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.fields)).toEqual(['webhook_url']);
  });
});

describe('delete', () => {
  it('deletes, then answers 404, and a new registration is possible', async () => {
    await register(emailWebhook());
    const del = await emu.request('DELETE', '/v1/webhook/delete', { body: { event: 'EMAIL_EVENT' } });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ success: true, message: 'Webhook deleted successfully' });
    expect((await emu.service.listWebhooks()).data).toEqual([]);

    const again = await emu.request('DELETE', '/v1/webhook/delete', { body: { event: 'EMAIL_EVENT' } });
    expect(again.status).toBe(404);
    expect(again.json.error).toBe('Webhook Not Found');
    expect((await register(emailWebhook())).status).toBe(200);
  });

  it('needs a JSON body naming the event', async () => {
    const none = await emu.request('DELETE', '/v1/webhook/delete');
    expect(none.status).toBe(400);
    expect(none.json.error).toBe('request body is required (a JSON object)');
    const bad = await emu.request('DELETE', '/v1/webhook/delete', { body: { event: 'ALL' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('event must be one of EMAIL_EVENT, DOMAIN_VERIFICATION');
  });
});

describe('accounts are isolated', () => {
  it('two accounts see only their own webhooks', async () => {
    const second = (await emu.control.createAccount({ name: 'Second' })).data;
    const other = new ServiceClient({ baseUrl: emu.url, apiKey: second.api_key });

    await emu.service.registerWebhook(emailWebhook() as never);
    expect((await other.listWebhooks()).data).toEqual([]);

    // The same event type is free for the other account.
    await other.registerWebhook({ webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'PUT', webhook_options: { events: { spam: true } } });
    expect((await emu.service.listWebhooks()).data[0]!.method).toBe('POST');
    expect((await other.listWebhooks()).data[0]!.method).toBe('PUT');

    // Deleting one account's webhook leaves the other's.
    await other.deleteWebhook({ event: 'EMAIL_EVENT' });
    expect((await emu.service.listWebhooks()).data).toHaveLength(1);
    const err = await other.deleteWebhook({ event: 'EMAIL_EVENT' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
  });
});
