import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InboundPayload } from '../../src-shared/schemas/inbound';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { startReceiver, type Receiver } from '../helpers/receiver';

let emu: TestEmulator;
let wild: Receiver;
let exact: Receiver;

beforeEach(async () => {
  wild = await startReceiver();
  exact = await startReceiver();
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
});
afterEach(async () => {
  await emu.cleanup();
  await wild.close();
  await exact.close();
});

const smtp = () => nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });
const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));
const payloadOf = (body: string) => InboundPayload.parse(JSON.parse(body));

describe('inbound routing as the inbound guide describes it', () => {
  it('a wildcard domain catches mail for its subdomains over real SMTP; an exact route of a subdomain wins; without wildcard only the domain itself', async () => {
    const created = await emu.request('POST', '/v1/inbound/domain', {
      body: { domain: 'replies.example.com', url: wild.url, method: 'POST', wildcard: true },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.json.data).toMatchObject({ domain: 'replies.example.com', wildcard: true, strict_replies: false });
    await emu.service.configureInboundRouting({ domain: 'exact.replies.example.com', url: exact.url, method: 'POST' });
    await emu.service.configureInboundRouting({ domain: 'plain.example.com', url: exact.url, method: 'POST' });

    const info = await smtp().sendMail({
      from: 'cust@example.org',
      to: ['ticket-7@t1.replies.example.com', 'a@deep.t2.replies.example.com', 'b@exact.replies.example.com', 'c@sub.plain.example.com'],
      subject: 'Re: your ticket',
      text: 'thanks',
    });
    expect(info.accepted).toHaveLength(4);
    const toWild = (await wild.waitFor(2)).map((r) => payloadOf(r.body));
    expect(toWild.map((p) => p.recipient).sort()).toEqual(['a@deep.t2.replies.example.com', 'ticket-7@t1.replies.example.com']);
    expect(toWild.find((p) => p.recipient.startsWith('ticket-7'))).toMatchObject({
      domain: 'replies.example.com',
      username: 'ticket-7',
      subject: 'Re: your ticket',
    });
    const [toExact] = await exact.waitFor(1);
    expect(payloadOf(toExact!.body)).toMatchObject({ domain: 'exact.replies.example.com', recipient: 'b@exact.replies.example.com' });
    await settle();
    // sub.plain.example.com: plain.example.com has no wildcard, so nothing routes it.
    expect(wild.requests).toHaveLength(2);
    expect(exact.requests).toHaveLength(1);

    // Turned off, the wildcard no longer catches subdomains.
    const off = await emu.request('PUT', '/v1/inbound/domain/replies.example.com', { body: { wildcard: false } });
    expect(off.status, off.text).toBe(200);
    expect(off.json.data.wildcard).toBe(false);
    const simulated = (await emu.control.simulateInbound({ from: { email: 'x@example.org' }, to: ['y@t1.replies.example.com'], subject: 's', text: 't' })).data;
    expect(simulated.recipients[0]).toMatchObject({ routed: false });
    expect(
      (await emu.request('POST', '/v1/inbound/domain', { body: { domain: 'w.example.com', url: wild.url, method: 'POST', wildcard: 'yes' } })).json.details
        .fields,
    ).toHaveProperty('wildcard');
  });

  it('username routes work under a wildcard domain', async () => {
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: wild.url, method: 'POST', wildcard: true } as never);
    await emu.service.createInboundUsername({ domain: 'in.example.com', username: 'support', url: exact.url, method: 'POST' });
    await smtp().sendMail({ from: 'cust@example.org', to: ['support@eu.in.example.com'], subject: 'help', text: 'please' });
    const [post] = await exact.waitFor(1);
    expect(payloadOf(post!.body)).toMatchObject({ username: 'support', recipient: 'support@eu.in.example.com' });
    expect(wild.requests).toHaveLength(0);
  });

  it('strict_replies posts only replies to a message the account sent; other mail is accepted and not posted', async () => {
    const created = await emu.request('POST', '/v1/inbound/domain', {
      body: { domain: 'in.example.com', url: wild.url, method: 'POST', strict_replies: true },
    });
    expect(created.json.data).toMatchObject({ strict_replies: true, wildcard: false });
    const sent = await emu.service.sendEmail({
      from: { email: 'support@in.example.com' },
      to: [{ email: 'cust@example.org' }],
      subject: 'Your ticket',
      content: [{ type: 'text/plain', value: 'We are on it' }],
    } as never);
    const [copy] = (await emu.control.listMessages({ q: sent.ref_id })).data.messages;
    const messageId = `<${copy!.id}@mailyard.local>`;

    const transport = smtp();
    const fresh = await transport.sendMail({ from: 'cust@example.org', to: 'support@in.example.com', subject: 'Unrelated', text: 'hi' });
    expect(fresh.accepted).toEqual(['support@in.example.com']);
    await transport.sendMail({
      from: 'cust@example.org',
      to: 'support@in.example.com',
      subject: 'Spoofed',
      text: 'x',
      inReplyTo: '<01ARZ3NDEKTSV4RRFFQ69G5FAV@mailyard.local>',
    });
    await transport.sendMail({
      from: 'cust@example.org',
      to: 'support@in.example.com',
      subject: 'Re: Your ticket',
      text: 'thanks',
      inReplyTo: messageId,
      references: [messageId],
    });
    const [reply] = await wild.waitFor(1);
    expect(payloadOf(reply!.body)).toMatchObject({ subject: 'Re: Your ticket', username: 'support' });
    await settle();
    expect(wild.requests).toHaveLength(1);

    const simulated = (await emu.control.simulateInbound({ from: { email: 'x@example.org' }, to: ['support@in.example.com'], subject: 's', text: 't' })).data;
    expect(simulated.recipients[0]).toMatchObject({ routed: false, reason: expect.stringMatching(/strict_replies/) });
  });
});

/** The JSON block of docs/inbound.md that follows `marker`, as a reader would copy it. */
function docExample(marker: string): unknown {
  const doc = readFileSync(resolve(__dirname, '../../docs/inbound.md'), 'utf8');
  const block = doc.slice(doc.indexOf(marker)).match(/```json\n([\s\S]*?)```/);
  if (!doc.includes(marker) || !block) throw new Error(`docs/inbound.md has no JSON example after "${marker}"`);
  return JSON.parse(block[1]!);
}

describe("the inbound guide's example", () => {
  it('the simulated inbound email posted exactly as the guide shows it is routed, its attachment with the type given', async () => {
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: exact.url, method: 'POST' });
    const answer = await emu.request('POST', '/emulator/inbound', { body: docExample('A simulated inbound email:') });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.recipients).toMatchObject([{ email: 'support@in.example.com', routed: true }]);
    const [post] = await exact.waitFor(1);
    const payload = payloadOf(post!.body);
    expect(payload.from).toMatchObject({ email: 'customer@example.org', name: 'A Customer' });
    expect(payload.attachments).toMatchObject([{ filename: 'invoice.pdf', content_type: 'application/pdf' }]);
  });
});
