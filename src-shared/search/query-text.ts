import { addressWords } from './address-words';

/** What the live check reads of a clause (a SearchClause of message-query.ts). */
type ClauseText = { text: string; prefix: boolean; address: string | null };

const ID = /^[0-9A-Za-z]{26}$/;

/**
 * The id the whole query may be: a send's ref_id or a copy's id (a ULID, upper-cased), which finds that
 * send's copies or that copy besides what its words find (the UI lists a send's copies by `?q=<ref_id>`).
 */
export function idQuery(q: string): string | null {
  const trimmed = q.trim();
  return ID.test(trimmed) ? trimmed.toUpperCase() : null;
}

/** The words of a text as SQLite's unicode61 tokenizer sees them (letters, digits), lower-cased. */
export function searchWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu) ?? [];
}

/** A clause's words appear, in order, as (prefixes of, for the last) words of `text`: the UI's live check. */
export function clauseMatchesText(c: ClauseText, text: string): boolean {
  if (c.address !== null) return addressWords(text).some((w) => (c.prefix ? w.startsWith(c.address!) : w === c.address));
  const want = searchWords(c.text);
  if (want.length === 0) return true;
  const have = searchWords(text);
  for (let i = 0; i + want.length <= have.length; i++) {
    if (want.every((w, j) => (j === want.length - 1 && c.prefix ? have[i + j]!.startsWith(w) : have[i + j] === w))) return true;
  }
  return false;
}
