/** A delimiter line of a multipart body (RFC 2046, 5.1.1). */
export interface DelimiterLine {
  /** Where its `--` starts. */
  at: number;
  /** Its line's `\n`, or the buffer's length when it has none. */
  end: number;
  /** It is the closing delimiter (`--boundary--`). */
  close: boolean;
}

/**
 * The next delimiter line of a multipart body at or after `from`: `--boundary` at the start of a line,
 * alone on it but for transport padding (spaces, tabs), or `--boundary--` that closes the body. A line
 * the boundary only begins is not one: with the boundary `mix`, `--mix-alt` (a nested part's boundary)
 * and `--mixed` are content. `delimiter` is `--` and the boundary, as bytes. Null when there is none.
 */
export function nextDelimiterLine(body: Buffer, delimiter: Buffer, from: number): DelimiterLine | null {
  for (let at = body.indexOf(delimiter, from); at !== -1; at = body.indexOf(delimiter, at + 1)) {
    if (at > 0 && body[at - 1] !== 0x0a) continue;
    const after = at + delimiter.length;
    const close = body[after] === 0x2d && body[after + 1] === 0x2d;
    const lf = body.indexOf(0x0a, after);
    const end = lf === -1 ? body.length : lf;
    let i = close ? after + 2 : after;
    while (i < end && (body[i] === 0x20 || body[i] === 0x09 || body[i] === 0x0d)) i++;
    if (i === end) return { at, end, close };
  }
  return null;
}

/**
 * The parts of a multipart body between its delimiter lines (nextDelimiterLine), each without the line
 * break before the next delimiter: the preamble and the epilogue dropped, a missing close tolerated.
 * Null when the body has no delimiter line.
 */
export function multipartParts(body: Buffer, boundary: string): Buffer[] | null {
  const delimiter = Buffer.from(`--${boundary}`);
  const lines: DelimiterLine[] = [];
  for (let line = nextDelimiterLine(body, delimiter, 0); line !== null; line = nextDelimiterLine(body, delimiter, line.end)) {
    lines.push(line);
    if (line.close) break;
  }
  if (lines.length === 0) return null;
  const parts: Buffer[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.close || line.end === body.length) break; // the closing delimiter, or a delimiter that ends the body
    let end = i + 1 < lines.length ? lines[i + 1]!.at : body.length;
    // The line break before a delimiter belongs to the delimiter.
    if (i + 1 < lines.length) end -= body[end - 2] === 0x0d ? 2 : 1;
    parts.push(body.subarray(line.end + 1, Math.max(line.end + 1, end)));
  }
  return parts;
}
