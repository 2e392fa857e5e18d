import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { EMAIL_EVENT_PAYLOADS } from '../../src-shared/schemas/events';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { authPlain, RawSmtpClient } from '../helpers/smtp-client';

let emu: TestEmulator | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  await emu?.cleanup();
  await receiver?.close();
  emu = undefined;
  receiver = undefined;
});

function transport(port: number, options: Record<string, unknown> = {}) {
  return nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, ...options });
}

async function messagesOf(e: TestEmulator) {
  const res = await e.request('GET', '/emulator/messages?limit=200');
  expect(res.status, res.text).toBe(200);
  return res.json.data.messages as Array<Record<string, any>>;
}

const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

describe('SMTP sink: what real clients send', () => {
  it('captures a multipart message with attachments and an inline image, byte for byte, with its one ref_id in the 250 reply', async () => {
    emu = await startEmulator();
    // The clock stands still: the copies are still `queued` when the logs are read, however slow the machine.
    await emu.control.setClock({ speed: 0 });
    const pdf = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    const info = await transport(emu.handle.ports.smtp!).sendMail({
      from: '"Shop" <shop@example.com>',
      to: 'Ann <ann@example.org>',
      cc: 'bob@example.org',
      bcc: 'carol@example.org',
      subject: 'Your order',
      text: 'Plain body',
      html: '<p>HTML body <img src="cid:logo@shop"></p>',
      attachments: [
        { filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'logo.png', content: png, cid: 'logo@shop' },
      ],
    });
    // One ref_id for the message, whatever the number of its envelope recipients.
    expect(info.response).toMatch(/^250 2\.6\.0 OK queued as [0-9A-HJKMNP-TV-Z]{26}$/);
    const refId = /queued as (\S+)$/.exec(info.response)![1]!;

    const list = await messagesOf(emu);
    expect(list.map((m) => [m.recipient.email, m.recipient_type, m.source]).sort()).toEqual([
      ['ann@example.org', 'to', 'smtp'],
      ['bob@example.org', 'cc', 'smtp'],
      ['carol@example.org', 'bcc', 'smtp'],
    ]);
    // Each recipient has its own copy (its own id), every copy under the message's ref_id.
    expect(list.map((m) => m.ref_id)).toEqual([refId, refId, refId]);
    expect(new Set(list.map((m) => m.id)).size).toBe(3);
    const copies = (await emu.control.listMessages({ q: refId })).data.messages;
    expect(copies.map((m) => m.id).sort()).toEqual(list.map((m) => m.id).sort());
    const ann = list.find((m) => m.recipient.email === 'ann@example.org')!;
    expect(ann.recipient.name).toBe('Ann');
    expect(ann.from).toEqual({ email: 'shop@example.com', name: 'Shop' });
    expect(ann.subject).toBe('Your order');

    const detail = (await emu.request('GET', `/emulator/messages/${ann.id}`)).json.data;
    expect(detail).toMatchObject({ id: ann.id, ref_id: refId });
    expect(detail.text.trim()).toBe('Plain body');
    expect(detail.html).toContain('cid:logo@shop');
    const attachments = detail.attachments as Array<{ index: number; filename: string; content_type: string; content_id: string | null }>;
    expect(attachments.map((a) => [a.filename, a.content_type, a.content_id]).sort()).toEqual([
      ['invoice.pdf', 'application/pdf', null],
      ['logo.png', 'image/png', 'logo@shop'],
    ]);
    for (const [name, bytes] of [
      ['invoice.pdf', pdf],
      ['logo.png', png],
    ] as const) {
      const index = attachments.find((a) => a.filename === name)!.index;
      const res = await fetch(`${emu.url}/emulator/messages/${ann.id}/attachments/${index}`);
      const got = Buffer.from(await res.arrayBuffer());
      expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    // The raw message is kept exactly as it came: the Bcc header is not in it, the text is.
    const raw = await (await fetch(`${emu.url}/emulator/messages/${ann.id}/raw`)).text();
    expect(raw).toContain('Subject: Your order');
    expect(raw).not.toMatch(/^Bcc:/im);

    // The email logs carry them, one entry per recipient under the one ref_id, as for an API send.
    const logs = await emu.service.getEmailLogs({ refId });
    expect(logs.totalCount).toBe(3);
    expect(logs.emailLogs.map((l) => [l.recipientAddress, l.recipientType, l.refId, l.status, l.fromAddress, l.subject]).sort()).toEqual([
      ['ann@example.org', 'to', refId, 'queued', 'shop@example.com', 'Your order'],
      ['bob@example.org', 'cc', refId, 'queued', 'shop@example.com', 'Your order'],
      ['carol@example.org', 'bcc', refId, 'queued', 'shop@example.com', 'Your order'],
    ]);
  });

  it('keeps non-ASCII headers and bodies: RFC 2047 subjects and names, UTF-8 bodies, SMTPUTF8 addresses', async () => {
    emu = await startEmulator();
    await transport(emu.handle.ports.smtp!).sendMail({
      from: { name: 'Zoë Ångström', address: 'zoe@example.com' },
      to: { name: '山田 太郎', address: 'taro@example.jp' },
      subject: 'Grüße aus Köln — 東京 🌸',
      text: 'Schöne Grüße, ありがとう',
    });
    const [m] = await messagesOf(emu);
    expect(m!.subject).toBe('Grüße aus Köln — 東京 🌸');
    expect(m!.from.name).toBe('Zoë Ångström');
    expect(m!.recipient.name).toBe('山田 太郎');
    const detail = (await emu.request('GET', `/emulator/messages/${m!.id}`)).json.data;
    expect(detail.text.trim()).toBe('Schöne Grüße, ありがとう');

    // SMTPUTF8 (RFC 6531): an internationalized address and raw UTF-8 headers.
    const { client } = await RawSmtpClient.open(emu.handle.ports.smtp!);
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.text).toContain('SMTPUTF8');
    expect(ehlo.text).toContain('8BITMIME');
    expect(ehlo.text).toContain('PIPELINING');
    expect((await client.command('MAIL FROM:<josé@example.es> SMTPUTF8 BODY=8BITMIME')).code).toBe(250);
    expect((await client.command('RCPT TO:<пользователь@пример.рф>')).code).toBe(250);
    const reply = await client.data(
      'From: José <josé@example.es>\r\nTo: <пользователь@пример.рф>\r\nSubject: Привет, мир\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nТекст письма\r\n',
    );
    expect(reply.code).toBe(250);
    client.close();
    const utf8 = (await messagesOf(emu)).find((x) => x.recipient.email === 'пользователь@пример.рф')!;
    expect(utf8.subject).toBe('Привет, мир');
    expect(utf8.from).toEqual({ email: 'josé@example.es', name: 'José' });
    expect(utf8.recipient_type).toBe('to');
  });

  it('takes a parameter repeated with the same value (SMTPUTF8 twice, as smtplib sends it), and refuses one given twice with different values', async () => {
    emu = await startEmulator();
    const { client } = await RawSmtpClient.open(emu.handle.ports.smtp!);
    expect((await client.command('EHLO client.test')).code).toBe(250);
    expect((await client.command('MAIL FROM:<app@example.com> SIZE=10 SIZE=20')).text).toBe('5.5.4 Error: duplicate SIZE parameter');
    expect((await client.command('MAIL FROM:<josé@example.es> size=176 SMTPUTF8 SMTPUTF8 BODY=8BITMIME body=8BITMIME')).code).toBe(250);
    expect((await client.command('RCPT TO:<pilar@example.es>')).code).toBe(250);
    const reply = await client.data('From: <josé@example.es>\r\nTo: <pilar@example.es>\r\nSubject: Dos veces\r\n\r\nHola\r\n');
    expect(reply.code).toBe(250);
    client.close();
    const [m] = await messagesOf(emu);
    expect(m).toMatchObject({ subject: 'Dos veces', from: { email: 'josé@example.es' } });
  });

  it('takes the campaign and custom args from X-Mailyard headers, and runs the simulation with events to the webhook', async () => {
    receiver = await startReceiver();
    emu = await startEmulator();
    await emu.registerEmailWebhook(receiver.url);
    await emu.control.setClock({ speed: 0 });
    const info = await transport(emu.handle.ports.smtp!).sendMail({
      from: 'app@example.com',
      to: ['bounce@sim.mailyard.test', 'click+x@sim.mailyard.test'],
      subject: 'Flows',
      text: 'hi',
      headers: { 'X-Mailyard-Campaign-Id': 'winter', 'X-Mailyard-Custom-Args': '{"order":"7"}' },
    });
    expect(info.accepted).toHaveLength(2);
    const refId = /queued as (\S+)$/.exec(info.response)![1]!;
    await emu.control.setClock({ advance_ms: 60_000 });
    const requests = await receiver.waitFor(4);
    // Deliveries to one receiver run side by side and may arrive out of order: ordered by when they happened.
    const payloads = requests.map((r) => JSON.parse(r.body)).sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    for (const p of payloads) {
      // Every event about either recipient carries the message's one ref_id.
      expect(p.ref_id).toBe(refId);
      expect(EMAIL_EVENT_PAYLOADS[p.event as keyof typeof EMAIL_EVENT_PAYLOADS].safeParse(p).success).toBe(true);
      expect(p.campaign_id).toBe('winter');
      expect(p.custom_args).toEqual({ order: '7' });
    }
    expect(payloads.filter((p) => p.recipient.email === 'bounce@sim.mailyard.test').map((p) => p.event)).toEqual(['bounce']);
    expect(payloads.filter((p) => p.recipient.email === 'click+x@sim.mailyard.test').map((p) => p.event)).toEqual(['delivery', 'open', 'click']);
    const logs = await emu.service.getEmailLogs({ campaignId: 'winter' });
    expect(logs.emailLogs.map((l) => [l.recipientAddress, l.refId, l.status]).sort()).toEqual([
      ['bounce@sim.mailyard.test', refId, 'bounced'],
      ['click+x@sim.mailyard.test', refId, 'clicked'],
    ]);
  });
});

describe('SMTP sink: AUTH', () => {
  it('optional mode: no AUTH goes to the default account, an API key picks its account, a wrong key gets 535', async () => {
    emu = await startEmulator();
    const other = await emu.control.createAccount({ name: 'other' });
    const port = emu.handle.ports.smtp!;
    const mail = { from: 'a@example.com', to: 'b@example.org', subject: 's', text: 't' };
    await transport(port).sendMail(mail);
    await transport(port, { auth: { user: 'anyone', pass: other.data.api_key }, authMethod: 'PLAIN' }).sendMail({ ...mail, subject: 'plain' });
    await transport(port, { auth: { user: 'x', pass: emu.apiKey }, authMethod: 'LOGIN' }).sendMail({ ...mail, subject: 'login' });
    await expect(transport(port, { auth: { user: 'x', pass: 'mly_wrong_key_123' } }).sendMail(mail)).rejects.toMatchObject({ responseCode: 535 });
    const list = await messagesOf(emu);
    const accountOf = (subject: string) => list.find((m) => m.subject === subject)!.account_id;
    expect(accountOf('s')).toBe(emu.handle.defaultAccount.id);
    expect(accountOf('plain')).toBe(other.data.id);
    expect(accountOf('login')).toBe(emu.handle.defaultAccount.id);
    expect(list).toHaveLength(3);
  });

  it('required mode: mail without AUTH is refused (530), with AUTH it is taken; AUTH is offered before and after STARTTLS', async () => {
    emu = await startEmulator({ smtpAuth: 'required', smtpTls: 'starttls' });
    const port = emu.handle.ports.smtp!;
    const { client } = await RawSmtpClient.open(port);
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.text).toMatch(/AUTH PLAIN LOGIN/);
    expect(ehlo.text).toContain('STARTTLS');
    expect(ehlo.text).toContain('SIZE 26214400');
    const refused = await client.command('MAIL FROM:<a@example.com>');
    expect(refused.code).toBe(530);
    expect((await client.command(`AUTH PLAIN ${authPlain('me', 'not-a-key-at-all')}`)).code).toBe(535);
    expect((await client.command(`AUTH PLAIN ${authPlain('me', emu.apiKey)}`)).code).toBe(235);
    expect((await client.command('MAIL FROM:<a@example.com>')).code).toBe(250);
    client.close();

    const { client: tls } = await RawSmtpClient.open(port);
    await tls.command('EHLO client.test');
    expect((await tls.startTls()).code).toBe(220);
    expect((await tls.command('EHLO client.test')).text).toMatch(/AUTH PLAIN LOGIN/);
    expect((await tls.command(`AUTH PLAIN ${authPlain('me', emu.apiKey)}`)).code).toBe(235);
    tls.close();
    await expect(transport(port).sendMail({ from: 'a@example.com', to: 'b@example.org', subject: 's', text: 't' })).rejects.toMatchObject({
      responseCode: 530,
    });
  });
});

describe('SMTP sink: STARTTLS', () => {
  it('is off by default: not offered, refused, and no certificate is made', async () => {
    emu = await startEmulator();
    expect(emu.handle.smtpCertificate).toBeNull();
    const { client } = await RawSmtpClient.open(emu.handle.ports.smtp!);
    expect((await client.command('EHLO c')).text).not.toContain('STARTTLS');
    expect(await client.startTls()).toEqual({ code: 500, text: '5.5.2 Error: command not recognized' });
    client.close();
    await expect(readFile(join(emu.dataDir, 'smtp-tls-cert.pem'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('upgrades with a self-signed certificate made on first start and kept in the data directory', async () => {
    emu = await startEmulator({ smtpTls: 'starttls' });
    const dataDir = emu.dataDir;
    const info = await transport(emu.handle.ports.smtp!, { ignoreTLS: false, requireTLS: true, tls: { rejectUnauthorized: false } }).sendMail({
      from: 'a@example.com',
      to: 'b@example.org',
      subject: 'over TLS',
      text: 't',
    });
    expect(info.response).toMatch(/^250 2\.6\.0 OK queued as [0-9A-Z]{26}$/);
    const { client } = await RawSmtpClient.open(emu.handle.ports.smtp!);
    await client.command('EHLO c');
    await client.startTls();
    const first = client.peerCertificate!.fingerprint256;
    client.close();
    const kept = await readFile(join(dataDir, 'smtp-tls-cert.pem'), 'utf8');
    expect(kept).toContain('BEGIN CERTIFICATE');
    expect(emu.handle.smtpCertificate).toEqual({ pem: kept, file: join(dataDir, 'smtp-tls-cert.pem') });

    await emu.stop();
    emu = await startEmulator({ smtpTls: 'starttls' }, {}, dataDir);
    const { client: again } = await RawSmtpClient.open(emu.handle.ports.smtp!);
    await again.command('EHLO c');
    await again.startTls();
    expect(again.peerCertificate!.fingerprint256).toBe(first);
    again.close();
    await emu.stop();
    emu = undefined;
  });
});

describe('SMTP sink: limits and broken input', () => {
  it('answers 452 to the 1,001st recipient and takes the first 1,000', async () => {
    emu = await startEmulator();
    const { client } = await RawSmtpClient.open(emu.handle.ports.smtp!);
    await client.command('EHLO client.test');
    await client.command('MAIL FROM:<bulk@example.com>');
    // Pipelined: all 1,001 RCPT commands in one write, then the replies in order.
    client.write(Array.from({ length: 1001 }, (_, i) => `RCPT TO:<r${i}@example.org>\r\n`).join(''));
    const replies = [];
    for (let i = 0; i < 1001; i++) replies.push(await client.read());
    expect(replies.slice(0, 1000).every((r) => r.code === 250)).toBe(true);
    expect(replies[1000]).toMatchObject({ code: 452 });
    expect(replies[1000]!.text).toMatch(/Too many recipients: at most 1000/);
    const done = await client.data('From: bulk@example.com\r\nSubject: many\r\n\r\nhello\r\n');
    expect(done.code).toBe(250);
    // One ref_id for the message and its 1,000 recipients.
    expect(done.text).toMatch(/^2\.6\.0 OK queued as [0-9A-HJKMNP-TV-Z]{26}$/);
    const refId = /queued as (\S+)$/.exec(done.text)![1]!;
    client.close();
    expect((await emu.service.getEmailLogs()).totalCount).toBe(1000);
    const logs = await emu.service.getEmailLogs({ refId, pageSize: 50 });
    expect(logs.totalCount).toBe(1000);
    expect(new Set(logs.emailLogs.map((l) => l.refId))).toEqual(new Set([refId]));
  });

  it('answers 552 to a message over the size limit, announces SIZE, and stores nothing of it', async () => {
    emu = await startEmulator({ maxMessageBytes: 1024 * 1024 });
    const { client } = await RawSmtpClient.open(emu.handle.ports.smtp!);
    expect((await client.command('EHLO c')).text).toContain('SIZE 1048576');
    expect((await client.command('MAIL FROM:<a@example.com> SIZE=2000000')).code).toBe(552);
    expect((await client.command('MAIL FROM:<a@example.com>')).code).toBe(250);
    await client.command('RCPT TO:<b@example.org>');
    const big = `From: a@example.com\r\nSubject: big\r\n\r\n${'x'.repeat(76).concat('\r\n').repeat(20_000)}`;
    const reply = await client.data(big);
    expect(reply.code).toBe(552);
    expect(reply.text).toMatch(/Message too large: at most 1048576 bytes/);
    // The connection goes on: the next message is taken.
    await client.command('MAIL FROM:<a@example.com>');
    await client.command('RCPT TO:<b@example.org>');
    expect((await client.data('From: a@example.com\r\nSubject: small\r\n\r\nok\r\n')).code).toBe(250);
    client.close();
    expect((await messagesOf(emu)).map((m) => m.subject)).toEqual(['small']);
  });

  it('stores a message that breaks MIME rules as it came and shows it', async () => {
    emu = await startEmulator();
    const { client } = await RawSmtpClient.open(emu.handle.ports.smtp!);
    await client.command('EHLO c');
    await client.command('MAIL FROM:<sender@example.com>');
    await client.command('RCPT TO:<victim@example.org>');
    const broken =
      'Subject: =?utf-8?B?broken-base64***?=\r\nContent-Type: multipart/mixed; boundary="never-closed"\r\nno colon header line\r\n\r\n' +
      '--never-closed\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n%%% not base64 %%%\r\n' +
      '--never-closed\r\nContent-Type: application/octet-stream; name="../../etc/passwd"\r\nContent-Disposition: attachment; filename="../../etc/passwd"\r\n\r\nroot:x:0:0\r\n';
    expect((await client.data(broken)).code).toBe(250);
    client.close();
    const [m] = await messagesOf(emu);
    // No From header: the envelope sender stands in.
    expect(m!.from.email).toBe('sender@example.com');
    const raw = await (await fetch(`${emu.url}/emulator/messages/${m!.id}/raw`)).text();
    // As it came, but for the Message-ID it lacked (as Mailpit adds one).
    expect(raw).toMatch(/^Message-ID: <[0-9a-f]{32}@mailyard\.local>\r?\n/);
    expect(raw.slice(raw.indexOf('\n') + 1)).toBe(broken);
    const detail = await emu.request('GET', `/emulator/messages/${m!.id}`);
    expect(detail.status).toBe(200);
    // An attachment's name is data: the download never carries a path.
    const download = await fetch(`${emu.url}/emulator/messages/${m!.id}/attachments/0`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).not.toMatch(/\.\.\/|\//);
  });

  it('takes 50 concurrent connections, every message stored', async () => {
    emu = await startEmulator();
    const port = emu.handle.ports.smtp!;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        transport(port).sendMail({ from: 'a@example.com', to: `r${i}@example.org`, subject: `concurrent ${i}`, text: `body ${i}` }),
      ),
    );
    expect(results.every((r) => /^250 /.test(r.response))).toBe(true);
    const subjects = (await messagesOf(emu)).map((m) => m.subject).sort();
    expect(subjects).toEqual(Array.from({ length: 50 }, (_, i) => `concurrent ${i}`).sort());
  });
});
