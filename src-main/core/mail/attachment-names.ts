import { shownFileName } from './file-name';
import { headerEnd } from './header-end';
import { libmime } from './libmime';
import { nextDelimiterLine } from './mime-delimiter';

/** At most this many attachment names are indexed for a message, and parts looked at. */
export const MAX_ATTACHMENT_NAMES = 100;
const MAX_PARTS = 500;
/** Nested multiparts followed at most this deep. */
const MAX_DEPTH = 8;
/** A part's header block is read up to this much. */
const PART_HEADER_LIMIT = 16 * 1024;

interface PartHeaders {
  type: string;
  boundary: string | undefined;
  disposition: string;
  /** Its name as shown (shownFileName); undefined when none, or of format characters only. */
  name: string | undefined;
  /** It carries a name, even one that shows as nothing. */
  named: boolean;
}

/** A part's Content-Type and Content-Disposition (read with libmime: folded lines, RFC 2231 and encoded words). */
function partHeaders(block: string): PartHeaders {
  const headers = libmime().decodeHeaders(block) as Record<string, string[]>;
  const type = libmime().parseHeaderValue(headers['content-type']?.[0] ?? 'text/plain');
  const disp = libmime().parseHeaderValue(headers['content-disposition']?.[0] ?? '');
  const name = disp.params.filename || type.params.name;
  return {
    type: type.value.toLowerCase(),
    boundary: type.params.boundary,
    disposition: disp.value.toLowerCase(),
    name: name ? shownFileName(safeDecode(name)) : undefined,
    named: Boolean(name),
  };
}

function safeDecode(value: string): string {
  try {
    return libmime().decodeWords(value);
  } catch {
    return value;
  }
}

/**
 * The file names of a raw message's attachments: its parts that are attachments (Content-Disposition
 * attachment, or a named part that is not inline), found by walking the MIME boundaries with
 * Buffer.indexOf (no part's content is decoded: a 24 MB attachment costs a scan, not a parse). An
 * attachment without a name counts, as "attachment". Never throws.
 */
export function attachmentNames(raw: Buffer): string[] {
  const names: string[] = [];
  let parts = 0;
  const walk = (from: number, to: number, depth: number) => {
    if (names.length >= MAX_ATTACHMENT_NAMES || parts++ >= MAX_PARTS) return;
    const end = headerEnd(raw, from, Math.min(to, from + PART_HEADER_LIMIT));
    const head = partHeaders(raw.subarray(from, end).toString('utf8'));
    if (head.type.startsWith('multipart/') && head.boundary && depth < MAX_DEPTH) {
      const delimiter = Buffer.from(`--${head.boundary}`);
      let line = nextDelimiterLine(raw, delimiter, end);
      while (line !== null && line.at < to && !line.close) {
        const next = nextDelimiterLine(raw, delimiter, line.end);
        walk(line.end + 1, next === null || next.at > to ? to : next.at, depth + 1);
        line = next;
      }
      return;
    }
    const attached = head.disposition === 'attachment' || (head.named && head.disposition !== 'inline');
    if (attached) names.push(head.name ?? 'attachment');
  };
  try {
    walk(0, raw.length, 0);
  } catch {
    // A message too broken to walk keeps what was found.
  }
  return names;
}
