import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { parseLeniently } from '../../../../src-main/core/mail/lenient-parse';
import { decodeQuotedPrintable, readTextParts } from '../../../../src-main/core/mail/text-parts';

const squash = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
const compose = (mail: ConstructorParameters<typeof MailComposer>[0]) =>
  new MailComposer({ from: 'a@example.com', to: 'b@example.org', subject: 'S', ...mail }).compile().build();

const text = `${'Grüße aus Köln: your order ships today. A long line '.repeat(8)}= equals and tabs\tend`;
const html = `<p>Hello <b>Zoë</b>, ${'your receipt is below. '.repeat(30)}</p><p>€ 12,00</p>`;

describe('readTextParts: the search index reads text and HTML parts without mailparser', () => {
  const cases: Array<[string, ConstructorParameters<typeof MailComposer>[0]]> = [
    ['text only', { text }],
    ['HTML only', { html }],
    ['alternative', { text, html }],
    [
      'mixed, with an attachment and an inline image',
      {
        text,
        html,
        attachments: [
          { filename: 'report é.pdf', content: Buffer.alloc(40_000, 7) },
          { filename: 'logo.png', cid: 'logo', content: Buffer.alloc(900, 1) },
        ],
      },
    ],
    ['base64 text', { text: Buffer.from(text), textEncoding: 'base64' } as never],
    ['latin1 text', { text: { content: 'caf\u00e9 cr\u00e8me', contentType: 'text/plain; charset=iso-8859-1' } } as never],
  ];
  for (const [name, mail] of cases) {
    it(`reads what mailparser reads: ${name}`, async () => {
      const raw = await compose(mail);
      const fast = readTextParts(raw);
      expect(fast).not.toBeNull();
      const parsed = await parseLeniently(raw, { skipHtmlToText: true });
      expect(squash(fast!.text.join('\n'))).toBe(squash(parsed.text));
      expect(squash(fast!.html.join('\n'))).toBe(squash(parsed.html === null ? '' : parsed.html));
      expect(fast!.filenames).toEqual(parsed.attachments.map((a) => a.filename));
    });
  }

  it('leaves to mailparser what it does not read: an unknown charset, an attached message, a multipart without its boundary', async () => {
    expect(readTextParts(Buffer.from('Content-Type: text/plain; charset=koi8-r\r\n\r\n\xf0\xd2\xc9', 'latin1'))).toBeNull();
    expect(readTextParts(await compose({ text: 'x', attachments: [{ content: 'Subject: inner\r\n\r\nhi', contentType: 'message/rfc822' }] }))).toBeNull();
    expect(readTextParts(Buffer.from('Content-Type: multipart/mixed\r\n\r\n--x\r\n\r\nhi\r\n--x--\r\n'))).toBeNull();
  });

  it('reads LF-only messages and a cut multipart (no closing delimiter)', () => {
    const parts = readTextParts(
      Buffer.from('Content-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/plain\n\nfirst\n--b\nContent-Type: text/html\n\n<p>second'),
    );
    expect(parts).toEqual({ text: ['first'], html: ['<p>second'], filenames: [] });
  });

  it('a delimiter is a whole line: a nested boundary the outer one begins ("mix", "mix-alt") and a body line starting with it stay content', async () => {
    const raw = Buffer.from(
      [
        'Content-Type: multipart/mixed; boundary=mix',
        '',
        '--mix',
        'Content-Type: multipart/alternative; boundary=mix-alt',
        '',
        '--mix-alt',
        'Content-Type: text/plain',
        '',
        'plain words',
        '--mixed feelings are words too',
        '--mix-alt',
        'Content-Type: text/html',
        '',
        '<p>html words</p>',
        '--mix-alt--',
        '--mix',
        'Content-Type: application/pdf; name=report.pdf',
        '',
        'JVBER',
        '--mix--',
        '',
      ].join('\r\n'),
    );
    const fast = readTextParts(raw);
    expect(fast).toEqual({ text: ['plain words\r\n--mixed feelings are words too'], html: ['<p>html words</p>'], filenames: ['report.pdf'] });
    const parsed = await parseLeniently(raw, { skipHtmlToText: true });
    expect(squash(fast!.text.join('\n'))).toBe(squash(parsed.text));
    expect(fast!.filenames).toEqual(parsed.attachments.map((a) => a.filename));
  });

  it('decodes quoted-printable: escapes, soft line breaks (CRLF and LF), and a stray = kept', () => {
    expect(decodeQuotedPrintable(Buffer.from('caf=C3=A9 =\r\nau =\nlait =3D 1 =ZZ =')).toString('utf8')).toBe('café au lait = 1 =ZZ =');
  });
});
