import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InboundPayload } from '../../src-shared/schemas/inbound';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { closedPort, type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator;
let domainHook: Receiver;
let userHook: Receiver;

beforeEach(async () => {
  domainHook = await startReceiver();
  userHook = await startReceiver();
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
});
afterEach(async () => {
  await emu.cleanup();
  await domainHook.close();
  await userHook.close();
});

const smtp = () => nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });

async function deliveries(query = '') {
  const res = await emu.request('GET', `/emulator/deliveries?category=INBOUND${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json.data.deliveries as Array<Record<string, any>>;
}

/** Lets the dispatcher's microtask-batched work and one round of attempts happen. */
const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));

describe('inbound routing API', () => {
  it('configures, reads, updates and deletes a domain route, with the errors a user would expect', async () => {
    const created = await emu.request('POST', '/v1/inbound/domain', {
      body: { domain: 'Inbound.Example.COM', url: domainHook.url, method: 'POST', headers: { 'X-Secret': 's1' } },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({
      success: true,
      message: 'Inbound routing configured successfully',
      data: { domain: 'inbound.example.com', url: domainHook.url, method: 'POST', headers: { 'X-Secret': 's1' }, usernames: [] },
    });
    const again = await emu.request('POST', '/v1/inbound/domain', { body: { domain: 'inbound.example.com', url: domainHook.url, method: 'POST' } });
    expect([again.status, again.json]).toEqual([409, { success: false, error: 'Inbound Domain Already Exists' }]);
    const bad = await emu.request('POST', '/v1/inbound/domain', { body: { domain: 'not a domain', url: domainHook.url, method: 'POST' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/^domain /);
    const badMethod = await emu.request('POST', '/v1/inbound/domain', { body: { domain: 'x.example.com', url: domainHook.url, method: 'SEND' } });
    expect(badMethod.status).toBe(400);
    expect(Object.keys(badMethod.json.fields)[0]).toBe('method');
    const unreachable = await emu.request('POST', '/v1/inbound/domain', {
      body: { domain: 'y.example.com', url: `http://127.0.0.1:${await closedPort()}/in`, method: 'POST' },
    });
    expect(unreachable.status).toBe(422);
    expect(unreachable.json.error).toMatch(/^Webhook URL is not reachable: /);
    expect((await emu.request('GET', '/v1/inbound/domain/unknown.example.com')).status).toBe(404);

    const updated = await emu.service.updateInboundDomain('inbound.example.com', { method: 'PUT', headers: {} });
    expect(updated.data).toMatchObject({ method: 'PUT', headers: {}, url: domainHook.url });
    expect((await emu.service.getInboundDomain('INBOUND.example.com')).data.method).toBe('PUT');

    // Another account sees none of it.
    const other = await emu.control.createAccount({ name: 'other' });
    expect((await emu.request('GET', '/v1/inbound/domain/inbound.example.com', { apiKey: other.data.api_key })).status).toBe(404);

    expect((await emu.request('DELETE', '/v1/inbound/domain/inbound.example.com')).json).toEqual({
      success: true,
      message: 'Inbound domain deleted successfully',
    });
    expect((await emu.request('GET', '/v1/inbound/domain/inbound.example.com')).status).toBe(404);
  });

  it('creates and updates usernames: their own URL, or the domain’s', async () => {
    expect((await emu.request('POST', '/v1/inbound/username', { body: { domain: 'none.example.com', username: 'a' } })).status).toBe(404);
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: domainHook.url, method: 'POST' });
    const own = await emu.service.createInboundUsername({
      domain: 'in.example.com',
      username: 'Support',
      url: userHook.url,
      method: 'PATCH',
      headers: { Authorization: 'Bearer t' },
    });
    expect(own.data).toMatchObject({
      domain: 'in.example.com',
      username: 'support',
      url: userHook.url,
      effective: { url: userHook.url, method: 'PATCH', headers: { Authorization: 'Bearer t' } },
    });
    const dup = await emu.request('POST', '/v1/inbound/username', { body: { domain: 'in.example.com', username: 'support' } });
    expect(dup.status).toBe(409);
    expect(dup.json.error).toBe('Inbound Username Already Exists');
    const methodAlone = await emu.request('POST', '/v1/inbound/username', { body: { domain: 'in.example.com', username: 'b', method: 'PUT' } });
    expect(methodAlone.status).toBe(400);
    expect(methodAlone.json.error).toMatch(/^method needs url/);

    const back = await emu.service.updateInboundUsername('in.example.com', 'support', { url: null });
    expect(back.data).toMatchObject({ url: null, method: null, headers: null, effective: { url: domainHook.url, method: 'POST', headers: {} } });
    expect((await emu.service.getInboundDomain('in.example.com')).data.usernames).toEqual(['support']);
    expect((await emu.request('GET', '/v1/inbound/domain/in.example.com/username/nobody')).status).toBe(404);
  });
});

describe('inbound mail', () => {
  beforeEach(async () => {
    // A wildcard domain: every username's mail is accepted (docs/inbound.md, the guide's first rule).
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: domainHook.url, method: 'POST', headers: { 'X-Domain': 'd' }, wildcard: true });
    await emu.service.createInboundUsername({ domain: 'in.example.com', username: 'support', url: userHook.url, method: 'PUT', headers: { 'X-User': 'u' } });
  });

  it('posts SMTP mail for a username to its URL and for other names to the domain’s, parsed, with attachments; other recipients are captured', async () => {
    const attachment = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    const info = await smtp().sendMail({
      from: '"Customer" <cust@example.org>',
      to: ['support@in.example.com', 'sales@IN.example.com', 'someone@elsewhere.test'],
      subject: 'Help with order ✓',
      text: 'Please help',
      html: '<p>Please help</p>',
      headers: { 'X-Ticket': '77' },
      attachments: [{ filename: 'photo.bin', content: attachment, cid: 'photo@cust' }],
    });
    // The reply names the captured message's one ref_id, then each inbound post's.
    expect(info.response).toMatch(/queued as (\w{26} ?){3}$/);
    const replyRefs = /queued as (.+)$/.exec(info.response)![1]!.split(' ');
    const [toUser] = await userHook.waitFor(1);
    const [toDomain] = await domainHook.waitFor(1);
    expect(toUser!.method).toBe('PUT');
    expect(toUser!.headers['x-user']).toBe('u');
    expect(toUser!.headers['x-domain']).toBeUndefined();
    expect(toDomain!.method).toBe('POST');
    expect(toDomain!.headers['x-domain']).toBe('d');

    const user = InboundPayload.parse(JSON.parse(toUser!.body));
    const domain = InboundPayload.parse(JSON.parse(toDomain!.body));
    expect(user).toMatchObject({
      event: 'inbound',
      domain: 'in.example.com',
      username: 'support',
      recipient: 'support@in.example.com',
      from: { email: 'cust@example.org', name: 'Customer' },
      subject: 'Help with order ✓',
      html: '<p>Please help</p>',
    });
    expect(user.text.trim()).toBe('Please help');
    expect(user.headers['X-Ticket']).toBe('77');
    expect(user.to.map((a) => a.email.toLowerCase())).toEqual(['support@in.example.com', 'sales@in.example.com', 'someone@elsewhere.test']);
    expect(user.attachments).toHaveLength(1);
    expect(user.attachments[0]).toMatchObject({ filename: 'photo.bin', content_id: 'photo@cust', size: 5000 });
    const got = Buffer.from(user.attachments[0]!.content, 'base64');
    expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(attachment).digest('hex'));
    expect(domain.username).toBe('sales');
    expect(domain.recipient.toLowerCase()).toBe('sales@in.example.com');
    expect(user.ref_id).not.toBe(domain.ref_id);
    // The webhook-id of the post is its delivery, listed with its attempts.
    const list = await deliveries();
    expect(list.map((d) => d.ref_id).sort()).toEqual([user.ref_id, domain.ref_id].sort());
    expect(list.every((d) => d.status === 'succeeded' && d.event === 'inbound')).toBe(true);

    // Only the recipient outside the routed domain is a captured message with events.
    const messages = (await emu.request('GET', '/emulator/messages')).json.data.messages;
    expect(messages.map((m: any) => m.recipient.email)).toEqual(['someone@elsewhere.test']);
    expect(replyRefs[0]).toBe(messages[0].ref_id);
    expect(replyRefs.slice(1).sort()).toEqual([user.ref_id, domain.ref_id].sort());
  });

  it('retries a failing route on the schedule, following the route’s current URL', async () => {
    domainHook.status = 500;
    await emu.control.simulateInbound({ from: { email: 'a@example.org' }, to: ['x@in.example.com'], subject: 'retry me', text: 'hi' });
    await domainHook.waitFor(1);
    await settle();
    let [d] = await deliveries();
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });

    // The domain's URL moves; the retry goes to the new one.
    await emu.service.updateInboundDomain('in.example.com', { url: userHook.url });
    await emu.control.setClock({ advance_ms: 4_999 });
    await settle();
    expect(userHook.requests).toHaveLength(0);
    await emu.control.setClock({ advance_ms: 1 });
    const [retry] = await userHook.waitFor(1);
    expect(JSON.parse(retry!.body).subject).toBe('retry me');
    expect(retry!.headers['webhook-id']).toBe(d!.id);
    await settle();
    [d] = await deliveries();
    expect(d).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('cancels the pending posts of a deleted route, and keeps retrying an unreachable one', async () => {
    domainHook.status = 503;
    await emu.control.simulateInbound({ from: { email: 'a@example.org' }, to: ['x@in.example.com'], subject: 's', text: 't' });
    await domainHook.waitFor(1);
    await settle();
    await emu.service.deleteInboundDomain('in.example.com');
    await settle();
    expect((await deliveries())[0]).toMatchObject({ status: 'cancelled', attempts: 1 });
    await emu.control.setClock({ advance_ms: 3_600_000 });
    await settle();
    expect(domainHook.requests).toHaveLength(1);

    // A route whose receiver went away: refused attempts, still pending for the next retry.
    await emu.service.configureInboundRouting({ domain: 'gone.example.com', url: userHook.url, method: 'POST', wildcard: true });
    await userHook.close();
    await emu.control.simulateInbound({ from: { email: 'a@example.org' }, to: ['x@gone.example.com'], subject: 's', text: 't' });
    await settle(400);
    const [pending] = await deliveries('&status=pending');
    expect(pending).toMatchObject({ attempts: 1, status: 'pending' });
    const detail = (await emu.request('GET', `/emulator/deliveries/${pending!.id}`)).json.data;
    expect(detail.attempt_log[0].error.code).toBe('refused');
  });

  it('simulates inbound mail without SMTP, raw or composed, and names recipients without a route', async () => {
    const res = await emu.control.simulateInbound({
      to: ['support@in.example.com', 'a@unrouted.example.net'],
      raw: 'From: x@example.org\r\nSubject: raw one\r\n\r\nbody\r\n',
    });
    expect(res.data.recipients).toMatchObject([
      { email: 'support@in.example.com', routed: true, rule: 'Wildcard Domain', reason: null },
      { email: 'a@unrouted.example.net', routed: false, ref_id: null, rule: null, reason: 'no inbound route for the domain unrouted.example.net' },
    ]);
    const [post] = await userHook.waitFor(1);
    expect(JSON.parse(post!.body)).toMatchObject({ subject: 'raw one', from: { email: 'x@example.org' } });
    const both = await emu.request('POST', '/emulator/inbound', { body: { to: ['a@in.example.com'], raw: 'x', subject: 'y' } });
    expect(both.status).toBe(400);
    expect(both.json.error).toMatch(/subject may not be given with raw/);
    expect((await emu.request('POST', '/emulator/inbound', { body: { to: ['a@in.example.com'] } })).json.error).toMatch(/^from is required/);
    const unknown = await emu.request('POST', '/emulator/inbound', { body: { account_id: 'nope', to: ['a@in.example.com'], raw: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toBe('Account Not Found');
    const fired = await emu.request('POST', '/emulator/events', { body: { event: 'delivery', account_id: 'nope' } });
    expect(fired.status).toBe(404);
    expect(fired.json.error).toBe('Account Not Found');
  });
});
