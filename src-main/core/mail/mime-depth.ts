import { headerEnd } from './header-end';
import { libmime } from './libmime';

/**
 * How deep a read follows nested multiparts. Mail programs nest a few levels (mixed, alternative,
 * related: 3 or 4; a forwarded message adds its own); a message of thousands of levels cost mailparser
 * seconds and gigabytes at every read. Deeper multiparts are kept as one opaque part (cutDeepParts).
 */
export const MAX_MIME_DEPTH = 32;
/** The opaque part's file name: what is below the cut, as it came. */
export const DEEPER_PARTS_NAME = 'deeper-parts.mime';
/** Parts looked at, at most, to find the cut (wider trees are mailparser's to bound: RELAXED_MIME_NODES). */
const MAX_PARTS = 2_000;
/** A part's header block is read up to this much. */
const PART_HEADER_LIMIT = 16 * 1024;

function multipartBoundary(block: string): string | undefined {
  try {
    const headers = libmime().decodeHeaders(block) as Record<string, string[]>;
    const type = libmime().parseHeaderValue(headers['content-type']?.[0] ?? 'text/plain');
    return type.value.toLowerCase().startsWith('multipart/') ? type.params.boundary || undefined : undefined;
  } catch {
    return undefined;
  }
}

/** The next delimiter line of a boundary at or after `from`: `--boundary` then the line's end, `--` or white space (not `--boundary2`). */
function findDelimiter(raw: Buffer, delimiter: Buffer, from: number): number {
  for (let at = raw.indexOf(delimiter, from); at !== -1; at = raw.indexOf(delimiter, at + 1)) {
    const after = raw[at + delimiter.length];
    if (after === undefined || after === 0x0d || after === 0x0a || after === 0x2d || after === 0x20 || after === 0x09) return at;
  }
  return -1;
}

/**
 * The message as a read follows it: each multipart at MAX_MIME_DEPTH levels of nesting has its header
 * block replaced by one of an opaque attachment (DEEPER_PARTS_NAME), its body left as it is, so a
 * parser does not go below it. `cut` says whether anything was (the stored message never changes:
 * this copy is only read). Boundaries are found with Buffer.indexOf, as attachment-names.ts walks them.
 */
export function cutDeepParts(raw: Buffer): { raw: Buffer; cut: boolean } {
  const cuts: Array<[number, number]> = [];
  let parts = 0;
  const walk = (from: number, to: number, depth: number) => {
    if (parts++ >= MAX_PARTS) return;
    const end = headerEnd(raw, from, Math.min(to, from + PART_HEADER_LIMIT));
    const boundary = multipartBoundary(raw.subarray(from, end).toString('latin1'));
    if (boundary === undefined) return;
    if (depth >= MAX_MIME_DEPTH) {
      cuts.push([from, end]);
      return;
    }
    const delimiter = Buffer.from(`\n--${boundary}`);
    let at = findDelimiter(raw, delimiter, end - 1);
    while (at !== -1 && at < to) {
      const lineEnd = raw.indexOf('\n', at + delimiter.length);
      if (lineEnd === -1 || raw[at + delimiter.length] === 0x2d) return; // `--boundary--`: the last part ended
      const next = findDelimiter(raw, delimiter, lineEnd);
      walk(lineEnd + 1, next === -1 || next > to ? to : next, depth + 1);
      at = next;
    }
  };
  walk(0, raw.length, 0);
  if (cuts.length === 0) return { raw, cut: false };
  const header = Buffer.from(`Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="${DEEPER_PARTS_NAME}"`);
  const pieces: Buffer[] = [];
  let last = 0;
  for (const [from, end] of cuts) {
    pieces.push(raw.subarray(last, from), header);
    last = end;
  }
  pieces.push(raw.subarray(last));
  return { raw: Buffer.concat(pieces), cut: true };
}
