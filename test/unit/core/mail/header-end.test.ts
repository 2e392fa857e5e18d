import { describe, expect, it } from 'vitest';
import { bodyStart, headerEnd, splitEntity } from '../../../../src-main/core/mail/header-end';
import { readMessageFacts } from '../../../../src-main/core/mail/parse-message';
import { readTextParts } from '../../../../src-main/core/mail/text-parts';
import { headerSearchText, receivedBodySearchText } from '../../../../src-main/core/services/search/search-text';

const b = (s: string) => Buffer.from(s, 'latin1');
/** The header block and the body as strings, as headerEnd and bodyStart split them. */
const split = (s: string, from = 0, to?: number) => {
  const raw = b(s);
  const { end, body } = splitEntity(raw, from, to);
  expect(end).toBe(headerEnd(raw, from, to));
  expect(body).toBe(bodyStart(raw, from, to));
  return [raw.subarray(from, end).toString('latin1'), raw.subarray(body, to ?? raw.length).toString('latin1')];
};

describe('where a header block ends: one reading for the sink, the search index and the fallback view', () => {
  it('splits at the first empty line, whatever mix of CRLF and bare LF ends it', () => {
    expect(split('Subject: a\r\nX-A: 1\r\n\r\nbody\r\n')).toEqual(['Subject: a\r\nX-A: 1', 'body\r\n']);
    expect(split('Subject: a\nX-A: 1\n\nbody\n')).toEqual(['Subject: a\nX-A: 1', 'body\n']);
    expect(split('Subject: a\r\n\nbody')).toEqual(['Subject: a', 'body']);
    expect(split('Subject: a\n\r\nbody')).toEqual(['Subject: a', 'body']);
    // A bare-LF empty line before a CRLF one ends the block: the lines between are body.
    expect(split('Subject: a\n\nline\r\nX-Not: header\r\n\r\nmore')).toEqual(['Subject: a', 'line\r\nX-Not: header\r\n\r\nmore']);
  });

  it('has no header lines when the entity starts with an empty line, and no body when it has none', () => {
    expect(split('\r\nSubject: body text\r\n\r\nmore')).toEqual(['', 'Subject: body text\r\n\r\nmore']);
    expect(split('\nSubject: body text')).toEqual(['', 'Subject: body text']);
    expect(split('Subject: a\r\nX-A: 1\r\n')).toEqual(['Subject: a\r\nX-A: 1\r\n', '']);
    expect(split('')).toEqual(['', '']);
  });

  it('reads only raw[from, to): a part inside a message, and a bounded scan', () => {
    const raw = 'preamble\r\nContent-Type: text/plain\r\n\r\npart text\r\n--b--';
    const from = raw.indexOf('Content-Type');
    expect(split(raw, from, raw.indexOf('\r\n--b--'))).toEqual(['Content-Type: text/plain', 'part text']);
    // The empty line lies past `to`: no empty line within, so all of it is header block.
    expect(split('Subject: a\r\nX-A: 1\r\n\r\nbody', 0, 14)).toEqual(['Subject: a\r\nX-', '']);
  });

  it('gives the SMTP sink and the search index the same header lines', async () => {
    const leading = b('\r\nSubject: not a header\r\n\r\nbody words\r\n');
    expect(readMessageFacts(leading).subject).toBe('');
    expect(headerSearchText(leading, '')).toBe('');
    expect(await receivedBodySearchText(leading)).toContain('Subject: not a header');

    const mixed = b('Subject: mixed\nX-A: 1\n\nbody line\r\nX-Not: header\r\n\r\nmore\r\n');
    expect(readMessageFacts(mixed).subject).toBe('mixed');
    expect(headerSearchText(mixed, '')).toBe('Subject: mixed\nX-A: 1');
    expect(await receivedBodySearchText(mixed)).toContain('X-Not: header');
  });

  it('indexes the text of a MIME part that has no header lines (text/plain by default)', async () => {
    const raw = b(
      'From: a@example.com\r\nSubject: parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n' +
        '--b\r\n\r\nheaderless part words\r\n--b\r\nContent-Type: text/plain\r\n\r\ntyped part words\r\n--b--\r\n',
    );
    expect(readTextParts(raw)?.text).toEqual(['headerless part words', 'typed part words']);
    expect(await receivedBodySearchText(raw)).toContain('headerless part words');
  });
});
