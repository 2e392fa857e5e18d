import { type Edit, encodeEdits } from '../../store/byte-patch';

/** One stretch of a token's characters in the composed bytes: `length` characters from `from`, at `offset`. */
interface Place {
  token: number;
  from: number;
  length: number;
  offset: number;
}

// A quoted-printable soft line break: "=" at the end of an encoded line.
const SOFT_BREAK = '=\r\n';

/**
 * A composed copy of a send as the template of its later copies, when they differ from it only in their
 * own tokens (their Message-ID's key, their link key, pixel and unsubscribe tokens: of the same lengths,
 * of characters that every transfer encoding leaves as they are). Knowing where each token's characters
 * are in the copy's bytes (across quoted-printable soft line breaks), a later copy is the same bytes with
 * its own tokens written there: its edits are made without composing it. Whether a send's copies are so
 * made is checked by the caller against one copy composed whole (see composeCopies).
 */
export class CopyTemplate {
  private constructor(
    private readonly raw: Buffer,
    private readonly lengths: number[],
    private readonly places: Place[],
  ) {}

  /**
   * The template of `raw` for these tokens, or undefined when one of them is not found in it, or is not of
   * characters that are stored as they are (the tokens are [A-Za-z0-9_-] only).
   */
  static of(raw: Buffer, tokens: readonly string[]): CopyTemplate | undefined {
    if (tokens.some((t) => !/^[A-Za-z0-9_-]+$/.test(t))) return undefined;
    const { view, breaks } = withoutSoftBreaks(raw);
    const places: Place[] = [];
    for (const [token, value] of tokens.entries()) {
      let found = 0;
      for (let at = view.indexOf(value); at !== -1; at = view.indexOf(value, at + value.length)) {
        found++;
        placesOf(token, at, value.length, breaks, places);
      }
      if (found === 0) return undefined;
    }
    places.sort((a, b) => a.offset - b.offset);
    return new CopyTemplate(
      raw,
      tokens.map((t) => t.length),
      places,
    );
  }

  /** The edits (see byte-patch.ts) that make the copy whose tokens are `values` (in the order given to `of`). */
  patchFor(values: readonly string[]): Buffer {
    return encodeEdits(this.edits(values));
  }

  /** The copy whose tokens are `values`, whole. */
  render(values: readonly string[]): Buffer {
    const out = Buffer.from(this.raw);
    for (const e of this.edits(values)) e.inserted.copy(out, e.offset);
    return out;
  }

  private edits(values: readonly string[]): Edit[] {
    if (values.length !== this.lengths.length || values.some((v, i) => v.length !== this.lengths[i] || !/^[A-Za-z0-9_-]+$/.test(v))) {
      throw new Error('a copy made from a template needs tokens of the same lengths and characters');
    }
    // The same piece of a token recurs at every place it is whole: one buffer for it.
    const pieces = new Map<string, Buffer>();
    return this.places.map((p) => {
      const key = `${p.token}:${p.from}:${p.length}`;
      let inserted = pieces.get(key);
      if (inserted === undefined) {
        inserted = Buffer.from(values[p.token]!.slice(p.from, p.from + p.length), 'latin1');
        pieces.set(key, inserted);
      }
      return { offset: p.offset, deleted: p.length, inserted };
    });
  }
}

/** The bytes as latin1 text without quoted-printable soft line breaks, and where those were (in that text). */
function withoutSoftBreaks(raw: Buffer): { view: string; breaks: number[] } {
  const lines = raw.toString('latin1').split(SOFT_BREAK);
  const breaks: number[] = [];
  let at = 0;
  for (let i = 0; i < lines.length - 1; i++) {
    at += lines[i]!.length;
    breaks.push(at);
  }
  return { view: lines.join(''), breaks };
}

/** The places in the bytes of a token found at `at` in the text without soft breaks: one per stretch between them. */
function placesOf(token: number, at: number, length: number, breaks: number[], out: Place[]): void {
  // The soft breaks before the token, then those within it.
  let lo = 0;
  let hi = breaks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (breaks[mid]! <= at) lo = mid + 1;
    else hi = mid;
  }
  let b = lo;
  let from = 0;
  while (from < length) {
    const next = b < breaks.length && breaks[b]! < at + length ? breaks[b]! - at : length;
    if (next > from) out.push({ token, from, length: next - from, offset: at + from + b * SOFT_BREAK.length });
    from = next;
    b++;
  }
}
