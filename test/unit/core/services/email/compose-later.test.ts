import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ComposeOptions, composeMessage } from '../../../../../src-main/core/services/email/compose';
import { COMPOSE_LATER_AT_MOST, composeRecipe, recipeOf } from '../../../../../src-main/core/services/email/compose-later';
import { composeCopies } from '../../../../../src-main/core/services/email/copies';
import { headerSearchText, receivedBodySearchText, recipeSearchText } from '../../../../../src-main/core/services/search/search-text';
import type { SendEmailBody } from '../../../../../src-shared/schemas/email';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const binary = Buffer.from(Array.from({ length: 60_000 }, (_, i) => (i * 7919) % 256));

const from = { email: 'app@example.com', name: 'Example App' };
const to = [{ email: 'customer@example.com', name: 'Customer' }];

/** Every shape of request the composer handles, as the send API validates it. */
const shapes: Record<string, SendEmailBody> = {
  'text only': { from, to, subject: 'Plain', content: [{ type: 'text/plain', value: 'Hello\nworld\n' }] },
  'HTML only': { from, to, subject: 'Receipt', content: [{ type: 'text/html', value: `<p>${'Thank you for your order. '.repeat(200)}</p>` }] },
  'text and HTML': {
    from,
    to,
    subject: 'Both',
    content: [
      { type: 'text/plain', value: 'Plain version' },
      { type: 'text/html', value: '<b>HTML version</b>' },
    ],
  },
  'non-ASCII headers and bodies': {
    from: { email: 'app@example.com', name: 'Bäckerei Müller' },
    to: [{ email: 'jurgen@example.com', name: 'Jürgen Öster' }],
    subject: 'Grüße aus Köln – 日本語の件名 🎉',
    headers: { 'X-Custom': 'Straße' },
    content: [
      { type: 'text/plain', value: 'Schöne Grüße\nfrom a line with trailing space \nand a tab\t\n' },
      { type: 'text/html', value: '<p>日本語の本文です。'.repeat(300) },
    ],
  },
  'long lines, lone CR and LF, trailing whitespace': {
    from,
    to,
    subject: `A subject long enough to be folded over several header lines ${'word '.repeat(40)}`,
    content: [
      { type: 'text/plain', value: `a\rb\nc ${'x'.repeat(2000)} \t` },
      { type: 'text/html', value: `<pre>\r\n${'y '.repeat(2000)}</pre>   ` },
    ],
  },
  'custom headers, reply-to, cc and bcc': {
    from,
    to: [{ email: 'one@example.com', name: 'One' }, { email: 'two@example.com' }],
    cc: [{ email: 'copy@example.com', name: 'Copy, Inc.' }],
    bcc: [{ email: 'hidden@example.com' }],
    replyTo: 'support@example.com',
    headers: { 'X-Order': '12345', 'X-Priority': '1' },
    subject: 'Headers',
    content: [{ type: 'text/html', value: '<p>hi</p>' }],
  },
  'regular attachments': {
    from,
    to,
    subject: 'See attached',
    content: [{ type: 'text/plain', value: 'See attached.' }],
    attachments: [
      { filename: 'report Q3 (final).pdf', content: b64(binary), type: 'application/pdf' },
      { filename: 'notes é.txt', content: b64('line one\nline two é\n'), type: 'text/plain', disposition: 'attachment' },
    ],
  },
  'an inline image by content id, and an attachment': {
    from,
    to,
    subject: 'Logo',
    content: [
      { type: 'text/plain', value: 'alt' },
      { type: 'text/html', value: '<img src="cid:logo@example.com"> hello' },
    ],
    attachments: [
      { filename: 'logo.png', content: b64(png), type: 'image/png', content_id: 'logo@example.com' },
      { filename: 'terms.pdf', content: b64(binary.subarray(0, 5000)), type: 'application/pdf', disposition: 'attachment' },
    ],
  },
  'no content, no subject': { from, to },
};

const options = (body: SendEmailBody): ComposeOptions & { subject: string; boundary: string } => ({
  messageId: '<01JC3BBW8S9YGX2VNKG5MD7BTA@mailyard.local>',
  date: new Date('2026-11-22T10:00:00.123Z'),
  boundary: 'a1b2c3d4e5f60718',
  subject: body.subject ?? '',
  html: body.content?.find((c) => c.type === 'text/html')?.value,
  text: body.content?.find((c) => c.type === 'text/plain')?.value,
});

describe('a send stored as its recipe', () => {
  for (const [name, body] of Object.entries(shapes)) {
    it(`composes later, from its stored JSON, the bytes composing at once makes: ${name}`, async () => {
      const now = await composeMessage(body, options(body));
      const recipe = recipeOf(body, options(body));
      expect(recipe).toBeInstanceOf(Buffer);
      // What the store keeps is bytes: what comes back is a copy of what was written, and nothing else.
      const later = composeRecipe(Buffer.from(recipe!));
      expect(later.toString('latin1')).toBe(now.toString('latin1'));
      expect(composeRecipe(new Uint8Array(recipe!)).equals(later)).toBe(true);
    });

    it(`gives the search index the text it reads from the composed message: ${name}`, async () => {
      const now = await composeMessage(body, options(body));
      const text = recipeSearchText(recipeOf(body, options(body))!);
      expect(text.headers).toBe(headerSearchText(now));
      // The composed parts' line breaks differ (CRLF, a final one); the index's words do not.
      const words = (s: string) => s.replace(/\s+/g, ' ').trim();
      expect(words(text.body)).toBe(words(await receivedBodySearchText(now)));
    });
  }

  it('is not made for a signed message, nor for one larger than the limit (those are composed when sent)', () => {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const body = shapes['HTML only']!;
    expect(recipeOf(body, { ...options(body), dkim: { domainName: 'example.com', keySelector: 's1', privateKey } })).toBeUndefined();
    const large = { ...body, content: [{ type: 'text/html' as const, value: 'x'.repeat(COMPOSE_LATER_AT_MOST + 1) }] };
    expect(recipeOf(large, options(large))).toBeUndefined();
  });
});

describe('composeCopies', () => {
  const recipients = [
    { id: '01JC3BBW8S9YGX2VNKG5MD7BTA', email: 'one@example.com', type: 'to' as const },
    { id: '01JC3BBW8S9YGX2VNKG5MD7BTB', email: 'two@example.com', type: 'cc' as const },
  ];
  const send = (body: SendEmailBody, substitute = false) =>
    composeCopies(body, recipients, {
      date: new Date('2026-11-22T10:00:00Z'),
      subject: body.subject ?? '',
      html: body.content?.find((c) => c.type === 'text/html')?.value,
      text: body.content?.find((c) => c.type === 'text/plain')?.value,
      substitute,
      baseUrl: 'http://127.0.0.1:1',
    });

  it('stores a send whose recipients share one message as one recipe, not its bytes', async () => {
    const copies = await send(shapes['text and HTML']!);
    expect(copies.map((c) => c.raw.length)).toEqual([0, 0]);
    expect(copies[1]!.recipe).toBe(copies[0]!.recipe);
    expect(composeRecipe(copies[0]!.recipe!).toString()).toContain(`Message-ID: <${recipients[0]!.id}@mailyard.local>`);
  });

  it('composes each recipient its own copy at once when placeholders fill it, as before', async () => {
    const body: SendEmailBody = {
      ...shapes['text only']!,
      content: [{ type: 'text/plain', value: 'Hello {{name}}' }],
      substitutions: { 'one@example.com': { name: 'friend' }, 'two@example.com': { name: 'pal' } },
    };
    const copies = await send(body, true);
    expect(copies.every((c) => c.recipe === undefined && c.raw.length > 0)).toBe(true);
  });
});
