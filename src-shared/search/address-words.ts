/** Addresses as the search's address index holds them (one word each), and as a query names them. */

/** What an address is made of besides letters and digits (the address index's tokenizer keeps these in a word). */
export const ADDRESS_CHARS = '@._%+-';
const LOCAL_CHAR = /[\p{L}\p{N}._%+-]/u;
const DOMAIN_CHAR = /[\p{L}\p{N}.-]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const ADDRESS_QUERY = /^[\p{L}\p{N}._%+-]*@[\p{L}\p{N}.-]*$/u;

/**
 * The words the address index holds for a text: each address in it, lower-cased, and its `@domain`.
 * An address is one word there, so finding `ann@example.com` among a million messages reads Ann's
 * entries only, not every entry of the words `example` and `com`. Linear in the text: each `@` is
 * widened to the address around it (no regular expression that backtracks over a long word).
 */
export function addressWords(text: string): string[] {
  const lower = text.toLowerCase();
  const words: string[] = [];
  for (let at = lower.indexOf('@'); at !== -1; at = lower.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && LOCAL_CHAR.test(lower[start - 1]!)) start--;
    let end = at + 1;
    while (end < lower.length && DOMAIN_CHAR.test(lower[end]!)) end++;
    const local = lower.slice(start, at).replace(/^\.+/, '');
    const domain = lower.slice(at + 1, end).replace(/^[.-]+|[.-]+$/g, '');
    if (!LETTER_OR_DIGIT.test(local) || !LETTER_OR_DIGIT.test(domain)) continue;
    words.push(`${local}@${domain}`, `@${domain}`);
  }
  return words;
}

/**
 * A clause's text as an address to look up (lower-cased), or null when it is not one: an address,
 * whole or begun (`ann@`, `ann@exa`), or a domain after `@`, possibly in the brackets, quotes or
 * punctuation it was pasted with. It has a letter or digit besides its `@`.
 */
export function addressQuery(text: string): string | null {
  const trimmed = text
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}_%+@-]+/u, '')
    .replace(/@?[^\p{L}\p{N}@]*$/u, (tail) => (tail.startsWith('@') ? '@' : ''));
  return ADDRESS_QUERY.test(trimmed) && LETTER_OR_DIGIT.test(trimmed) ? trimmed : null;
}
