import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InboundPayload } from '../../src-shared/schemas/inbound';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

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
const payloadOf = (body: string) => InboundPayload.parse(JSON.parse(body));

/** Sends over real SMTP; answers the server's reply text, a refusal's included. */
async function sendSmtp(mail: SendMailOptions): Promise<{ ok: boolean; response: string }> {
  try {
    return { ok: true, response: (await smtp().sendMail({ from: 'cust@example.org', text: 'hi', ...mail })).response };
  } catch (err) {
    return { ok: false, response: (err as { response?: string }).response ?? String(err) };
  }
}

const simulate = async (to: string[], extra: Record<string, unknown> = {}) =>
  (await emu.request('POST', '/emulator/inbound', { body: { from: { email: 'x@example.org' }, subject: 's', text: 't', ...extra, to } })).json.data.recipients;

/** A copy the default account sent, and its Message-ID: what a reply names in In-Reply-To. */
async function sentMessageId(): Promise<string> {
  const sent = await emu.service.sendEmail({
    from: { email: 'support@in.example.com' },
    to: [{ email: 'cust@example.org' }],
    subject: 'Your ticket',
    content: [{ type: 'text/plain', value: 'We are on it' }],
  } as never);
  const [copy] = (await emu.control.listMessages({ q: sent.ref_id })).data.messages;
  return `<${copy!.id}@mailyard.local>`;
}

describe("the inbound guide's acceptance rules, highest first (guides/inbound-email)", () => {
  it('4. Reject (default): a domain with a URL and a registered username refuses any other username, over SMTP and POST /emulator/inbound', async () => {
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: wild.url, method: 'POST' });
    await emu.service.createInboundUsername({ domain: 'in.example.com', username: 'support' });

    const alone = await sendSmtp({ to: 'nobody@in.example.com', subject: 'lost' });
    expect(alone.ok).toBe(false);
    expect(alone.response).toMatch(
      /^550 5\.1\.1 Not accepted by inbound routing: nobody@in\.example\.com \(Reject \(default\): nobody is not a username of in\.example\.com/,
    );
    const both = await sendSmtp({ to: ['support@in.example.com', 'nobody@in.example.com'], subject: 'both' });
    expect(both.ok, both.response).toBe(true);
    expect(both.response).toMatch(/^250 2\.6\.0 OK queued as \w{26}; not accepted by inbound routing: nobody@in\.example\.com \(Reject/);
    const [post] = await wild.waitFor(1);
    expect(payloadOf(post!.body)).toMatchObject({ recipient: 'support@in.example.com', subject: 'both' });

    expect(await simulate(['nobody@in.example.com', 'support@in.example.com'])).toMatchObject([
      { email: 'nobody@in.example.com', routed: false, ref_id: null, rule: 'Reject', reason: expect.stringMatching(/^Reject \(default\)/) },
      { email: 'support@in.example.com', routed: true, rule: 'Username Match', reason: null },
    ]);
    // A domain no route has is not inbound mail at all: no rule decided it.
    expect(await simulate(['a@unrouted.example.net'])).toMatchObject([
      { routed: false, rule: null, reason: 'no inbound route for the domain unrouted.example.net' },
    ]);
  });

  it('1. Wildcard Domain: every username of the domain, not its subdomains, and ranked above strict reply mode', async () => {
    const created = await emu.request('POST', '/v1/inbound/domain', {
      body: { domain: 'in.example.com', url: wild.url, method: 'POST', wildcard: true, strict_replies: true },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.json.data).toMatchObject({ wildcard: true, strict_replies: true, usernames: [] });

    // Not a reply, to a username nobody registered: the wildcard accepts it before strict reply mode is asked.
    const sent = await sendSmtp({ to: ['ticket-7@in.example.com', 'a@sub.in.example.com'], subject: 'New ticket' });
    expect(sent.ok, sent.response).toBe(true);
    expect(sent.response).toMatch(/^250 2\.6\.0 OK queued as \w{26} \w{26}$/);
    const [post] = await wild.waitFor(1);
    expect(payloadOf(post!.body)).toMatchObject({ domain: 'in.example.com', username: 'ticket-7', recipient: 'ticket-7@in.example.com' });
    // The subdomain is no username of in.example.com: its mail is captured as sent mail, like any unrouted domain.
    const messages = (await emu.control.listMessages({})).data.messages;
    expect(messages.map((m) => m.recipient.email)).toEqual(['a@sub.in.example.com']);

    expect(await simulate(['anyone@in.example.com', 'b@sub.in.example.com'])).toMatchObject([
      { routed: true, rule: 'Wildcard Domain', reason: null },
      { routed: false, rule: null, reason: 'no inbound route for the domain sub.in.example.com' },
    ]);
    // Turned off, the same mail meets strict reply mode.
    await emu.service.updateInboundDomain('in.example.com', { wildcard: false });
    expect(await simulate(['anyone@in.example.com'])).toMatchObject([{ routed: false, rule: 'Strict Reply Mode' }]);
    expect(
      (await emu.request('POST', '/v1/inbound/domain', { body: { domain: 'w.example.com', url: wild.url, method: 'POST', wildcard: 'yes' } })).json.fields,
    ).toHaveProperty('wildcard');
  });

  it('2. Strict Reply Mode: a reply to a message the account sent is accepted for any username; other mail is refused, a registered username too', async () => {
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: wild.url, method: 'POST', strict_replies: true });
    await emu.service.createInboundUsername({ domain: 'in.example.com', username: 'support' });
    const messageId = await sentMessageId();

    const fresh = await sendSmtp({ to: 'support@in.example.com', subject: 'Unrelated' });
    expect(fresh.ok).toBe(false);
    expect(fresh.response).toMatch(/^550 5\.1\.1 Not accepted by inbound routing: support@in\.example\.com \(Strict Reply Mode: not a reply/);
    const spoofed = await sendSmtp({ to: 'support@in.example.com', subject: 'Spoofed', inReplyTo: '<01ARZ3NDEKTSV4RRFFQ69G5FAV@mailyard.local>' });
    expect(spoofed.response).toMatch(/^550 .*Strict Reply Mode/);
    const reply = await sendSmtp({ to: 'someone@in.example.com', subject: 'Re: Your ticket', inReplyTo: messageId, references: [messageId] });
    expect(reply.response).toMatch(/^250 2\.6\.0 OK queued as \w{26}$/);
    const [post] = await wild.waitFor(1);
    expect(payloadOf(post!.body)).toMatchObject({ subject: 'Re: Your ticket', username: 'someone' });

    expect(await simulate(['support@in.example.com'])).toMatchObject([
      { routed: false, rule: 'Strict Reply Mode', reason: expect.stringMatching(/^Strict Reply Mode: not a reply/) },
    ]);
    const raw = `From: x@example.org\r\nTo: nobody@in.example.com\r\nIn-Reply-To: ${messageId}\r\nSubject: Re: Your ticket\r\n\r\nthanks\r\n`;
    expect(await simulate(['nobody@in.example.com'], { raw, from: undefined, subject: undefined, text: undefined })).toMatchObject([
      { routed: true, rule: 'Strict Reply Mode', reason: null },
    ]);
  });

  it('3. Username Match: a registered username is accepted (user+tag reaches user), its own URL or the domain’s', async () => {
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: wild.url, method: 'POST' });
    await emu.service.createInboundUsername({ domain: 'in.example.com', username: 'support', url: exact.url, method: 'POST' });
    await emu.service.createInboundUsername({ domain: 'in.example.com', username: 'sales' });

    const sent = await sendSmtp({ to: ['support+eu@in.example.com', 'sales@in.example.com'], subject: 'help' });
    expect(sent.response).toMatch(/^250 2\.6\.0 OK queued as \w{26} \w{26}$/);
    const [toSupport] = await exact.waitFor(1);
    expect(payloadOf(toSupport!.body)).toMatchObject({ username: 'support', recipient: 'support+eu@in.example.com' });
    const [toSales] = await wild.waitFor(1);
    expect(payloadOf(toSales!.body)).toMatchObject({ username: 'sales' });

    expect(await simulate(['SUPPORT@in.example.com', 'sales+x@in.example.com'])).toMatchObject([
      { routed: true, rule: 'Username Match' },
      { routed: true, rule: 'Username Match' },
    ]);
  });
});

/** The JSON block of docs/inbound.md that follows `marker`, as a reader would copy it. */
function docExample(marker: string): unknown {
  const doc = readFileSync(resolve(__dirname, '../../docs/inbound.md'), 'utf8');
  const block = doc.slice(doc.indexOf(marker)).match(/```json\n([\s\S]*?)```/);
  if (!doc.includes(marker) || !block) throw new Error(`docs/inbound.md has no JSON example after "${marker}"`);
  return JSON.parse(block[1]!);
}

describe('each inbound email is kept with the rule that decided it, a refused one too (GET /emulator/inbound/messages)', () => {
  it('lists SMTP and simulated mail, accepted with its delivery and refused with why, newest first; one by its ref_id', async () => {
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: wild.url, method: 'POST' });
    await emu.service.createInboundUsername({ domain: 'in.example.com', username: 'support' });
    await emu.service.configureInboundRouting({ domain: 'any.example.com', url: exact.url, method: 'POST', wildcard: true });

    const both = await sendSmtp({ from: 'cust@example.org', to: ['support@in.example.com', 'nobody@in.example.com'], subject: 'both' });
    expect(both.ok, both.response).toBe(true);
    const alone = await sendSmtp({ to: 'lost@in.example.com', subject: 'lost' });
    expect(alone.response).toMatch(/^550 /);
    const [simulated] = await simulate(['whoever@any.example.com'], { subject: 'simulated' });

    const listed = (await emu.control.listInboundMessages({})).data.messages;
    expect(listed.map((m) => [m.recipient, m.source, m.subject, m.accepted, m.rule])).toEqual([
      ['whoever@any.example.com', 'api', 'simulated', true, 'Wildcard Domain'],
      ['lost@in.example.com', 'smtp', 'lost', false, 'Reject'],
      ['nobody@in.example.com', 'smtp', 'both', false, 'Reject'],
      ['support@in.example.com', 'smtp', 'both', true, 'Username Match'],
    ]);
    const [wildcard, lost, nobody, support] = listed;
    // A refused one: why, as the SMTP reply said it, and no delivery.
    expect(lost!.reason).toMatch(/^Reject \(default\): lost is not a username of in\.example\.com/);
    expect(alone.response).toContain(lost!.reason);
    expect(nobody).toMatchObject({ from_email: 'cust@example.org', delivery_id: null });
    // An accepted one: the delivery that posts it, whose ref_id is the record's.
    expect(support!.reason).toBeNull();
    const deliveries = (await emu.request('GET', '/emulator/deliveries?category=INBOUND')).json.data.deliveries as Array<{ id: string; ref_id: string }>;
    expect(deliveries.find((d) => d.id === support!.delivery_id)?.ref_id).toBe(support!.ref_id);
    expect(wildcard).toMatchObject({ ref_id: simulated.ref_id, delivery_id: simulated.delivery_id });

    expect((await emu.control.listInboundMessages({ ref_id: support!.ref_id })).data.messages).toEqual([support]);
    expect((await emu.control.listInboundMessages({ limit: '1' } as never)).data.messages).toEqual([wildcard]);
  });
});

describe("the inbound guide's example", () => {
  it('the simulated inbound email posted exactly as the guide shows it is routed, its attachment with the type given', async () => {
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: exact.url, method: 'POST' });
    await emu.service.createInboundUsername({ domain: 'in.example.com', username: 'support' });
    const answer = await emu.request('POST', '/emulator/inbound', { body: docExample('A simulated inbound email:') });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.recipients).toMatchObject([{ email: 'support@in.example.com', routed: true }]);
    const [post] = await exact.waitFor(1);
    const payload = payloadOf(post!.body);
    expect(payload.from).toMatchObject({ email: 'customer@example.org', name: 'A Customer' });
    expect(payload.attachments).toMatchObject([{ filename: 'invoice.pdf', content_type: 'application/pdf' }]);
  });
});
