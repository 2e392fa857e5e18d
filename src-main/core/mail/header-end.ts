/**
 * Where the header block of the MIME entity starting at `raw[from]` ends: at the end of its last header
 * line, before the line break that the first empty line follows (line breaks CRLF or bare LF, in any
 * mix, as mailparser reads them); at `from` when the entity starts with an empty line (it has no header
 * lines); at `to` when it has no empty line. Only `raw[from, to)` is read, and only up to the empty
 * line: a large part's content is not scanned once its header block has ended.
 *
 * The SMTP sink, the search index (header lines, body text, attachment names) and the fallback view of
 * a message mailparser cannot read all split a message here, so they agree on what its headers are.
 */
export function headerEnd(raw: Buffer, from = 0, to = raw.length): number {
  if (pastLineBreak(raw, from, to) > from) return from;
  const scan = raw.subarray(0, to);
  for (let at = from; ; ) {
    const lf = scan.indexOf(0x0a, at);
    if (lf === -1) return to;
    if (pastLineBreak(raw, lf + 1, to) > lf + 1) return lf > from && raw[lf - 1] === 0x0d ? lf - 1 : lf;
    at = lf + 1;
  }
}

/** Past the line break at `at` (CRLF or bare LF) if it ends before `to`, else `at`. */
function pastLineBreak(raw: Buffer, at: number, to = raw.length): number {
  if (at < to && raw[at] === 0x0a) return at + 1;
  if (at + 1 < to && raw[at] === 0x0d && raw[at + 1] === 0x0a) return at + 2;
  return at;
}

/**
 * Where the body of the MIME entity starting at `raw[from]` starts: just past the empty line that ends
 * its header block (see headerEnd, whose reading it shares), or at `to` when there is none.
 */
export const bodyStart = (raw: Buffer, from = 0, to = raw.length): number => splitEntity(raw, from, to).body;

/** Both at once: the header block's end (headerEnd) and the body's start (bodyStart), for one scan. */
export function splitEntity(raw: Buffer, from = 0, to = raw.length): { end: number; body: number } {
  const end = headerEnd(raw, from, to);
  if (end >= to) return { end, body: to };
  // The last header line's line break, then the empty line (an entity starting with one has only that).
  return { end, body: pastLineBreak(raw, end > from ? pastLineBreak(raw, end, to) : end, to) };
}
