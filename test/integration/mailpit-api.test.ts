import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * Mailpit's API as the `mailpit-api` client (2.x) calls it: the same URL building (query parameters
 * set one by one, undefined ones left out), the same headers (basic auth, a JSON Content-Type only
 * with a body), the same body (JSON.stringify of the argument, none when undefined), and the same
 * rule that any status but 200 is an error carrying the response's text.
 */
const KEY = 'mailpit-test-key';
let emu: TestEmulator;

type Params = Record<string, string | number | boolean | undefined>;

async function mailpit(method: string, path: string, opts: { params?: Params; body?: unknown; auth?: string | null } = {}) {
  const url = new URL(emu.url.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(opts.params ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  const headers = new Headers();
  const password = opts.auth === undefined ? KEY : opts.auth;
  if (password !== null) headers.set('Authorization', `Basic ${Buffer.from(`mailpit:${password}`).toString('base64')}`);
  if (opts.body !== undefined) headers.set('Content-Type', 'application/json');
  const res = await fetch(url, { method, headers, body: JSON.stringify(opts.body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: Buffer.from(await res.arrayBuffer()) };
}
const json = async (method: string, path: string, opts?: Parameters<typeof mailpit>[2]) => {
  const res = await mailpit(method, path, opts);
  expect(res.status, res.bytes.toString()).toBe(200);
  return JSON.parse(res.bytes.toString());
};
const text = async (method: string, path: string, opts?: Parameters<typeof mailpit>[2]) => {
  const res = await mailpit(method, path, opts);
  expect(res.status, res.bytes.toString()).toBe(200);
  return res.bytes.toString();
};

const pdf = randomBytes(3_000);
const png = randomBytes(500);

async function send(subject: string, extra: Record<string, unknown> = {}) {
  return emu.service.sendEmail({
    from: { email: 'app@example.com', name: 'The App' },
    to: [{ email: 'ann@example.com', name: 'Ann' }],
    subject,
    content: [
      { type: 'text/plain', value: `Hello Ann, your code is 424242 (${subject})` },
      { type: 'text/html', value: `<p>Hello <b>Ann</b> <a href="https://example.com/reset">reset</a> <img src="cid:logo@app"></p>` },
    ],
    ...extra,
  });
}

beforeAll(async () => {
  emu = await startEmulator({ controlKey: KEY });
});
afterAll(() => emu.cleanup());
beforeEach(async () => {
  await text('DELETE', '/api/v1/messages');
});

describe("Mailpit's API", () => {
  it('info and webui answer Mailpit shapes; chaos answers as Mailpit with chaos off', async () => {
    await send('one');
    const info = await json('GET', '/api/v1/info');
    expect(info).toMatchObject({ Messages: 1, Unread: 1, Tags: {}, RuntimeStats: expect.objectContaining({ Uptime: expect.any(Number) }) });
    expect(info.Version).toMatch(/mailyard/);
    const webui = await json('GET', '/api/v1/webui');
    expect(webui).toMatchObject({ ChaosEnabled: false, MessageRelay: { Enabled: false } });
    const chaos = await mailpit('GET', '/api/v1/chaos');
    expect([chaos.status, chaos.bytes.toString()]).toEqual([400, 'Chaos is not enabled']);
    expect((await mailpit('PUT', '/api/v1/chaos', { body: {} })).status).toBe(400);
  });

  it('lists newest first with start and limit, counts and unread', async () => {
    for (const s of ['first', 'second', 'third']) await send(s);
    const page = await json('GET', '/api/v1/messages', { params: { start: 0, limit: 50 } });
    expect(page).toMatchObject({ total: 3, unread: 3, messages_count: 3, messages_unread: 3, start: 0, count: 3, tags: [] });
    expect(page.messages.map((m: { Subject: string }) => m.Subject)).toEqual(['third', 'second', 'first']);
    const row = page.messages[0];
    expect(row).toMatchObject({
      Read: false,
      From: { Name: 'The App', Address: 'app@example.com' },
      To: [{ Name: 'Ann', Address: 'ann@example.com' }],
      Cc: [],
      Bcc: [],
      ReplyTo: [],
      Tags: [],
      Attachments: 0,
    });
    expect(row.Snippet).toBe('Hello Ann, your code is 424242 (third)');
    expect(row.Size).toBeGreaterThan(100);
    const second = await json('GET', '/api/v1/messages', { params: { start: 1, limit: 1 } });
    expect(second.messages.map((m: { Subject: string }) => m.Subject)).toEqual(['second']);
    expect(second.messages_count).toBe(3);
    const bad = await mailpit('GET', '/api/v1/messages', { params: { limit: 5000 } });
    expect(bad.status).toBe(400);
    expect(bad.bytes.toString()).toMatch(/limit must be at most 1000/);
  });

  it('searches with Mailpit operators, and answers 400 without a query', async () => {
    await send('invoice ready');
    await send('welcome aboard', { to: [{ email: 'bob@example.com', name: 'Bob' }] });
    const found = await json('GET', '/api/v1/search', { params: { query: 'to:bob@example.com', start: undefined, limit: undefined, tz: undefined } });
    expect(found.messages.map((m: { Subject: string }) => m.Subject)).toEqual(['welcome aboard']);
    expect(found).toMatchObject({ messages_count: 1, messages_unread: 1, total: 2 });
    const subject = await json('GET', '/api/v1/search', { params: { query: 'subject:invoice' } });
    expect(subject.messages_count).toBe(1);
    const none = await mailpit('GET', '/api/v1/search', { params: { query: '' } });
    expect([none.status, none.bytes.toString()]).toEqual([400, 'Error: no search query']);
  });

  it('one message by id and latest, headers, raw, parts by PartID, and the views', async () => {
    await send('older');
    await send('with files', {
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64'), type: 'application/pdf' },
        { filename: 'logo.png', content: png.toString('base64'), type: 'image/png', disposition: 'inline', content_id: 'logo@app' },
      ],
    });
    const msg = await json('GET', '/api/v1/message/latest');
    expect(msg).toMatchObject({ Subject: 'with files', From: { Address: 'app@example.com', Name: 'The App' }, Tags: [], Bcc: [] });
    expect(msg.Text).toContain('424242');
    expect(msg.HTML).toContain('<b>Ann</b>');
    expect(msg.MessageID).not.toMatch(/[<>]/);
    expect(msg.Attachments).toHaveLength(1);
    expect(msg.Attachments[0]).toMatchObject({ FileName: 'invoice.pdf', ContentType: 'application/pdf', Size: pdf.length });
    expect(msg.Attachments[0].Checksums.SHA256).toMatch(/^[0-9a-f]{64}$/);
    expect(msg.Inline).toHaveLength(1);
    expect(msg.Inline[0]).toMatchObject({ FileName: 'logo.png', ContentID: 'logo@app' });
    const part = await mailpit('GET', `/api/v1/message/${msg.ID}/part/${msg.Attachments[0].PartID}`);
    expect(part.status).toBe(200);
    expect(part.type).toMatch(/application\/pdf/);
    expect(part.bytes.equals(pdf)).toBe(true);
    expect((await mailpit('GET', `/api/v1/message/${msg.ID}/part/9.9`)).status).toBe(404);
    // Reading a message marks it read, as in Mailpit.
    expect((await json('GET', '/api/v1/info')).Unread).toBe(1);

    const headers = await json('GET', `/api/v1/message/${msg.ID}/headers`);
    expect(headers.Subject).toEqual(['with files']);
    expect(headers['Message-Id']).toHaveLength(1);
    const raw = await text('GET', `/api/v1/message/${msg.ID}/raw`);
    expect(raw).toMatch(/^[\s\S]*Subject: with files/);
    const html = await text('GET', `/view/${msg.ID}.html`);
    expect(html).toContain('<b>Ann</b>');
    expect(await text('GET', '/view/latest.txt')).toContain('your code is 424242 (with files)');

    const missing = await mailpit('GET', '/api/v1/message/01NOSUCHMESSAGE');
    expect(missing.status).toBe(404);
    expect(missing.type).toMatch(/text\/plain/);
  });

  it('read status: by IDs, by search, all; and is:read / is:unread in search', async () => {
    await send('alpha');
    await send('beta');
    const [beta, alpha] = (await json('GET', '/api/v1/messages', { params: { start: 0, limit: 50 } })).messages;
    expect(await text('PUT', '/api/v1/messages', { body: { IDs: [alpha.ID], Read: true } })).toBe('ok');
    const read = await json('GET', '/api/v1/search', { params: { query: 'is:read' } });
    expect(read.messages.map((m: { ID: string }) => m.ID)).toEqual([alpha.ID]);
    const unread = await json('GET', '/api/v1/search', { params: { query: 'is:unread' } });
    expect(unread.messages.map((m: { ID: string }) => m.ID)).toEqual([beta.ID]);
    await text('PUT', '/api/v1/messages', { body: { Search: 'subject:beta', Read: true } });
    expect((await json('GET', '/api/v1/info')).Unread).toBe(0);
    // The client's default: no IDs, no Read: every message unread.
    await text('PUT', '/api/v1/messages', { body: {} });
    expect((await json('GET', '/api/v1/messages', { params: { start: 0, limit: 50 } })).unread).toBe(2);
    const both = await mailpit('PUT', '/api/v1/messages', { body: { IDs: [alpha.ID], Search: 'x' } });
    expect([both.status, both.bytes.toString()]).toEqual([400, 'You may specify either IDs or a search query, not both']);
  });

  it('tags: set, list, search with tag:, rename, delete', async () => {
    await send('tagged one');
    await send('tagged two');
    const [two, one] = (await json('GET', '/api/v1/messages', { params: { start: 0, limit: 50 } })).messages;
    expect(await text('PUT', '/api/v1/tags', { body: { IDs: [one.ID, two.ID], Tags: ['Signup', 'urgent'] } })).toBe('ok');
    await text('PUT', '/api/v1/tags', { body: { IDs: [two.ID], Tags: ['urgent'] } });
    expect(await json('GET', '/api/v1/tags')).toEqual(['Signup', 'urgent']);
    expect((await json('GET', '/api/v1/info')).Tags).toEqual({ Signup: 1, urgent: 2 });
    const signup = await json('GET', '/api/v1/search', { params: { query: 'tag:signup' } });
    expect(signup.messages.map((m: { ID: string; Tags: string[] }) => [m.ID, m.Tags])).toEqual([[one.ID, ['Signup', 'urgent']]]);
    await text('PUT', `/api/v1/tags/${encodeURIComponent('urgent')}`, { body: { Name: 'later' } });
    expect(await json('GET', '/api/v1/tags')).toEqual(['later', 'Signup']);
    await text('DELETE', `/api/v1/tags/${encodeURIComponent('Signup')}`);
    expect((await json('GET', `/api/v1/message/${one.ID}`)).Tags).toEqual(['later']);
    const bad = await mailpit('PUT', '/api/v1/tags', { body: { IDs: [one.ID], Tags: [' '] } });
    expect(bad.status).toBe(400);
  });

  it('deletes by IDs, by search, and all', async () => {
    await send('keep me');
    await send('drop by id');
    await send('drop by search');
    const list = (await json('GET', '/api/v1/messages', { params: { start: 0, limit: 50 } })).messages;
    const byId = list.find((m: { Subject: string }) => m.Subject === 'drop by id');
    expect(await text('DELETE', '/api/v1/messages', { body: { IDs: [byId.ID] } })).toBe('ok');
    expect(await text('DELETE', '/api/v1/search', { params: { query: 'subject:search' } })).toBe('ok');
    const left = await json('GET', '/api/v1/messages', { params: { start: 0, limit: 50 } });
    expect(left.messages.map((m: { Subject: string }) => m.Subject)).toEqual(['keep me']);
    expect((await mailpit('DELETE', '/api/v1/search', { params: {} })).status).toBe(400);
    await text('DELETE', '/api/v1/messages');
    expect((await json('GET', '/api/v1/messages', { params: { start: 0, limit: 50 } })).total).toBe(0);
    const latest = await mailpit('GET', '/api/v1/message/latest');
    expect(latest.status).toBe(404);
  });

  it('takes the control key as basic auth (the password) or a bearer header; refuses without it', async () => {
    const none = await mailpit('GET', '/api/v1/info', { auth: null });
    expect(none.status).toBe(401);
    expect(none.type).toMatch(/text\/plain/);
    expect((await mailpit('GET', '/api/v1/info', { auth: 'wrong' })).status).toBe(401);
    const bearer = await fetch(`${emu.url}/api/v1/info`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(bearer.status).toBe(200);
  });
});
