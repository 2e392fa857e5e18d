import { EMAIL_STATUSES, type EmailStatus } from '../schemas/email';

/**
 * The Messages search box's little language, parsed (pure: the store turns it into an FTS5 query, the
 * UI uses it to tell whether a live message matches what is shown):
 *
 *   word             a word anywhere (subject, sender, recipient, text and HTML body, header lines); a prefix
 *   "two words"      that phrase, exactly (word for word)
 *   from:ann         the sender's address or name      to:bob   the recipient's (this copy's) address or name
 *   subject:welcome  the subject                       from:"Ann Lee" an operator takes a quoted phrase too
 *   is:bounced       that status (any of EMAIL_STATUSES; several is: give any of them)
 *   campaign:spring  a campaign id starting with "spring" (a trailing * is allowed)
 *
 * Operators and statuses are case-insensitive. Anything else (an unknown operator, `is:` with an
 * unknown status, an unclosed quote) is searched as text: no input is an error.
 */
export type SearchField = 'any' | 'from' | 'to' | 'subject';

export interface SearchClause {
  field: SearchField;
  /** The words to find, as typed (the store's tokenizer splits them). */
  text: string;
  /** A quoted phrase (matched exactly); otherwise its last word may be a prefix. */
  phrase: boolean;
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

export function parseMessageQuery(input: string): ParsedQuery {
  const parsed: ParsedQuery = { clauses: [], statuses: [], campaign: null };
  for (const t of tokens(input)) {
    if (t.quoted) {
      const field = FIELDS[t.prefix.toLowerCase()];
      if (t.prefix && !field) parsed.clauses.push({ field: 'any', text: `${t.prefix} ${t.raw}`, phrase: true });
      else parsed.clauses.push({ field: field ?? 'any', text: t.raw, phrase: true });
      continue;
    }
    const colon = t.raw.indexOf(':');
    const name = colon > 0 ? t.raw.slice(0, colon).toLowerCase() : '';
    const value = colon > 0 ? t.raw.slice(colon + 1) : '';
    if (name && value) {
      if (FIELDS[name]) {
        parsed.clauses.push({ field: FIELDS[name], text: value, phrase: false });
        continue;
      }
      if (name === 'is' && STATUS_SET.has(value.toLowerCase())) {
        const status = value.toLowerCase() as EmailStatus;
        if (!parsed.statuses.includes(status)) parsed.statuses.push(status);
        continue;
      }
      if (name === 'campaign') {
        parsed.campaign = value.replace(/\*+$/, '');
        continue;
      }
    }
    parsed.clauses.push({ field: 'any', text: t.raw, phrase: false });
  }
  return parsed;
}

/** The words of a text as SQLite's unicode61 tokenizer sees them (letters, digits), lower-cased. */
export function searchWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu) ?? [];
}

/** The FTS5 columns of the message search index. */
export const SEARCH_COLUMNS = { from: 'sender', to: 'recipient', subject: 'subject' } as const;

/**
 * The FTS5 MATCH expression of the clauses (all must hold), or null when none has a word to look
 * for. Only words reach FTS5, each inside double quotes: no input is FTS5 syntax.
 */
export function toFtsMatch(clauses: SearchClause[]): string | null {
  const parts: string[] = [];
  for (const c of clauses) {
    const words = searchWords(c.text);
    if (words.length === 0) continue;
    const phrase = `"${words.join(' ')}"${c.phrase ? '' : '*'}`;
    parts.push(c.field === 'any' ? phrase : `{${SEARCH_COLUMNS[c.field]}} : ${phrase}`);
  }
  return parts.length ? parts.join(' AND ') : null;
}

/** A clause's words appear, in order, as (prefixes of, for the last) words of `text`: the UI's live check. */
export function clauseMatchesText(c: SearchClause, text: string): boolean {
  const want = searchWords(c.text);
  if (want.length === 0) return true;
  const have = searchWords(text);
  for (let i = 0; i + want.length <= have.length; i++) {
    if (want.every((w, j) => (j === want.length - 1 && !c.phrase ? have[i + j]!.startsWith(w) : have[i + j] === w))) return true;
  }
  return false;
}
