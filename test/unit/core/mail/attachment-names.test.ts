import { describe, expect, it } from 'vitest';
import { attachmentNames } from '../../../../src-main/core/mail/attachment-names';
import { headerSearchText, replyToValues } from '../../../../src-main/core/services/search/search-text';

const mime = (lines: string[]) => Buffer.from(lines.join('\r\n'));

describe("a message's attachment names, for the search index", () => {
  it('a boundary is a whole delimiter line: an inner boundary the outer one begins ("mix", "mix-alt") is not taken for it, nor for its end', () => {
    const raw = mime([
      'Subject: x',
      'Content-Type: multipart/mixed; boundary="mix"',
      '',
      '--mix',
      'Content-Type: multipart/alternative; boundary="mix-alt"',
      '',
      '--mix-alt',
      'Content-Type: text/plain',
      '',
      'hello',
      '--mix-alt ',
      'Content-Type: text/html',
      '',
      '<p>hello</p>',
      '--mix-alt--',
      '--mix\t',
      'Content-Type: application/pdf; name=report.pdf',
      'Content-Disposition: attachment; filename=report.pdf',
      '',
      'JVBER',
      '--mix',
      'Content-Type: text/plain; name=notes.txt',
      '',
      '--mix-alt is not a delimiter here',
      '--mix--',
      '',
    ]);
    expect(attachmentNames(raw)).toEqual(['report.pdf', 'notes.txt']);
  });

  it('walks nested multiparts; counts attachments and named parts that are not inline; reads RFC 2231 and encoded words', () => {
    const raw = mime([
      'Subject: x',
      'Content-Type: multipart/mixed; boundary="outer"',
      '',
      '--outer',
      'Content-Type: multipart/related; boundary=inner',
      '',
      '--inner',
      'Content-Type: text/html',
      '',
      '<img src="cid:logo">',
      '--inner',
      'Content-Type: image/png; name=logo.png',
      'Content-Disposition: inline; filename=logo.png',
      '',
      'iVBOR',
      '--inner--',
      '--outer',
      'Content-Type: application/pdf;',
      ' name="=?UTF-8?Q?Facture_=C3=A9t=C3=A9.pdf?="',
      '',
      'JVBER',
      '--outer',
      'Content-Disposition: attachment; filename*0*=utf-8\'\'r%C3%A9sum%C3%A9; filename*1=".txt"',
      '',
      'x',
      '--outer',
      'Content-Disposition: attachment',
      '',
      'no name',
      '--outer--',
      '',
    ]);
    expect(attachmentNames(raw)).toEqual(['Facture été.pdf', 'résumé.txt', 'attachment']);
    expect(headerSearchText(raw)).toMatch(
      /\nX-Mailyard-Attachment: Facture été\.pdf résumé\.txt attachment mlyatt mlyfnfacture mlyfnété mlyfnpdf mlyfnrésumé mlyfntxt mlyfnattachment$/,
    );
  });

  it('indexes a name as it is shown: without format characters (U+202E shows "fdp.exe" as "exe.pdf")', () => {
    const raw = mime([
      'Content-Type: multipart/mixed; boundary=b',
      '',
      '--b',
      "Content-Disposition: attachment; filename*=utf-8''invoice%E2%80%AEfdp.exe",
      '',
      'MZ',
      '--b',
      'Content-Disposition: attachment; filename="=?UTF-8?Q?a=E2=80=8Fb=E2=81=A6c=E2=81=A9=D8=9Cd.txt?="',
      '',
      'x',
      '--b--',
    ]);
    expect(attachmentNames(raw)).toEqual(['invoicefdp.exe', 'abcd.txt']);
  });

  it("indexes the Reply-To's names and addresses as marked words (reply-to:, addressed:), folded lines and encoded words read", () => {
    const raw = mime(['In-Reply-To: <a@x.test>', 'Reply-To: "=?UTF-8?Q?S=C3=B8ren?=" <help@shop.test>,', '\tbilling@shop.test', 'Subject: hi', '', 'text']);
    expect(replyToValues(headerSearchText(raw))).toEqual(['"Søren" <help@shop.test>, billing@shop.test']);
    expect(headerSearchText(raw)).toMatch(/\nX-Mailyard-Reply-To: mlyrtsøren mlyrthelp mlyrtshop mlyrttest mlyrtbilling mlyrtshop mlyrttest$/);
    expect(headerSearchText(mime(['In-Reply-To: <a@x.test>', '', 'x']))).toBe('In-Reply-To: <a@x.test>');
  });

  it('answers what it found, without throwing, for messages without parts, without an end, or broken', () => {
    expect(attachmentNames(mime(['Subject: plain', '', 'text']))).toEqual([]);
    expect(headerSearchText(mime(['Subject: plain', '', 'text']))).toBe('Subject: plain');
    expect(attachmentNames(mime(['Content-Disposition: attachment; filename=a.bin', '', 'bytes']))).toEqual(['a.bin']);
    expect(
      attachmentNames(mime(['Content-Type: multipart/mixed; boundary=b', '', '--b', 'Content-Disposition: attachment; filename=cut.pdf', '', 'JVB'])),
    ).toEqual(['cut.pdf']);
    expect(attachmentNames(mime(['Content-Type: multipart/mixed', '', '--b', 'x']))).toEqual([]); // no boundary
    expect(attachmentNames(Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0x0a]))).toEqual([]);
    const many = mime([
      'Content-Type: multipart/mixed; boundary=b',
      '',
      ...Array.from({ length: 150 }, (_, i) => `--b\r\nContent-Disposition: attachment; filename=f${i}.txt\r\n\r\nx`),
      '--b--',
    ]);
    expect(attachmentNames(many)).toHaveLength(100);
  });
});
