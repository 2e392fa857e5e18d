/**
 * A compact, byte-exact encoding of one buffer as edits of another: how each recipient's copy of a send
 * is stored beside the send's base copy. Copies differ from the base in a few places (tracking tokens,
 * the Message-ID, a DKIM signature), at the same offsets when the copies have the same length, so a
 * copy costs its differing bytes, not its size. A copy's click links all carry its one key, so its many
 * edits insert the same few byte strings: each is stored once per patch and named after that.
 *
 * The encoding (version 1): a byte 0xFF, then the edits in increasing offset order, each three unsigned
 * LEB128 numbers: the equal bytes since the previous edit's end (in the base), the bytes of the base
 * dropped there, and `2 * length` followed by the inserted bytes, or `2 * i + 1` for the same bytes as the
 * patch's i-th distinct insertion. Version 0 (patches stored before it, still read): edits of `offset`,
 * `deleted` and `inserted` (u32 each) and the inserted bytes; its first byte is never 0xFF (an offset
 * under 4 GB). An empty patch is the base itself.
 */

const VERSION_1 = 0xff;
const V0_HEADER = 12;
/** Equal runs shorter than this between two differing ranges are folded into one edit (a new edit costs its numbers). */
const MERGE_GAP = 16;
/** Insertions at most this long are looked up among the earlier ones (a link key, a QP-wrapped piece of one). */
const REUSE_AT_MOST = 256;
/** At most this many distinct insertions are remembered for reuse. */
const REUSE_ENTRIES = 4096;

/** One edit: `deleted` bytes of the base at `offset` replaced with `inserted`. */
export interface Edit {
  offset: number;
  deleted: number;
  inserted: Buffer;
}

/** Unsigned LEB128, as many bytes as the value needs (a JS number up to 2^53). */
function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** The patch of these edits (in increasing offset order, not overlapping). */
export function encodeEdits(edits: readonly Edit[]): Buffer {
  if (edits.length === 0) return Buffer.alloc(0);
  const head: number[] = [VERSION_1];
  const chunks: Buffer[] = [];
  const seen = new Map<string, number>();
  let end = 0;
  const flush = () => {
    if (head.length > 0) chunks.push(Buffer.from(head));
    head.length = 0;
  };
  for (const e of edits) {
    writeVarint(head, e.offset - end);
    writeVarint(head, e.deleted);
    end = e.offset + e.deleted;
    const key = e.inserted.length <= REUSE_AT_MOST ? e.inserted.toString('latin1') : undefined;
    const earlier = key === undefined ? undefined : seen.get(key);
    if (earlier !== undefined) {
      writeVarint(head, 2 * earlier + 1);
      continue;
    }
    writeVarint(head, 2 * e.inserted.length);
    flush();
    chunks.push(e.inserted);
    if (key !== undefined && seen.size < REUSE_ENTRIES) seen.set(key, seen.size);
  }
  flush();
  return Buffer.concat(chunks);
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
    return encodeEdits([{ offset: prefix, deleted: base.length - prefix - suffix, inserted: copy.subarray(prefix, copy.length - suffix) }]);
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
  return encodeEdits(edits);
}

/** The buffer `patch` (from diffBytes, either version) makes of `base`. */
export function applyPatch(base: Buffer, patch: Buffer): Buffer {
  return patched(base, patch, false);
}

/**
 * The start of what `patch` makes of its base, from a prefix of the base: the edits within the prefix
 * applied, and the copy cut where the prefix's knowledge ends (after an edit reaching past it, or at the
 * prefix's end). For reading a copy's start (its header block) without reading its whole base.
 */
export function applyPatchToPrefix(prefix: Buffer, patch: Buffer): Buffer {
  return patched(prefix, patch, true);
}

/** The length of what `patch` makes of a base of `baseLength` bytes, without making it. */
export function patchedLength(baseLength: number, patch: Buffer): number {
  if (patch.length === 0) return baseLength;
  const edits = patch[0] === VERSION_1 ? decodeV1(patch) : decodeV0(patch);
  return edits.reduce((length, e) => length + e.inserted.length - e.deleted, baseLength);
}

/** Applies `patch` to `base`, the whole base or (`isPrefix`) only its start: see applyPatch and applyPatchToPrefix. */
function patched(base: Buffer, patch: Buffer, isPrefix: boolean): Buffer {
  if (patch.length === 0) return base;
  const edits = patch[0] === VERSION_1 ? decodeV1(patch) : decodeV0(patch);
  const parts: Buffer[] = [];
  let from = 0;
  for (const e of edits) {
    const pastEnd = e.offset + e.deleted > base.length;
    if (e.offset < from || (pastEnd && !isPrefix)) throw new Error('corrupt copy patch');
    if (e.offset > base.length) break;
    parts.push(base.subarray(from, e.offset), e.inserted);
    // An edit reaching past a prefix: the copy is known up to its end, no further.
    if (pastEnd) return Buffer.concat(parts);
    from = e.offset + e.deleted;
  }
  parts.push(base.subarray(from));
  return Buffer.concat(parts);
}

function decodeV0(patch: Buffer): Edit[] {
  const edits: Edit[] = [];
  for (let at = 0; at < patch.length; ) {
    if (at + V0_HEADER > patch.length) throw new Error('corrupt copy patch');
    const inserted = patch.readUInt32BE(at + 8);
    if (at + V0_HEADER + inserted > patch.length) throw new Error('corrupt copy patch');
    edits.push({ offset: patch.readUInt32BE(at), deleted: patch.readUInt32BE(at + 4), inserted: patch.subarray(at + V0_HEADER, at + V0_HEADER + inserted) });
    at += V0_HEADER + inserted;
  }
  return edits;
}

function decodeV1(patch: Buffer): Edit[] {
  const edits: Edit[] = [];
  const distinct: Buffer[] = [];
  let at = 1;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= patch.length || scale > 2 ** 49) throw new Error('corrupt copy patch');
      const byte = patch[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  };
  let end = 0;
  while (at < patch.length) {
    const offset = end + varint();
    const deleted = varint();
    const n = varint();
    let inserted: Buffer;
    if (n % 2 === 1) {
      const earlier = distinct[(n - 1) / 2];
      if (earlier === undefined) throw new Error('corrupt copy patch');
      inserted = earlier;
    } else {
      const length = n / 2;
      if (at + length > patch.length) throw new Error('corrupt copy patch');
      inserted = patch.subarray(at, at + length);
      at += length;
      if (length <= REUSE_AT_MOST && distinct.length < REUSE_ENTRIES) distinct.push(inserted);
    }
    edits.push({ offset, deleted, inserted });
    end = offset + deleted;
  }
  return edits;
}
