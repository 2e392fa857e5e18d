/**
 * A compact, byte-exact encoding of one buffer as edits of another: how each recipient's copy of a send
 * is stored beside the send's base copy. Copies differ from the base in a few places (tracking tokens,
 * the Message-ID, a DKIM signature), at the same offsets when the copies have the same length, so a
 * copy costs its differing bytes, not its size.
 *
 * The encoding: a sequence of edits, each `offset` (u32, in the base), `deleted` (u32, bytes of the base
 * dropped there), `inserted` (u32) and then the inserted bytes; edits in increasing offset order.
 */

const HEADER = 12;
/** Equal runs shorter than this between two differing ranges are folded into one edit (its header costs 12 bytes). */
const MERGE_GAP = 16;

interface Edit {
  offset: number;
  deleted: number;
  inserted: Buffer;
}

function encode(edits: Edit[]): Buffer {
  const size = edits.reduce((n, e) => n + HEADER + e.inserted.length, 0);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const e of edits) {
    out.writeUInt32BE(e.offset, at);
    out.writeUInt32BE(e.deleted, at + 4);
    out.writeUInt32BE(e.inserted.length, at + 8);
    e.inserted.copy(out, at + HEADER);
    at += HEADER + e.inserted.length;
  }
  return out;
}

/**
 * The edits that make `copy` from `base`. Same lengths: each differing range (nearby ones merged) is
 * replaced in place. Different lengths: the part between their common prefix and common suffix.
 */
export function diffBytes(base: Buffer, copy: Buffer): Buffer {
  if (base.length !== copy.length) {
    const shorter = Math.min(base.length, copy.length);
    let prefix = 0;
    while (prefix < shorter && base[prefix] === copy[prefix]) prefix++;
    let suffix = 0;
    while (suffix < shorter - prefix && base[base.length - 1 - suffix] === copy[copy.length - 1 - suffix]) suffix++;
    return encode([{ offset: prefix, deleted: base.length - prefix - suffix, inserted: copy.subarray(prefix, copy.length - suffix) }]);
  }
  const edits: Edit[] = [];
  let i = 0;
  const n = base.length;
  while (i < n) {
    if (base[i] === copy[i]) {
      i++;
      continue;
    }
    const start = i;
    let end = i + 1;
    // Extend over differing bytes and equal runs shorter than MERGE_GAP.
    for (let j = end; j < n; ) {
      if (base[j] !== copy[j]) {
        end = ++j;
        continue;
      }
      let k = j;
      while (k < n && k - j < MERGE_GAP && base[k] === copy[k]) k++;
      if (k === n || k - j >= MERGE_GAP) break;
      j = k;
    }
    edits.push({ offset: start, deleted: end - start, inserted: copy.subarray(start, end) });
    i = end;
  }
  return encode(edits);
}

/** The buffer `patch` (from diffBytes) makes of `base`. */
export function applyPatch(base: Buffer, patch: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = 0; at < patch.length; ) {
    const offset = patch.readUInt32BE(at);
    const deleted = patch.readUInt32BE(at + 4);
    const inserted = patch.readUInt32BE(at + 8);
    if (offset < from || offset + deleted > base.length || at + HEADER + inserted > patch.length) throw new Error('corrupt copy patch');
    parts.push(base.subarray(from, offset), patch.subarray(at + HEADER, at + HEADER + inserted));
    from = offset + deleted;
    at += HEADER + inserted;
  }
  parts.push(base.subarray(from));
  return Buffer.concat(parts);
}
