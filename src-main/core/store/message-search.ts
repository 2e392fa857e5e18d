import { idQuery, type ParsedQuery, parseMessageQuery } from '../../../src-shared/search/message-query';
import { patchedLength } from './byte-patch';
import type { Db } from './database';
import { ATTACHMENT_MATCH, clauseMatch, toAddressMatch, toFtsMatch } from './fts-match';

/**
 * The Messages search as SQL terms over `messages`: the search box's query (src-shared/search/
 * message-query.ts) looked up in the word index (message_search, migration 0018) and the address
 * index (message_addresses, 0019), and the list's filters. MessagesRepo runs them.
 *
 * Every lookup is one FTS5 query whose rowids SQLite gathers once (`rowid IN` / `rowid NOT IN` a
 * subquery that does not depend on the row): a negated term costs the entries of its own words, never a
 * read of every body.
 */

/** `%` and `_` of a user's substring are literal in LIKE. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A copy's size in bytes (its raw message's, as the detail and the Mailpit API's Size answer): its
 * `size` column, filled when it is stored or, for a send stored as its recipe, when that is composed;
 * otherwise (a recipe not read yet, or a copy stored before the column, migration 0033) its send's
 * stored content's length (SQLite reads a blob's length without reading the blob) or its recipe's
 * composed length, changed by the copy's own edits.
 */
const COPY_SIZE =
  'COALESCE(messages.size, mailyard_copy_size(messages.content_id, (SELECT length(raw) FROM message_contents c WHERE c.content_id = messages.content_id), (SELECT recipe FROM message_contents c WHERE c.content_id = messages.content_id), messages.patch))';

/** Composed lengths of recipes a size search measured, by content id (a search runs again as the user types). */
const RECIPE_SIZES_KEPT = 50_000;

/**
 * Defines the SQL function the search's size terms call (COPY_SIZE), on a connection that runs them.
 * `composedLength` measures a recipe by composing it (the function cannot write the bytes back: a
 * connection runs no other statement while one runs).
 */
export function defineSearchFunctions(db: Db, composedLength: (recipe: Buffer) => number | null): void {
  const recipeSizes = new Map<string, number | null>();
  const baseSize = (contentId: unknown, rawLength: unknown, recipe: unknown): number | null => {
    if (!Buffer.isBuffer(recipe)) return typeof rawLength === 'number' ? rawLength : null;
    const id = String(contentId);
    let size = recipeSizes.get(id);
    if (size === undefined) {
      if (recipeSizes.size >= RECIPE_SIZES_KEPT) recipeSizes.clear();
      size = composedLength(recipe);
      recipeSizes.set(id, size);
    }
    return size;
  };
  db.function('mailyard_copy_size', { deterministic: true }, (contentId: unknown, rawLength: unknown, recipe: unknown, patch: unknown) => {
    const base = baseSize(contentId, rawLength, recipe);
    return base === null ? null : Buffer.isBuffer(patch) ? patchedLength(base, patch) : base;
  });
}

/** The UI's search of captured messages: the search box's query (see message-query.ts) and filters. */
export interface MessageSearch {
  q?: string;
  status?: string;
  /** A prefix of the campaign id (case-insensitive). */
  campaignId?: string;
  accountId?: string;
  /** A send's ref_id, exactly (a wait's filter: the copies' own column, never the search index). */
  refId?: string;
  /** A recipient's address as stored lower-cased (recipient_lc; a wait's filter, as refId). */
  recipientLc?: string;
  /**
   * Only these copies (by rowid): a tag rule judging the copies just indexed. The index lookups are
   * bounded to their rowids' range, so the cost follows these copies, not the store.
   */
  rowids?: readonly number[];
}

export interface SearchTerms {
  where: string[];
  params: Record<string, unknown>;
  /** When one index lookup is the whole search: its query of rowids (a count needs no copy then). */
  indexOnly: string | null;
}

const LOOKUP = {
  words: 'SELECT rowid FROM message_search WHERE message_search MATCH',
  addresses: 'SELECT rowid FROM message_addresses WHERE message_addresses MATCH',
};

/** The number a copy's row names its account by, from the account's id in the named parameter. */
export const accountNumberOf = (param: string): string => `(SELECT number FROM accounts WHERE id = @${param})`;

/** The terms of the query's negations, filters and dates (the words that must hold are the caller's). */
function queryFilters(
  parsed: ParsedQuery,
  where: string[],
  params: Record<string, unknown>,
  campaignPrefix: (param: string, prefix: string, not?: boolean) => void,
  within: string,
) {
  parsed.clauses.forEach((c, i) => {
    const m = c.negated ? clauseMatch(c) : null;
    if (m === null) {
      // A cc:/bcc: clause is this copy's recipient, as that kind of recipient.
      if (!c.negated && (c.field === 'cc' || c.field === 'bcc')) where.push(`recipient_type = '${c.field}'`);
      return;
    }
    params[`not${i}`] = m.match;
    const lookup = `rowid IN (${LOOKUP[m.index]} @not${i}${within})`;
    where.push(c.field === 'cc' || c.field === 'bcc' ? `NOT (recipient_type = '${c.field}' AND ${lookup})` : `NOT ${lookup}`);
  });
  if (parsed.attachment === false) {
    where.push(`NOT rowid IN (${LOOKUP.words} @notAttachment${within})`);
    params.notAttachment = ATTACHMENT_MATCH;
  }
  if (parsed.statuses.length > 0) {
    where.push(`status IN (${parsed.statuses.map((_, i) => `@isStatus${i}`).join(', ')})`);
    for (const [i, st] of parsed.statuses.entries()) params[`isStatus${i}`] = st;
  }
  if (parsed.notStatuses.length > 0) {
    where.push(`status NOT IN (${parsed.notStatuses.map((_, i) => `@notStatus${i}`).join(', ')})`);
    for (const [i, st] of parsed.notStatuses.entries()) params[`notStatus${i}`] = st;
  }
  if (parsed.read !== null) where.push(`read = ${parsed.read ? 1 : 0}`);
  const taggedWith = (param: string) => `id IN (SELECT message_id FROM message_tags WHERE tag = @${param} COLLATE NOCASE)`;
  parsed.tags.forEach((tag, i) => {
    where.push(taggedWith(`tag${i}`));
    params[`tag${i}`] = tag;
  });
  parsed.notTags.forEach((tag, i) => {
    where.push(`NOT ${taggedWith(`notTag${i}`)}`);
    params[`notTag${i}`] = tag;
  });
  if (parsed.tagged !== null) where.push(`${parsed.tagged ? '' : 'NOT '}id IN (SELECT message_id FROM message_tags)`);
  if (parsed.campaign) campaignPrefix('qCampaign', parsed.campaign);
  for (const [i, p] of parsed.notCampaigns.entries()) campaignPrefix(`notCampaign${i}`, p, true);
  if (parsed.before !== null) {
    where.push('created_ms < @createdBefore');
    params.createdBefore = parsed.before;
  }
  if (parsed.after !== null) {
    where.push('created_ms >= @createdAfter');
    params.createdAfter = parsed.after;
  }
  if (parsed.larger !== null) {
    where.push(`${COPY_SIZE} > @largerThan`);
    params.largerThan = parsed.larger;
  }
  if (parsed.smaller !== null) {
    where.push(`${COPY_SIZE} < @smallerThan`);
    params.smallerThan = parsed.smaller;
  }
}

export function searchTerms(filter: MessageSearch): SearchTerms {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  let indexOnly: string | null = null;
  // A campaign id starting (or, `not`, not starting) with `prefix` (the search box's campaign: and the campaign filter).
  const campaignPrefix = (param: string, prefix: string | null | undefined, not = false) => {
    if (!prefix) return;
    where.push(`campaign_id ${not ? 'NOT LIKE' : 'LIKE'} @${param} || '%' ESCAPE '\\'`);
    params[param] = likeLiteral(prefix);
  };
  // The index lookups of a search over a few copies read only their range of rowids.
  let within = '';
  if (filter.rowids !== undefined) {
    where.push('rowid IN (SELECT value FROM json_each(@rowids))');
    params.rowids = JSON.stringify(filter.rowids);
    params.rowidFrom = Math.min(...filter.rowids);
    params.rowidTo = Math.max(...filter.rowids);
    within = ' AND rowid BETWEEN @rowidFrom AND @rowidTo';
  }
  const q = filter.q?.trim() ?? '';
  const id = idQuery(q);
  if (q !== '') {
    const parsed = parseMessageQuery(q);
    const words = [toFtsMatch(parsed.clauses), parsed.attachment === true ? ATTACHMENT_MATCH : null].filter((m) => m !== null);
    const match = words.length ? words.join(' AND ') : null;
    const addressMatch = toAddressMatch(parsed.clauses);
    const lookups: string[] = [];
    if (match !== null) {
      lookups.push(`${LOOKUP.words} @match${within}`);
      params.match = match;
    }
    if (addressMatch !== null) {
      lookups.push(`${LOOKUP.addresses} @addressMatch${within}`);
      params.addressMatch = addressMatch;
    }
    if (lookups.length === 1) indexOnly = lookups[0]!;
    const terms = lookups.map((l) => `rowid IN (${l})`);
    // A clause without a word (only punctuation) finds nothing, unless the query is an id.
    const noWords = parsed.clauses.some((c) => !c.negated) && terms.length === 0;
    const textTerm = terms.length > 0 ? `(${terms.join(' AND ')})` : noWords ? '0' : null;
    if (id !== null) {
      where.push(`(${textTerm ?? '0'} OR ref_id = @refId OR id = @refId)`);
      params.refId = id;
    } else if (textTerm !== null) where.push(textTerm);
    queryFilters(parsed, where, params, campaignPrefix, within);
  }
  if (filter.status !== undefined) {
    // With a recipient or ref_id (a wait), those find the few rows and the status is checked on them:
    // `+` keeps the planner from reading every copy of that status through the status index instead.
    where.push(filter.recipientLc !== undefined || filter.refId !== undefined ? '+status = @status' : 'status = @status');
    params.status = filter.status;
  }
  campaignPrefix('campaignId', filter.campaignId);
  if (filter.accountId !== undefined) {
    where.push(`account_number = ${accountNumberOf('accountId')}`);
    params.accountId = filter.accountId;
  }
  if (filter.refId !== undefined) {
    where.push('ref_id = @exactRefId');
    params.exactRefId = filter.refId;
  }
  if (filter.recipientLc !== undefined) {
    // The email logs' index leads with the account: a wait that names none probes it once per account
    // (there are few), rather than keep an index of its own that every stored copy would pay for.
    if (filter.accountId === undefined) where.push('account_number IN (SELECT number FROM accounts)');
    where.push('recipient_lc = @recipientLc');
    params.recipientLc = filter.recipientLc;
  }
  return { where, params, indexOnly: where.length === 1 && id === null ? indexOnly : null };
}
