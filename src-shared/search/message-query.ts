import { EMAIL_STATUSES, type EmailStatus } from '../schemas/email';
import { addressQuery } from './address-words';
import { queryInstant } from './query-dates';
import { querySize } from './query-size';

export { ADDRESS_CHARS, addressQuery, addressWords } from './address-words';
export { clauseMatchesText, idQuery, searchWords } from './query-text';

/**
 * The Messages search box's little language, parsed (pure: the store turns it into FTS5 lookups, the
 * UI uses it to tell whether a live message matches what is shown, and to say what it did not understand).
 * Mailpit's operators, where they fit a copy of a send:
 *
 *   word             a word anywhere (subject, sender, recipient, text and HTML body, header lines, attachment names)
 *   "two words"      that phrase, exactly (word for word)
 *   ann@example.com  that address (one word: see addressWords); `@example.com` any address at that domain
 *   from:ann         the sender's address or name      to:bob   this copy's recipient's address or name
 *   cc:ann  bcc:ann  this copy's recipient, when it was a Cc (Bcc) recipient of its send
 *   reply-to:ann     an address or name of the Reply-To header
 *   addressed:ann    the sender, this copy's recipient or the Reply-To (Mailpit's To, Cc, Bcc, From or Reply-To)
 *   subject:welcome  the subject                       from:"Ann Lee" an operator takes a quoted phrase too
 *   message-id:abc   the Message-ID header's words     filename:invoice  an attachment's file name (attachment: too)
 *   has:attachment   a message with an attachment (a part that is not inline)
 *   is:bounced       that status (any of EMAIL_STATUSES; several is: give any of them)
 *   is:read is:unread  read or not (Mailpit's read state: set through its API or the Messages screen)
 *   tag:urgent       a copy tagged so (case-insensitive; is:tagged any tag, -is:tagged none)
 *   campaign:spring  a campaign id starting with "spring" (a trailing * is allowed)
 *   larger:10k  smaller:1.5M  the message's size in bytes (as the Mailpit API's Size), more / less than
 *                    that; units k, m, g (KB, MB, GB too: 1024-based), case-insensitive
 *   before:2026-11-24  after:2026-11-24T10:00:00Z   created (on the emulator's clock) before / at or after
 *                    that time; a date is its 00:00, and a time without an offset is UTC
 *   -term  !term     NOT that term (a word, a phrase or any operator: `-is:bounced`, `!has:attachment`)
 *
 * The query's last word, unquoted and not negated, may be the start of a word (or of an address): it is
 * being typed. The other words are whole words, which keeps a search fast however common they are.
 *
 * Operators and statuses are case-insensitive. What is not understood (an unknown operator, `is:` with an
 * unknown status, a date or a size that is not one) is searched as text and named in `warnings`, which the list
 * answers and the UI shows under the box: no input is an error.
 */
export type SearchField = 'any' | 'from' | 'to' | 'cc' | 'bcc' | 'reply-to' | 'addressed' | 'subject' | 'filename' | 'message-id';

export interface SearchClause {
  field: SearchField;
  /** The words to find, as typed (the store's tokenizer splits them). */
  text: string;
  /** A quoted phrase (matched word for word). */
  phrase: boolean;
  /** Its last word may be a prefix: the query's last clause, unquoted, not negated. */
  prefix: boolean;
  /** An address (lower-cased; may be `ann@` or `@example.com`): matched as one word, see addressWords. */
  address: string | null;
  /** `-` or `!` before it: a message matches when this clause does not. */
  negated: boolean;
}

export interface ParsedQuery {
  clauses: SearchClause[];
  /** `is:` statuses: a message matches when it has any of them. */
  statuses: EmailStatus[];
  /** `-is:` statuses: a message matches when it has none of them. */
  notStatuses: EmailStatus[];
  /** `campaign:`: the campaign id's prefix (lower-cased comparison), or null. */
  campaign: string | null;
  /** `-campaign:` prefixes: a message matches when its campaign id starts with none of them. */
  notCampaigns: string[];
  /** `has:attachment` (true), `-has:attachment` (false), or neither (null). */
  attachment: boolean | null;
  /** `is:read` (true), `is:unread` (false), or neither (null); negated, the other. */
  read: boolean | null;
  /** `tag:` names: a message matches when it has every one of them. */
  tags: string[];
  /** `-tag:` names: a message matches when it has none of them. */
  notTags: string[];
  /** `is:tagged` (true), `-is:tagged` (false), or neither (null). */
  tagged: boolean | null;
  /** Created before this instant (ms, the emulator's clock), or null. */
  before: number | null;
  /** Created at or after this instant (ms), or null. */
  after: number | null;
  /** `larger:`: bigger than this many bytes, or null (negated, `smaller:`, as in Mailpit). */
  larger: number | null;
  /** `smaller:`: smaller than this many bytes, or null. */
  smaller: number | null;
  /** What was not understood, in words (each was searched as text). */
  warnings: string[];
}

const FIELDS: Record<string, SearchField> = {
  from: 'from',
  to: 'to',
  cc: 'cc',
  bcc: 'bcc',
  'reply-to': 'reply-to',
  addressed: 'addressed',
  subject: 'subject',
  filename: 'filename',
  attachment: 'filename',
  'message-id': 'message-id',
};
/** Every operator, for the warning about an unknown one. */
export const SEARCH_OPERATORS = [...Object.keys(FIELDS), 'has', 'is', 'tag', 'campaign', 'before', 'after', 'larger', 'smaller'].map((o) => `${o}:`);
/** The filter operators (not fields of a word search). */
const FILTERS: ReadonlySet<string> = new Set(['is', 'tag', 'campaign', 'has', 'before', 'after', 'larger', 'smaller']);
const STATUS_SET: ReadonlySet<string> = new Set(EMAIL_STATUSES);
/** Fields whose text is never an address. */
const WORDS_ONLY: ReadonlySet<SearchField> = new Set(['subject', 'filename', 'message-id']);
const OPERATOR = /^([A-Za-z][A-Za-z-]*):/;

interface Token {
  raw: string;
  quoted: boolean;
  /** The operator name before a quoted value (`from:"Ann Lee"`). */
  prefix: string;
  negated: boolean;
}

/** Splits on whitespace outside double quotes; `-name:"a b"` stays one token. An unclosed quote runs to the end. */
function tokens(input: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < input.length) {
    while (i < input.length && /\s/.test(input[i]!)) i++;
    if (i >= input.length) break;
    const start = i;
    // `-` or `!` negates what follows it directly (alone, it is text).
    const negated = (input[i] === '-' || input[i] === '!') && i + 1 < input.length && !/\s/.test(input[i + 1]!);
    if (negated) i++;
    let prefix = '';
    const op = /^([A-Za-z][A-Za-z-]*):"/.exec(input.slice(i));
    if (op) {
      prefix = op[1]!;
      i += op[1]!.length + 1;
    }
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      const text = end === -1 ? input.slice(i + 1) : input.slice(i + 1, end);
      i = end === -1 ? input.length : end + 1;
      out.push({ raw: text, quoted: true, prefix, negated });
      continue;
    }
    const wordStart = negated ? start + 1 : start;
    i = wordStart;
    while (i < input.length && !/\s/.test(input[i]!)) i++;
    out.push({ raw: input.slice(wordStart, i), quoted: false, prefix: '', negated });
  }
  return out;
}

function clause(field: SearchField, text: string, phrase: boolean, negated: boolean): SearchClause {
  return { field, text, phrase, prefix: false, address: WORDS_ONLY.has(field) ? null : addressQuery(text), negated };
}

const addOnce = <T>(list: T[], item: T) => (list.includes(item) ? undefined : list.push(item));

/** An operator that is not a field: recorded in `parsed`; false when its value is not understood. */
function readFilter(name: string, value: string, negated: boolean, parsed: ParsedQuery): boolean {
  const lower = value.toLowerCase();
  if (name === 'is' && (lower === 'read' || lower === 'unread')) {
    parsed.read = (lower === 'read') !== negated;
  } else if (name === 'is' && lower === 'tagged') {
    parsed.tagged = !negated;
  } else if (name === 'tag') {
    addOnce(negated ? parsed.notTags : parsed.tags, value);
  } else if (name === 'is') {
    if (!STATUS_SET.has(lower)) {
      parsed.warnings.push(`is:${value} is not a status: searched as text (statuses: ${EMAIL_STATUSES.join(', ')}; or read, unread, tagged)`);
      return false;
    }
    addOnce(negated ? parsed.notStatuses : parsed.statuses, lower as EmailStatus);
  } else if (name === 'campaign') {
    const prefix = value.replace(/\*+$/, '');
    if (negated) addOnce(parsed.notCampaigns, prefix);
    else parsed.campaign = prefix;
  } else if (name === 'has') {
    if (lower !== 'attachment' && lower !== 'attachments') {
      parsed.warnings.push(`has:${value} is not known: searched as text (has:attachment is)`);
      return false;
    }
    parsed.attachment = !negated;
  } else if (name === 'larger' || name === 'smaller') {
    const bytes = querySize(value);
    if (bytes === null) {
      parsed.warnings.push(`${name}:${value} is not a size: searched as text (a number of bytes, or with a unit: 500k, 1.5M, 2g)`);
      return false;
    }
    // NOT larger than a size is smaller than it, as in Mailpit (a message of exactly that size is neither).
    const key = (name === 'larger') !== negated ? 'larger' : 'smaller';
    const cur = parsed[key];
    parsed[key] = cur === null ? bytes : key === 'larger' ? Math.max(cur, bytes) : Math.min(cur, bytes);
  } else {
    const at = queryInstant(value);
    if (at === null) {
      parsed.warnings.push(
        `${name}:${value} is not a date: searched as text (a date like 2026-11-24, or a time like 2026-11-24T10:00:00Z; UTC unless an offset is given)`,
      );
      return false;
    }
    // NOT before a time is at or after it, and the other way round.
    const key = (name === 'before') !== negated ? 'before' : 'after';
    const cur = parsed[key];
    parsed[key] = cur === null ? at : key === 'before' ? Math.min(cur, at) : Math.max(cur, at);
  }
  return true;
}

/** One token of the query: a clause, or null when it was a filter (recorded in `parsed`). */
function readToken(t: Token, parsed: ParsedQuery): SearchClause | null {
  if (t.quoted) {
    // A filter's quoted value: a tag or campaign with spaces (`tag:"vip customer"`).
    const filter = t.prefix.toLowerCase();
    if (FILTERS.has(filter)) return t.raw && readFilter(filter, t.raw, t.negated, parsed) ? null : clause('any', t.raw, true, t.negated);
    const field = FIELDS[t.prefix.toLowerCase()];
    if (t.prefix && !field) parsed.warnings.push(`${t.prefix}: is not an operator: searched as text (operators: ${SEARCH_OPERATORS.join(' ')})`);
    return t.prefix && !field ? clause('any', `${t.prefix} ${t.raw}`, true, t.negated) : clause(field ?? 'any', t.raw, true, t.negated);
  }
  const op = OPERATOR.exec(t.raw);
  const name = op ? op[1]!.toLowerCase() : '';
  const value = op ? t.raw.slice(op[0].length) : '';
  if (name && value) {
    if (FIELDS[name]) return clause(FIELDS[name], value, false, t.negated);
    if (FILTERS.has(name)) {
      if (readFilter(name, value, t.negated, parsed)) return null;
    } else if (!value.startsWith('//')) {
      // (`https://...` is a link pasted, not an operator.)
      parsed.warnings.push(`${op![1]}: is not an operator: searched as text (operators: ${SEARCH_OPERATORS.join(' ')})`);
    }
  }
  return clause('any', t.raw, false, t.negated);
}

export function parseMessageQuery(input: string): ParsedQuery {
  const parsed: ParsedQuery = {
    clauses: [],
    statuses: [],
    notStatuses: [],
    campaign: null,
    notCampaigns: [],
    attachment: null,
    read: null,
    tags: [],
    notTags: [],
    tagged: null,
    before: null,
    after: null,
    larger: null,
    smaller: null,
    warnings: [],
  };
  let last: SearchClause | null = null;
  for (const t of tokens(input)) {
    last = readToken(t, parsed);
    if (last) parsed.clauses.push(last);
  }
  // The query's last word, unquoted and not negated, may be a prefix: it is being typed.
  if (last && !last.phrase && !last.negated) last.prefix = true;
  return parsed;
}
