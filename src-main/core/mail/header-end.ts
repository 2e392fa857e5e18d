/**
 * Where the header block of the MIME entity starting at `raw[from]` ends: at its first blank line (CRLF
 * or bare LF, whichever comes first), at `from` when the entity starts with one (it has no header
 * lines), or at `to` when there is none. Only `raw[from, to)` is read: a caller that must not scan a
 * large part's every byte passes a bounded `to`.
 */
export function headerEnd(raw: Buffer, from = 0, to = raw.length): number {
  if (raw[from] === 0x0a || (raw[from] === 0x0d && raw[from + 1] === 0x0a)) return from;
  const scan = raw.subarray(from, to);
  const crlf = scan.indexOf('\r\n\r\n');
  // A bare-LF blank line is looked for only before the first CRLF one (or anywhere when there is none).
  const lf = (crlf === -1 ? scan : scan.subarray(0, crlf + 2)).indexOf('\n\n');
  if (crlf === -1 && lf === -1) return from + scan.length;
  if (crlf === -1) return from + lf;
  if (lf === -1) return from + crlf;
  return from + Math.min(crlf, lf);
}
