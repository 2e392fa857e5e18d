import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { composeMessage, renderInMemory } from '../../src-main/core/services/email/compose';

type MailOptions = ConstructorParameters<typeof MailComposer>[0];

const base: MailOptions = {
  from: { name: 'Example App', address: 'app@example.com' },
  to: [{ name: 'Customer', address: 'customer@example.com' }],
  subject: 'Your receipt #12345',
  messageId: '<01HZX@mailyard.local>',
  date: new Date('2026-11-22T10:00:00Z'),
  disableFileAccess: true,
  disableUrlAccess: true,
};

const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const binary = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));

// Every shape a send request or a simulated inbound mail can give the composer.
const shapes: Record<string, Partial<MailOptions>> = {
  'html only': { html: `<p>${'Thank you for your order. '.repeat(200)}</p>` },
  'text only, short lines (7bit)': { text: 'Hello\r\nworld\r\n' },
  'text and html (alternative)': { text: 'Plain version', html: '<b>HTML version</b>' },
  'non-ASCII everywhere': {
    subject: 'Grüße aus Köln – 日本語の件名 🎉',
    to: [{ name: 'Jürgen Öster', address: 'jurgen@example.com' }],
    cc: ['kopie@example.com'],
    headers: { 'X-Custom': 'Straße', 'X-Mailyard-Campaign-Id': 'spring' },
    text: 'Schöne Grüße\nfrom a line with trailing space \nand a tab\t\n',
    html: '<p>日本語の本文です。'.repeat(300),
  },
  'lone CR and LF, long lines, trailing whitespace': { text: `a\rb\nc ${'x'.repeat(500)} \t`, html: `<pre>\r\n${'y '.repeat(2000)}</pre>   ` },
  'attachments (mixed)': {
    text: 'See attached.',
    attachments: [
      { filename: 'report Q3 (final).pdf', content: binary, contentType: 'application/pdf', contentDisposition: 'attachment' },
      { filename: 'notes.txt', content: Buffer.from('line one\nline two é\n'), contentType: 'text/plain', contentDisposition: 'attachment' },
      { filename: '../../etc/passwd', content: Buffer.from('not a path'), contentDisposition: 'attachment' },
    ],
  },
  'inline image (related) plus an attachment': {
    text: 'alt',
    html: '<img src="cid:logo@example.com"> hello',
    attachments: [
      { filename: 'logo.png', content: png, contentType: 'image/png', cid: 'logo@example.com', contentDisposition: 'inline' },
      { filename: 'terms.pdf', content: binary.subarray(0, 5000), contentType: 'application/pdf', contentDisposition: 'attachment' },
    ],
  },
  'tracking headers': {
    html: '<a href="http://127.0.0.1:1/t/c/abc">link</a>',
    headers: { 'List-Unsubscribe': '<http://127.0.0.1:1/t/u/abc>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  },
  'a 3 MB HTML body': { html: `<div>${'Ünïcödé and ASCII mixed content. '.repeat(100_000)}</div>` },
  'no body at all': {},
};

describe('renderInMemory', () => {
  for (const [name, shape] of Object.entries(shapes)) {
    it(`gives the bytes of nodemailer's build() exactly: ${name}`, async () => {
      const tree = new MailComposer({ ...base, ...shape }).compile();
      // Rendered first: the boundaries and transfer encodings it settles are the ones build() then uses.
      const fast = renderInMemory(tree);
      const built = await tree.build();
      expect(fast).toBeInstanceOf(Buffer);
      expect(fast!.length).toBe(built.length);
      expect(fast!.equals(built)).toBe(true);
    });
  }

  it('declines a tree with streamed content (build() makes it)', async () => {
    const tree = new MailComposer({ ...base, text: Readable.from([Buffer.from('streamed')]) }).compile();
    expect(renderInMemory(tree)).toBeUndefined();
    expect((await tree.build()).toString()).toContain('streamed');
  });
});

describe('composeMessage', () => {
  it('gives each message its own boundaries', async () => {
    const body = {
      from: { email: 'app@example.com' },
      to: [{ email: 'customer@example.com' }],
      subject: 'Hi',
      content: [
        { type: 'text/plain' as const, value: 'plain' },
        { type: 'text/html' as const, value: '<p>html</p>' },
      ],
    };
    const options = { messageId: '<a@mailyard.local>', date: new Date(0) };
    const boundaryOf = (raw: Buffer) => /boundary="([^"]+)"/.exec(raw.toString())![1];
    const [a, b] = await Promise.all([composeMessage(body as never, options), composeMessage(body as never, options)]);
    expect(boundaryOf(a)).not.toBe(boundaryOf(b));
    expect(boundaryOf(a)).toMatch(/^--_NmP-[0-9a-f]{16}-Part_1$/);
  });
});
