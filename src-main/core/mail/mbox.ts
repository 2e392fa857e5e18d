/**
 * mbox files in the mboxrd flavour: each message starts with a `From ` line (the envelope sender and
 * a date); a line of a message that begins with `From `, after any number of `>`, gets one `>` more,
 * and reading takes one away, so every message comes back byte for byte (its line ends as LF).
 */

const FROM_LINE = /^From /;
const QUOTED_FROM = /^>+From /;

/** The messages of an mbox file, unquoted, with LF line ends and no trailing blank separator line. */
export function splitMbox(file: Buffer): Buffer[] {
  const lines = file.toString('latin1').split(/\r?\n/);
  const messages: string[][] = [];
  for (const line of lines) {
    if (FROM_LINE.test(line)) {
      messages.push([]);
      continue;
    }
    const current = messages.at(-1);
    // Text before the first From line is not a message (an empty file, a stray blank line).
    if (current === undefined) continue;
    current.push(QUOTED_FROM.test(line) ? line.slice(1) : line);
  }
  return messages.map((m) => {
    // The blank line that separates a message from the next one's From line is the file's, not the message's.
    while (m.length > 0 && m.at(-1) === '') m.pop();
    return Buffer.from(`${m.join('\n')}\n`, 'latin1');
  });
}

/** Whether a file reads as an mbox: its first line is a `From ` line (an .eml file starts with a header field). */
export function isMbox(file: Buffer): boolean {
  return FROM_LINE.test(file.subarray(0, 5).toString('latin1'));
}

/** One message as an mbox entry: its `From ` line (sender, date in asctime form), its lines quoted, a blank line after. */
export function mboxEntry(raw: Buffer, sender: string, date: Date): Buffer {
  const [day, , mon, , time] = date.toUTCString().split(' ');
  const asctime = `${day!.slice(0, 3)} ${mon} ${String(date.getUTCDate()).padStart(2, ' ')} ${time} ${date.getUTCFullYear()}`;
  const body = raw
    .toString('latin1')
    .split(/\r?\n/)
    .map((line) => (FROM_LINE.test(line) || QUOTED_FROM.test(line) ? `>${line}` : line));
  if (body.at(-1) === '') body.pop();
  const envelope = /^[^\s@]+@[^\s@]+$/.test(sender) ? sender : 'MAILER-DAEMON';
  return Buffer.from(`From ${envelope} ${asctime}\n${body.join('\n')}\n\n`, 'latin1');
}
