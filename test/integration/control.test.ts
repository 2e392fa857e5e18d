import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, ServiceClient } from '../../src-shared/clients';
import { controlOperations, documentedRoutes, serviceOperations } from '../../src-shared/operations';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

const TABLE = [...Object.values(serviceOperations), ...Object.values(controlOperations), ...Object.values(documentedRoutes)];

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.cleanup());

describe('GET /emulator/health', () => {
  it('reports version, the listening URL and port, and the data directory', async () => {
    const { data } = await emu.control.getHealth();
    expect(data.status).toBe('ok');
    expect(data.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(data.urls.http).toBe(emu.url);
    expect(data.ports.http).toBe(Number(new URL(emu.url).port));
    expect(data.data_dir).toBe(emu.dataDir);
  });
});

describe('accounts', () => {
  it('lists the default account with its key', async () => {
    const { data } = await emu.control.listAccounts();
    const def = data.find((a) => a.is_default)!;
    expect(def.api_key).toBe(emu.apiKey);
    expect(def.api_key).toMatch(/^mly_[A-Za-z0-9_-]{32}$/);
  });

  it('creates an account with a generated key that authenticates', async () => {
    const { data } = await emu.control.createAccount({ name: 'QA' });
    expect(data).toMatchObject({ name: 'QA', is_default: false });
    const client = new ServiceClient({ baseUrl: emu.url, apiKey: data.api_key });
    expect((await client.listWebhooks()).data).toEqual([]);
  });

  it('creates an account with a given key, once', async () => {
    const key = 'ci-key-0123456789';
    expect((await emu.control.createAccount({ api_key: key })).data.api_key).toBe(key);
    const err = (await emu.control.createAccount({ api_key: key }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(409);
    expect(err.body.error).toBe('Account Already Exists');
  });

  it('refuses a malformed key or name with 400', async () => {
    for (const body of [{ api_key: 'short' }, { api_key: 'has space 123' }, { name: '' }, { name: 'n'.repeat(101) }, { role: 'x' }]) {
      const res = await emu.request('POST', '/emulator/accounts', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.success).toBe(false);
    }
  });
});

describe('POST /emulator/events', () => {
  it("finds the copy of a send by the send's ref_id and the recipient, or the send's first copy", async () => {
    const { ref_id } = await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.com' }, { email: 'bob@example.com' }],
      subject: 'Fired at',
      content: [{ type: 'text/plain', value: 'hi' }],
      campaign_id: 'fire',
    });
    const bob = (await emu.control.fireEvent({ event: 'open', ref_id, recipient: 'bob@example.com' })).data.payload;
    expect(bob).toMatchObject({ event: 'open', ref_id, recipient: { email: 'bob@example.com' }, campaign_id: 'fire' });
    const first = (await emu.control.fireEvent({ event: 'open', ref_id })).data.payload;
    expect(first).toMatchObject({ event: 'open', ref_id, recipient: { email: 'ann@example.com' }, campaign_id: 'fire' });
    // The event is on that copy alone.
    const copies = (await emu.control.listMessages({ q: ref_id })).data.messages;
    const eventsOf = async (email: string) =>
      (await emu.control.getMessage(copies.find((m) => m.recipient.email === email)!.id)).data.events.filter((e) => e.event === 'open').length;
    expect([await eventsOf('ann@example.com'), await eventsOf('bob@example.com')]).toEqual([1, 1]);
  });
});

describe('control API guard', () => {
  it.each(['evil.example', 'evil.example:4400', '192.168.1.20', 'mailyard.test'])('403 for Host %s', async (host) => {
    const res = await emu.request('GET', '/emulator/health', { headers: { host } });
    expect(res.status).toBe(403);
    expect(res.json.success).toBe(false);
    expect(res.json.error).toContain('loopback');
  });

  it.each(['localhost', 'LOCALHOST:4400', '127.0.0.1:1234', '127.1.2.3', '[::1]:4400', 'app.localhost'])('answers Host %s', async (host) => {
    const res = await emu.request('GET', '/emulator/health', { headers: { host } });
    expect(res.status).toBe(200);
    expect(res.json.data.status).toBe('ok');
  });

  it('refuses a foreign Host even on mutating requests, before anything changes', async () => {
    const before = (await emu.control.listAccounts()).data.length;
    const res = await emu.request('POST', '/emulator/accounts', { body: { name: 'x' }, headers: { host: 'evil.example' } });
    expect(res.status).toBe(403);
    expect((await emu.control.listAccounts()).data.length).toBe(before);
  });

  it('415 for a mutating request that is not JSON (no cross-site form can reach it)', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await emu.request('POST', '/emulator/accounts', { body: 'name=x', headers: { 'content-type': type } });
      expect(res.status, type).toBe(415);
    }
    // A body without a Content-Type is not JSON either.
    const untyped = await fetch(`${emu.url}/emulator/accounts`, { method: 'POST', body: new Blob(['{"name":"x"}']) });
    expect(untyped.status).toBe(415);
    // A call without a body of an operation that takes none needs no Content-Type (curl -X POST), unless
    // a page of another site sends it; nothing a page of another site sends without one changes anything.
    const retry = `${emu.url}/emulator/deliveries/01ABCDEFGHJKMNPQRSTVWXYZ00/retry`;
    const before = (await emu.control.listAccounts()).data.length;
    for (const headers of [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Array<Record<string, string>>) {
      const res = await fetch(retry, { method: 'POST', headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(((await res.json()) as { error: string }).error).toMatch(/^Forbidden: a request from another site/);
      const account = await fetch(`${emu.url}/emulator/accounts`, { method: 'POST', headers });
      expect([403, 415], JSON.stringify(headers)).toContain(account.status);
    }
    expect((await emu.control.listAccounts()).data.length).toBe(before);
    // The same call from no other site reaches the operation (which has no such delivery).
    expect((await fetch(retry, { method: 'POST' })).status).toBe(404);
  });

  it('does not guard the service API by Host (it needs an API key instead)', async () => {
    const res = await emu.request('GET', '/v1/webhook', { headers: { host: 'mailyard.example' } });
    expect(res.status).toBe(200);
  });
});

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document of every operation, with resolvable references', async () => {
    const res = await emu.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe('3.1.0');
    // Every operation and documented route of the table, and nothing else.
    expect(Object.keys(doc.paths).sort()).toEqual([...new Set(TABLE.map((r) => r.path))].sort());
    expect(doc.paths['/emulator/deliveries/{id}'].get.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: expect.any(Object) }]);
    // A captured message is one recipient's copy, addressed by its own id.
    expect(doc.paths['/emulator/messages/{id}'].get.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: expect.any(Object) }]);
    // A send answers one ref_id for the whole request, as the real service does.
    expect(doc.paths['/v1/email/send'].post.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SendEmailResponse' });
    expect(doc.components.schemas.SendEmailResponse).toMatchObject({ required: ['success', 'ref_id'], properties: { ref_id: { type: 'string' } } });
    expect(doc.paths['/v1/email/logs'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/EmailLogsResponse' });
    expect(doc.components.schemas.EmailLogsResponse.required).toEqual(expect.arrayContaining(['success', 'emailLogs', 'nextPageToken', 'totalCount']));
    const register = doc.paths['/v1/webhook/register'].post;
    expect(register.operationId).toBe('registerWebhook');
    expect(register.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
    expect(Object.keys(register.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '409', '422']));
    const text = JSON.stringify(doc);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(doc.components.schemas[ref], ref).toBeDefined();
    const body = doc.components.schemas.RegisterWebhookBody;
    expect(body.required).toEqual(expect.arrayContaining(['webhook_url', 'event', 'method']));
    // The service API ignores unknown fields (API.md part 0): the document never refuses what the server takes.
    expect(body.additionalProperties).toBeUndefined();
    expect(JSON.stringify(doc.paths['/v1/email/send'].post.requestBody)).not.toContain('"additionalProperties":false');
  });

  it('routes every operation and documented route of the table (a request reaches the route, never a 404 naming it)', async () => {
    for (const route of TABLE) {
      const path = route.path.replace(/\{n\}/g, '0').replace(/\{\w+\}/g, 'x');
      // A text body is refused (415) before any handler runs: the probe changes nothing.
      const res =
        route.method === 'GET'
          ? await emu.request('GET', route.path === '/emulator/stream' ? '/emulator/messages' : path, { apiKey: null })
          : await emu.request(route.method, path, { apiKey: null, body: 'probe', headers: { 'content-type': 'text/plain' } });
      expect(`${route.method} ${route.path} ${res.status} ${res.text}`).not.toMatch(/Route \S+ \S+ not found/);
    }
  });
  it("declares the statuses the server sends, in each operation's own words, and the error bodies as each call sends them", async () => {
    const doc = (await emu.request('GET', '/openapi.json')).json;
    const op = (path: string, method: string) => doc.paths[path][method];
    // The error schema is a definition, not a reference to itself.
    expect(doc.components.schemas.ErrorResponse).toMatchObject({ type: 'object', required: ['success', 'error'] });
    expect(doc.components.schemas.ErrorResponse.$ref).toBeUndefined();
    // 414 wherever a path parameter is, 413 wherever a body is, 408 everywhere: each as the server answers it.
    for (const [path, methods] of Object.entries<Record<string, { parameters?: { in: string }[]; requestBody?: unknown; responses: Record<string, unknown> }>>(
      doc.paths,
    )) {
      for (const [method, o] of Object.entries(methods)) {
        expect(Object.keys(o.responses), `${method} ${path}`).toContain('408');
        if (o.parameters?.some((p) => p.in === 'path')) expect(Object.keys(o.responses), `${method} ${path}`).toContain('414');
        if (o.requestBody) expect(Object.keys(o.responses), `${method} ${path}`).toContain('413');
      }
    }
    const long = await emu.request('GET', `/v1/domain/${'a'.repeat(2000)}.com`);
    expect(long.status).toBe(414);
    const { mailer_id } = await emu.service.addDomain({ domain: 'openapi-doc.example' });
    const foreign = await emu.request('POST', '/v1/email/send', {
      body: {
        mailer_id,
        from: { email: 'app@not-my-domain.example' },
        to: [{ email: 'ann@example.org' }],
        subject: 's',
        content: [{ type: 'text/plain', value: 'v' }],
      },
    });
    expect(foreign.status).toBe(403);
    expect(op('/v1/email/send', 'post').responses['403'].description).toMatch(new RegExp(`^${foreign.json.error}`));
    expect(op('/v1/smtpbasic/verify', 'post').responses['422'].description).toMatch(/SMTP server could not be connected to/);
    // Webhook errors always carry details (an object, as their pages show it), domain errors records.
    expect(op('/v1/webhook/register', 'post').responses['400'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorResponseWithDetails',
    });
    expect(doc.components.schemas.ErrorResponseWithDetails.required).toContain('details');
    expect(doc.components.schemas.ErrorResponseWithDetails.properties.details.type).toBe('object');
    expect((await emu.request('GET', '/v1/webhook', { apiKey: null })).json.details).toEqual({});
    expect((await emu.request('GET', '/v1/domain/nowhere.example')).json.records).toEqual({});
    // Answered before any route is matched (the HTTP parser, the router): the plain body.
    expect(op('/v1/webhook/register', 'post').responses['408'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(op('/v1/domain/{domain}', 'get').responses['404'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorResponseWithRecords',
    });
    expect(doc.components.schemas.ErrorResponseWithRecords.required).toContain('records');
    // The send's body as the docs have it: subject and content unless a template supplies them; an attachment's type.
    // Two whole shapes a generator can type (the same fields; one requires subject and content, the other a template_id).
    const schemas = doc.components.schemas;
    expect(schemas.SendEmailBody.anyOf).toEqual([
      { $ref: '#/components/schemas/SendEmailWithContent' },
      { $ref: '#/components/schemas/SendEmailWithTemplate' },
    ]);
    const [withContent, withTemplate] = [schemas.SendEmailWithContent, schemas.SendEmailWithTemplate];
    expect(withContent.required).toEqual(['from', 'to', 'subject', 'content']);
    expect(withTemplate.required).toEqual(['from', 'to', 'template_id']);
    expect(Object.keys(withTemplate.properties)).toEqual(Object.keys(withContent.properties));
    expect(withTemplate.properties.template_id).toEqual({ ...withContent.properties.template_id, minLength: 1 });
    const send = withContent;
    const attachments = send.properties.attachments.items;
    const attachment = attachments.$ref ? doc.components.schemas[attachments.$ref.split('/').pop()] : attachments;
    expect(attachment.required).toEqual(expect.arrayContaining(['filename', 'content', 'type']));
    // The Checks tab's JSON, the downloads and the stream are described with what they answer.
    expect(op('/emulator/messages/{id}/checks', 'get').responses['200'].content['application/json'].schema).toBeDefined();
    expect(op('/emulator/messages/{id}/spam', 'get').responses['200'].content['application/json'].schema).toBeDefined();
    expect(Object.keys(op('/emulator/messages/{id}/raw', 'get').responses['200'].content)).toEqual(['message/rfc822']);
    expect(Object.keys(op('/emulator/stream', 'get').responses['200'].content)).toEqual(['text/event-stream']);
  });
});

describe('web UI', () => {
  it('serves a page at / with a strict content security policy', async () => {
    const res = await fetch(`${emu.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});

describe('web UI, built', () => {
  it('serves the page and files as they are now: a rebuild shows without a restart', async () => {
    const uiDir = await mkdtemp(join(tmpdir(), 'mailyard-ui-'));
    const write = (name: string, text: string) => writeFile(join(uiDir, name), text);
    await mkdir(join(uiDir, 'assets'));
    await write('index.html', '<!doctype html><script type="module" src="/assets/index-old.js"></script>');
    await write('assets/index-old.js', 'console.log("old")');
    await write('.env', 'SECRET=1');
    const ui = await startEmulator({ uiDir });
    try {
      const get = (path: string, accept = 'text/html') => fetch(`${ui.url}${path}`, { headers: { accept } });
      expect(await (await get('/')).text()).toContain('index-old.js');
      expect((await get('/assets/index-old.js', '*/*')).status).toBe(200);
      // A deep link gets the page (the UI routes on the client); an unknown API path stays a JSON 404.
      expect(await (await get('/messages/01ABC')).text()).toContain('index-old.js');
      const api = await get('/v1/nothing-here', 'application/json');
      expect(api.status).toBe(404);
      expect(await api.json()).toMatchObject({ success: false });
      expect((await get('/.env', '*/*')).status).toBe(404);

      // `npm run build` replaces the page and its hashed files.
      await write('assets/index-new.js', 'console.log("new")');
      await write('index.html', '<!doctype html><script type="module" src="/assets/index-new.js"></script><!-- new -->');
      await rm(join(uiDir, 'assets/index-old.js'));
      expect(await (await get('/')).text()).toContain('index-new.js');
      expect((await get('/assets/index-new.js', '*/*')).status).toBe(200);
    } finally {
      await ui.cleanup();
      await rm(uiDir, { recursive: true, force: true });
    }
  });
});
