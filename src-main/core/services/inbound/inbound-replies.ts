/** Mailyard's Message-IDs: `<key@mailyard.local>`, the key a ULID (the copy's id). */
const MAILYARD_ID = /<([0-9A-HJKMNP-TV-Z]{26})@mailyard\.local>/gi;

/** The keys of the Mailyard Message-IDs a message's In-Reply-To and References name (its header block only). */
export function repliedCopyKeys(raw: Buffer): string[] {
  const ends = [raw.indexOf('\r\n\r\n'), raw.indexOf('\n\n')].filter((i) => i >= 0);
  const end = ends.length === 0 ? -1 : Math.min(...ends);
  const head = raw.subarray(0, end < 0 ? Math.min(raw.length, 256 * 1024) : end).toString('latin1').replace(/\r?\n[ \t]+/g, ' ');
  const lines = head.split(/\r?\n/).filter((l) => /^(in-reply-to|references):/i.test(l));
  return lines.flatMap((l) => [...l.matchAll(MAILYARD_ID)].map((m) => m[1]!.toUpperCase()));
}
