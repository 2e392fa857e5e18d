import { headerEnd } from '../../mail/header-end';

/** Of a message, at most this much is read for its header block. */
const HEADER_LIMIT = 256 * 1024;

/** Mailyard's Message-IDs: `<key@mailyard.local>`, the key a ULID (the copy's id). */
const MAILYARD_ID = /<([0-9A-HJKMNP-TV-Z]{26})@mailyard\.local>/gi;

/** The keys of the Mailyard Message-IDs a message's In-Reply-To and References name (its header block only). */
export function repliedCopyKeys(raw: Buffer): string[] {
  const head = raw
    .subarray(0, headerEnd(raw, 0, Math.min(raw.length, HEADER_LIMIT)))
    .toString('latin1')
    .replace(/\r?\n[ \t]+/g, ' ');
  const lines = head.split(/\r?\n/).filter((l) => /^(in-reply-to|references):/i.test(l));
  return lines.flatMap((l) => [...l.matchAll(MAILYARD_ID)].map((m) => m[1]!.toUpperCase()));
}
