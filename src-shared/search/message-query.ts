import { EMAIL_STATUSES, type EmailStatus } from '../schemas/email';

/**
 * The Messages search box's little language, parsed (pure: the store turns it into an FTS5 query, the
 * UI uses it to tell whether a live message matches what is shown):
 *
 *   word             a word anywhere (subject, sender, recipient, text and HTML body, header lines)
 *   "two words"      that phrase, exactly (word for word)
 *   ann@example.com  that address (a sender, a recipient, or one in the header lines or the body); `@example.com`
 *                    any address at that domain; `ann@` Ann's at any domain. An address is matched whole, as one
 *                    word, not as the words it is made of.
 *   from:ann         the sender's address or name      to:bob   the recipient's (this copy's) address or name
 *   subject:welcome  the subject                       from:"Ann Lee" an operator takes a quoted phrase too
 *   is:bounced       that status (any of EMAIL_STATUSES; several is: give any of them)
 *   campaign:spring  a campaign id starting with "spring" (a trailing * is allowed)
 *
 * The query's last word may be the start of a word (or of an address): it is being typed. The other
 * words are whole words, which keeps a search fast however common they are (SQLite has to gather every
 * word starting with a prefix; a whole word it can skip through).
 *
 * Operators and statuses are case-insensitive. Anything else (an unknown operator, `is:` with an
 * unknown status, an unclosed quote) is searched as text: no input is an error.
 */
export type SearchField = 'any' | 'from' | 'to' | 'subject';

export interface SearchClause {
  field: SearchField;
  /** The words to find, as typed (the store's tokenizer splits them). */
  text: string;
  /** A quoted phrase (matched word for word). */
  phrase: boolean;
  /** Its last word may be a prefix: the query's last clause, unquoted. */
  prefix: boolean;
  /** An address (lower-cased; may be `ann@` or `@example.com`): matched as one word, see addressWords. */
  address: string | null;
}

export interface ParsedQuery {
  clauses: SearchClause[];
  /** `is:` statuses: a message matches when it has any of them. */
  statuses: EmailStatus[];
  /** `campaign:`: the campaign id's prefix (lower-cased comparison), or null. */
  campaign: string | null;
}

const FIELDS: Record<string, SearchField> = { from: 'from', to: 'to', subject: 'subject' };
const STATUS_SET: ReadonlySet<string> = new Set(EMAIL_STATUSES);

/** Splits on whitespace outside double quotes; `name:"a b"` stays one token. An unclosed quote runs to the end. */
function tokens(input: string): { raw: string; quoted: boolean; prefix: string }[] {
  const out: { raw: string; quoted: boolean; prefix: string }[] = [];
  let i = 0;
  while (i < input.length) {
    while (i < input.length && /\s/.test(input[i]!)) i++;
    if (i >= input.length) break;
    let prefix = '';
    const start = i;
    // An operator name directly followed by a quote: `from:"Ann Lee"`.
    const op = /^([A-Za-z]+):"/.exec(input.slice(i));
    if (op) {
      prefix = op[1]!;
      i += op[1]!.length + 1;
    }
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      const text = end === -1 ? input.slice(i + 1) : input.slice(i + 1, end);
      i = end === -1 ? input.length : end + 1;
      out.push({ raw: text, quoted: true, prefix });
      continue;
    }
    i = start;
    while (i < input.length && !/\s/.test(input[i]!)) i++;
    out.push({ raw: input.slice(start, i), quoted: false, prefix: '' });
  }
  return out;
}

function clause(field: SearchField, text: string, phrase: boolean): SearchClause {
  return { field, text, phrase, prefix: false, address: field === 'subject' ? null : addressQuery(text) };
}

/** One token of the query: a clause, or null when it was an `is:` or `campaign:` (recorded in `parsed`). */
function readToken(t: { raw: string; quoted: boolean; prefix: string }, parsed: ParsedQuery): SearchClause | null {
  if (t.quoted) {
    const field = FIELDS[t.prefix.toLowerCase()];
    return t.prefix && !field ? clause('any', `${t.prefix} ${t.raw}`, true) : clause(field ?? 'any', t.raw, true);
  }
  const colon = t.raw.indexOf(':');
  const name = colon > 0 ? t.raw.slice(0, colon).toLowerCase() : '';
  const value = colon > 0 ? t.raw.slice(colon + 1) : '';
  if (name && value) {
    if (FIELDS[name]) return clause(FIELDS[name], value, false);
    if (name === 'is' && STATUS_SET.has(value.toLowerCase())) {
      const status = value.toLowerCase() as EmailStatus;
      if (!parsed.statuses.includes(status)) parsed.statuses.push(status);
      return null;
    }
    if (name === 'campaign') {
      parsed.campaign = value.replace(/\*+$/, '');
      return null;
    }
  }
  return clause('any', t.raw, false);
}

export function parseMessageQuery(input: string): ParsedQuery {
  const parsed: ParsedQuery = { clauses: [], statuses: [], campaign: null };
  let last: SearchClause | null = null;
  for (const t of tokens(input)) {
    last = readToken(t, parsed);
    if (last) parsed.clauses.push(last);
  }
  // The query's last word, unquoted, may be a prefix: it is being typed.
  if (last && !last.phrase) last.prefix = true;
  return parsed;
}

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
export function clauseMatchesText(c: SearchClause, text: string): boolean {
  if (c.address !== null) return addressWords(text).some((w) => (c.prefix ? w.startsWith(c.address!) : w === c.address));
  const want = searchWords(c.text);
  if (want.length === 0) return true;
  const have = searchWords(text);
  for (let i = 0; i + want.length <= have.length; i++) {
    if (want.every((w, j) => (j === want.length - 1 && c.prefix ? have[i + j]!.startsWith(w) : have[i + j] === w))) return true;
  }
  return false;
}
