/**
 * mbox files in the mboxrd flavour: each message starts with a `From ` line (the envelope sender and
 * a date); a line of a message that begins with `From `, after any number of `>`, gets one `>` more,
 * and reading takes one away, so every message comes back byte for byte (its line ends as LF).
 * Bytes, never text: a message in any charset passes unchanged, and the CLI (Node's Buffer) and the
 * Messages screen (a dropped file) read files the same way.
 */

const LF = 0x0a;
const CR = 0x0d;
const GT = 0x3e;
const FROM = [0x46, 0x72, 0x6f, 0x6d, 0x20]; // "From "

/** Whether `line` has `From ` at `at`. */
function fromAt(line: Uint8Array, at: number): boolean {
  return FROM.every((byte, i) => line[at + i] === byte);
}

/** Where `From ` starts after the line's `>`s, or -1 when the line is not a (quoted) From line. */
function quotedFrom(line: Uint8Array): number {
  let at = 0;
  while (line[at] === GT) at++;
  return fromAt(line, at) ? at : -1;
}

/** The file's lines, without their line ends (LF or CRLF). */
function linesOf(file: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  while (start <= file.length) {
    let end = file.indexOf(LF, start);
    if (end === -1) end = file.length;
    lines.push(file.subarray(start, end > start && file[end - 1] === CR ? end - 1 : end));
    start = end + 1;
  }
  return lines;
}

function joinLines(lines: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(lines.reduce((n, l) => n + l.length + 1, 0));
  let at = 0;
  for (const line of lines) {
    out.set(line, at);
    at += line.length;
    out[at++] = LF;
  }
  return out;
}

const bytesOf = (ascii: string) => Uint8Array.from(ascii, (c) => c.charCodeAt(0));

/** The messages of an mbox file, unquoted, with LF line ends and no trailing blank separator line. */
export function splitMbox(file: Uint8Array): Uint8Array[] {
  const messages: Uint8Array[][] = [];
  for (const line of linesOf(file)) {
    if (fromAt(line, 0)) {
      messages.push([]);
      continue;
    }
    const current = messages.at(-1);
    // Text before the first From line is not a message (an empty file, a stray blank line).
    if (current === undefined) continue;
    current.push(line[0] === GT && quotedFrom(line) > 0 ? line.subarray(1) : line);
  }
  return messages.map((m) => {
    // The blank line that separates a message from the next one's From line is the file's, not the message's.
    while (m.length > 0 && m.at(-1)!.length === 0) m.pop();
    return joinLines(m);
  });
}

/** Whether a file reads as an mbox: its first line is a `From ` line (an .eml file starts with a header field). */
export function isMbox(file: Uint8Array): boolean {
  return fromAt(file, 0);
}

/** A message of a file to import: in an mbox, its number there (from 1); null for a file that is one message. */
export interface NumberedMessage {
  number: number | null;
  raw: Uint8Array;
}

/**
 * The messages a file holds, as `mailyard import` and the Messages screen's Import read it: each of an
 * mbox (its first line a From line, so at least one, maybe empty: the emulator then names it), or any
 * other file as one message.
 */
export function fileMessages(file: Uint8Array): NumberedMessage[] {
  return isMbox(file) ? splitMbox(file).map((raw, i) => ({ number: i + 1, raw })) : [{ number: null, raw: file }];
}

/** One message as an mbox entry: its `From ` line (sender, date in asctime form), its lines quoted, a blank line after. */
export function mboxEntry(raw: Uint8Array, sender: string, date: Date): Uint8Array {
  const [day, , mon, , time] = date.toUTCString().split(' ');
  const asctime = `${day!.slice(0, 3)} ${mon} ${String(date.getUTCDate()).padStart(2, ' ')} ${time} ${date.getUTCFullYear()}`;
  // The From line is bytes: an address that is not plain ASCII (or none) is written as the convention's MAILER-DAEMON.
  const envelope = /^[\x21-\x3f\x41-\x7e]+@[\x21-\x3f\x41-\x7e]+$/.test(sender) ? sender : 'MAILER-DAEMON';
  const lines = linesOf(raw);
  if (lines.at(-1)?.length === 0) lines.pop();
  const quoted = lines.map((line) => (quotedFrom(line) >= 0 ? new Uint8Array([GT, ...line]) : line));
  return joinLines([bytesOf(`From ${envelope} ${asctime}`), ...quoted, new Uint8Array(0)]);
}
