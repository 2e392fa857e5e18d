/**
 * mailyard/testing: content to assert on (attachment bytes and checksums in the message
 * detail, the raw .eml, text and links) and snapshots that pass on their second run (a pinned clock
 * start and the serializer). Real emulator, real HTTP and SMTP (nodemailer).
 */
import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Mailyard, mailyardSerializer, normalizeForSnapshot, startMailyard } from '../../src-main/testing/index';
import { rawRequest } from '../helpers/emulator';

const hashes = (bytes: Buffer) => ({
  md5: createHash('md5').update(bytes).digest('hex'),
  sha1: createHash('sha1').update(bytes).digest('hex'),
  sha256: createHash('sha256').update(bytes).digest('hex'),
});
const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256))]);

let yard: Mailyard;
beforeAll(async () => {
  yard = await startMailyard({ apiKey: 'content-api-key-1' });
});
afterAll(() => yard.stop());

describe('content to assert on', () => {
  it('attachments come with checksums of their bytes, and the bytes themselves', async () => {
    const { ref_id } = await yard.service.sendEmail({
      from: { email: 'app@shop.example' },
      to: [{ email: 'ann@example.org' }],
      subject: 'Invoice',
      content: [
        { type: 'text/plain', value: 'Your invoice: https://shop.example/invoices/7?x=1&y=2.' },
        { type: 'text/html', value: '<p>Pay <a href="https://shop.example/pay?i=7&amp;c=eur">here</a> or <a href=\'https://shop.example/help\'>ask</a></p>' },
      ],
      attachments: [{ filename: 'invoice.pdf', content: pdf.toString('base64'), type: 'application/pdf' }],
    });
    const message = await yard.waitForMessage({ ref_id });
    expect(message.attachments).toEqual([
      {
        index: 0,
        filename: 'invoice.pdf',
        content_type: 'application/pdf',
        size: pdf.length,
        content_id: null,
        disposition: 'attachment',
        checksums: hashes(pdf),
        url: `/emulator/messages/${message.id}/attachments/0`,
      },
    ]);
    expect((await yard.attachment(message, 0)).equals(pdf)).toBe(true);
    const download = await fetch(yard.url + message.attachments[0]!.url);
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);

    const content = await yard.content(message);
    expect(content.links).toEqual(['https://shop.example/pay?i=7&c=eur', 'https://shop.example/help', 'https://shop.example/invoices/7?x=1&y=2']);
    expect(content.text).toContain('Your invoice:');
    expect(content.raw.toString('latin1')).toMatch(/^Subject: Invoice\r$/m);
    expect(content.raw.equals(await yard.raw(message.id))).toBe(true);
  });

  it('an SMTP message’s attachment has the checksums of the bytes nodemailer sent', async () => {
    const png = Buffer.from(Array.from({ length: 1024 }, (_, i) => (i * 13) % 256));
    const transport = nodemailer.createTransport({ host: yard.smtp.host, port: yard.smtp.port, secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({
        from: 'app@shop.example',
        to: 'bob@example.org',
        subject: 'Logo',
        html: '<p>Hi <a href="https://shop.example/">shop</a></p>',
        attachments: [{ filename: 'logo.png', content: png, contentType: 'image/png' }],
      });
    } finally {
      transport.close();
    }
    const message = await yard.waitForMessage({ recipient: 'bob@example.org', source: 'smtp' });
    expect(message.attachments[0]).toMatchObject({ filename: 'logo.png', size: png.length, checksums: hashes(png) });
    const content = await yard.content(message.id);
    expect(content.links).toEqual(['https://shop.example/']);
    expect(content.text).toBe('Hi shop');
  });

  it('the detail route answers 404 for an unknown message, never a 500', async () => {
    const res = await rawRequest(yard.url, 'GET', '/emulator/messages/01JZZZZZZZZZZZZZZZZZZZZZZZ', {});
    expect(res.status).toBe(404);
  });
});

describe('snapshots', () => {
  const run = async () => {
    const one = await startMailyard({ apiKey: 'snapshot-api-key-1', clockStart: '2026-01-01T00:00:00Z' });
    try {
      // The clock stands still: both runs read the message before its delivery event, however slow the machine.
      await one.control.setClock({ speed: 0 });
      const { ref_id } = await one.service.sendEmail({
        from: { email: 'app@shop.example' },
        to: [{ email: 'ann@example.org' }, { email: 'bob@example.org' }],
        subject: 'Welcome',
        content: [{ type: 'text/html', value: '<p>Welcome</p>' }],
        attachments: [{ filename: 'a.txt', content: Buffer.from('hello').toString('base64'), type: 'text/plain' }],
      });
      const message = await one.waitForMessage({ ref_id, recipient: 'bob@example.org' });
      const raw = (await one.raw(message)).toString('utf8');
      return { message, raw, accountId: one.accountId };
    } finally {
      await one.stop();
    }
  };

  it('a pinned clock start and the serializer make two runs snapshot alike', async () => {
    const first = await run();
    const second = await run();
    // The clock starts where it was pinned.
    expect(first.message.created_at.startsWith('2026-01-01T00:00:')).toBe(true);
    // Raw values differ between runs …
    expect(first.message.id).not.toBe(second.message.id);
    expect(first.accountId).not.toBe(second.accountId);
    // … their normalized forms do not.
    expect(normalizeForSnapshot(first)).toEqual(normalizeForSnapshot(second));
    const normalized = normalizeForSnapshot(first.message) as Record<string, any>;
    expect(normalized).toMatchObject({ id: '<id:1>', ref_id: '<id:2>', account_id: '<id:3>', created_at: '<timestamp>' });
    expect(normalized.headers).toEqual(
      expect.arrayContaining([
        { name: 'Message-ID', value: '<message-id>' },
        { name: 'Date', value: '<date>' },
      ]),
    );
    expect(normalized.attachments[0].url).toBe('/emulator/messages/<id:1>/attachments/0');
    expect(normalizeForSnapshot(first.raw)).toMatch(/^Message-ID: <message-id>$/m);
    expect(normalizeForSnapshot(first.raw)).toMatch(/^Date: <date>$/m);
  });

  it('the serializer takes part in vitest snapshots', async () => {
    expect.addSnapshotSerializer(mailyardSerializer);
    const { message } = await run();
    expect({ id: message.id, ref_id: message.ref_id, created_at: message.created_at, subject: message.subject }).toMatchInlineSnapshot(`
        {
          "created_at": "<timestamp>",
          "id": "<id:1>",
          "ref_id": "<id:2>",
          "subject": "Welcome",
        }
      `);
  });
});
