import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { composeMessage, renderInMemory, renderInMemoryYielding } from '../../../../../src-main/core/services/email/compose';
import { composeCopies } from '../../../../../src-main/core/services/email/copies';
import { CopyTemplate } from '../../../../../src-main/core/services/email/copy-template';
import { addTracking, newTrackingKeys, prepareLinks } from '../../../../../src-main/core/services/email/tracking';
import { applyPatch } from '../../../../../src-main/core/store/byte-patch';
import type { SendEmailBody } from '../../../../../src-shared/schemas/email';

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
  'a 1 MB body of trailing spaces and non-ASCII at slice edges, a 1 MB base64 attachment': {
    text: `${'é'.repeat(65_535)}x   \r\n`.repeat(8),
    attachments: [
      {
        filename: 'big.bin',
        content: Buffer.concat([binary, binary, binary, binary]),
        contentType: 'application/octet-stream',
        contentDisposition: 'attachment',
      },
    ],
  },
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

  for (const name of [
    'a 3 MB HTML body',
    'a 1 MB body of trailing spaces and non-ASCII at slice edges, a 1 MB base64 attachment',
    'attachments (mixed)',
    'html only',
  ]) {
    it(`gives the same bytes encoding a large part a slice at a time, with turns between: ${name}`, async () => {
      const tree = new MailComposer({ ...base, ...shapes[name] }).compile();
      const sliced = await renderInMemoryYielding(tree);
      expect(sliced!.equals(await tree.build())).toBe(true);
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

describe('copies made from a template (a tracked send without placeholders)', () => {
  const baseUrl = 'http://127.0.0.1:4400';
  const tracking = { open: true, click: true, unsubscribe: true, baseUrl };
  // Links of unequal lengths, so the quoted-printable soft line breaks fall inside the keys of many of them.
  const html = `<html><body>${Array.from({ length: 300 }, (_, i) => `<p>Item ${'x'.repeat(i % 37)}: <a href="https://shop.example/p/${i}">P${i}</a></p>`).join('')}</body></html>`;
  const body: SendEmailBody = {
    from: { email: 'shop@example.com' },
    to: Array.from({ length: 6 }, (_, i) => ({ email: `r${i}@example.org` })),
    subject: 'Catalogue',
    content: [
      { type: 'text/plain', value: 'The catalogue' },
      { type: 'text/html', value: html },
    ],
    settings: { open_tracking: { enable: true }, click_tracking: { enable: true }, unsubscribe: { enable: true } },
  };
  const options = { date: new Date('2026-11-22T10:00:00Z'), boundary: 'b'.repeat(32) };
  const compose = (id: string, keys = newTrackingKeys()) => {
    const t = addTracking(html, 'The catalogue', tracking, prepareLinks(html), keys);
    return composeMessage(body, { ...options, messageId: `<${id}@mailyard.local>`, html: t.html, text: t.text, extraHeaders: t.headers });
  };
  const tokensOf = (id: string, keys: ReturnType<typeof newTrackingKeys>) => [id, keys.click, keys.unsubscribe, keys.open];

  it('makes the bytes composing gives, keys split by soft line breaks included', async () => {
    const keys = newTrackingKeys();
    const raw = await compose('01KAAAAAAAAAAAAAAAAAAAAAAA', keys);
    expect(raw.includes('=\r\n')).toBe(true);
    const template = CopyTemplate.of(raw, tokensOf('01KAAAAAAAAAAAAAAAAAAAAAAA', keys))!;
    expect(template).toBeDefined();
    for (let i = 0; i < 5; i++) {
      const other = newTrackingKeys();
      const id = `01KBBBBBBBBBBBBBBBBBBBBBB${i}`;
      const composed = await compose(id, other);
      expect(template.render(tokensOf(id, other)).equals(composed)).toBe(true);
      expect(applyPatch(raw, template.patchFor(tokensOf(id, other))).equals(composed)).toBe(true);
    }
  });

  it('is no template of a copy whose tokens its bytes do not show as they are (a base64 body)', async () => {
    const keys = newTrackingKeys();
    const t = addTracking(`<p>${'日本語の本文です。'.repeat(50)}<a href="https://a.example/">A</a></p>`, undefined, tracking, undefined, keys);
    const raw = await composeMessage(body, {
      ...options,
      messageId: '<01KAAAAAAAAAAAAAAAAAAAAAAA@mailyard.local>',
      html: t.html,
      text: undefined,
      extraHeaders: t.headers,
    });
    expect(CopyTemplate.of(raw, tokensOf('01KAAAAAAAAAAAAAAAAAAAAAAA', keys))).toBeUndefined();
  });

  it('gives every recipient of a send its own copy, as composing it whole would, stored as edits of the first', async () => {
    const recipients = body.to.map((r, i) => ({ ...r, type: 'to' as const, id: `01KCCCCCCCCCCCCCCCCCCCCCC${i}` }));
    const copies = await composeCopies(body, recipients, { ...options, subject: 'Catalogue', html, text: 'The catalogue', substitute: false, baseUrl });
    const keysSeen = new Set<string>();
    for (const [i, copy] of copies.entries()) {
      const keys = {
        click: copy.links!.key,
        open: copy.tokens.find((t) => t.kind === 'open')!.token,
        unsubscribe: copy.tokens.find((t) => t.kind === 'unsubscribe')!.token,
      };
      keysSeen.add(keys.click);
      const raw = copy.patch ? applyPatch(copy.raw, copy.patch) : copy.raw;
      const t = addTracking(html, 'The catalogue', tracking, undefined, keys);
      const whole = await composeMessage(body, {
        date: options.date,
        boundary: options.boundary,
        messageId: `<${copy.id}@mailyard.local>`,
        html: t.html,
        text: t.text,
        extraHeaders: t.headers,
      });
      // The boundary of composeCopies is its own: compare with it put in place.
      const boundary = /boundary="--_NmP-([0-9a-f]+)-Part_1"/.exec(raw.toString('latin1'))?.[1];
      expect(boundary, 'the copy has a multipart boundary').toBeDefined();
      expect(raw.toString('latin1')).toBe(whole.toString('latin1').split(options.boundary).join(boundary!));
      expect(copy.links!.of).toBe(copies[0]!.id);
      expect(copy.links!.list === undefined).toBe(i > 0);
      if (i > 0) expect(copy.patch!.length).toBeLessThan(4_000);
    }
    expect(keysSeen.size).toBe(copies.length);
  });
});
