import { describe, expect, it } from 'vitest';
import { fileMessages, isMbox, mboxEntry, splitMbox } from '../../../src-shared/mbox';

const message = (subject: string, body: string) => Buffer.from(`From: a@example.com\nTo: b@example.org\nSubject: ${subject}\n\n${body}\n`);

describe('mbox (mboxrd)', () => {
  it('writes and reads back messages byte for byte, a body line starting with From quoted in the file', () => {
    const one = message('one', 'From here on, it is quoted.\n>From already quoted\nplain');
    const two = message('two', 'hello');
    const file = Buffer.concat([mboxEntry(one, 'a@example.com', new Date(Date.UTC(2026, 0, 5, 9, 3, 7))), mboxEntry(two, '', new Date(0))]);
    const text = file.toString();
    expect(text.startsWith('From a@example.com Mon Jan  5 09:03:07 2026\n')).toBe(true);
    expect(text).toContain('\n>From here on, it is quoted.\n>>From already quoted\n');
    expect(text).toContain('\nFrom MAILER-DAEMON Thu Jan  1 00:00:00 1970\n');
    expect(isMbox(file)).toBe(true);
    expect(isMbox(one)).toBe(false);
    expect(splitMbox(file).map((m) => Buffer.from(m))).toEqual([one, two]);
  });

  it('keeps bytes that are no text (an 8-bit charset) as they are', () => {
    const raw = Buffer.concat([
      Buffer.from('From: a@example.com\nTo: b@example.org\nSubject: caf'),
      Buffer.from([0xe9, 0x80, 0x9f]),
      Buffer.from('\n\nbody\n'),
    ]);
    expect(Buffer.from(splitMbox(mboxEntry(raw, 'a@example.com', new Date(0)))[0]!)).toEqual(raw);
    expect(
      Buffer.from(mboxEntry(raw, 'jörg@example.com', new Date(0)))
        .toString()
        .split('\n')[0],
    ).toBe('From MAILER-DAEMON Thu Jan  1 00:00:00 1970');
  });

  it('reads CRLF files, and ignores text before the first From line', () => {
    const file = Buffer.from('\r\nFrom x@y Mon Jan  5 09:03:07 2026\r\nSubject: a\r\n\r\n>From b\r\n\r\n');
    expect(splitMbox(file).map((m) => Buffer.from(m).toString())).toEqual(['Subject: a\n\nFrom b\n']);
  });

  it('a file to import: an .eml is one message (no number), an mbox each of its messages numbered from 1 (a From line alone is one empty message, which the emulator refuses by name)', () => {
    const eml = message('One', 'hi');
    expect(fileMessages(eml)).toEqual([{ number: null, raw: eml }]);
    const mbox = Buffer.concat([mboxEntry(message('A', 'a'), 'a@example.com', new Date(0)), mboxEntry(message('B', 'b'), 'a@example.com', new Date(0))]);
    expect(fileMessages(mbox)?.map((m) => [m.number, Buffer.from(m.raw).toString()])).toEqual([
      [1, message('A', 'a').toString()],
      [2, message('B', 'b').toString()],
    ]);
    expect(fileMessages(Buffer.from('From a@example.com Thu Jan  1 00:00:00 1970\n\n'))).toEqual([{ number: 1, raw: new Uint8Array(0) }]);
  });
});
