import { idQuery, parseMessageQuery } from '../../../src-shared/search/message-query';
import { toAddressMatch, toFtsMatch } from './fts-match';

/**
 * The Messages search as SQL terms over `messages`: the search box's query (src-shared/search/
 * message-query.ts) looked up in the word index (message_search, migration 0018) and the address
 * index (message_addresses, 0019), and the list's filters. MessagesRepo runs them.
 */

/** `%` and `_` of a user's substring are literal in LIKE. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The UI's search of captured messages: the search box's query (see message-query.ts) and filters. */
export interface MessageSearch {
  q?: string;
  status?: string;
  /** A prefix of the campaign id (case-insensitive). */
  campaignId?: string;
  accountId?: string;
}

export interface SearchTerms {
  where: string[];
  params: Record<string, unknown>;
  /** When one index lookup is the whole search: its query of rowids (a count needs no copy then). */
  indexOnly: string | null;
}

export function searchTerms(filter: MessageSearch): SearchTerms {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  let indexOnly: string | null = null;
  // A campaign id starting with `prefix` (the search box's campaign: and the campaign filter).
  const campaignPrefix = (param: string, prefix: string | null | undefined) => {
    if (!prefix) return;
    where.push(`campaign_id LIKE @${param} || '%' ESCAPE '\\'`);
    params[param] = likeLiteral(prefix);
  };
  const q = filter.q?.trim() ?? '';
  const id = idQuery(q);
  if (q !== '') {
    const parsed = parseMessageQuery(q);
    const match = toFtsMatch(parsed.clauses);
    const addressMatch = toAddressMatch(parsed.clauses);
    const lookups: string[] = [];
    if (match !== null) {
      lookups.push('SELECT rowid FROM message_search WHERE message_search MATCH @match');
      params.match = match;
    }
    if (addressMatch !== null) {
      lookups.push('SELECT rowid FROM message_addresses WHERE message_addresses MATCH @addressMatch');
      params.addressMatch = addressMatch;
    }
    if (lookups.length === 1) indexOnly = lookups[0]!;
    const terms = lookups.map((l) => `rowid IN (${l})`);
    // A clause without a word (only punctuation) finds nothing, unless the query is an id.
    const noWords = parsed.clauses.length > 0 && terms.length === 0;
    const textTerm = terms.length > 0 ? `(${terms.join(' AND ')})` : noWords ? '0' : null;
    if (id !== null) {
      where.push(`(${textTerm ?? '0'} OR ref_id = @refId OR id = @refId)`);
      params.refId = id;
    } else if (textTerm !== null) where.push(textTerm);
    if (parsed.statuses.length > 0) {
      where.push(`status IN (${parsed.statuses.map((_, i) => `@isStatus${i}`).join(', ')})`);
      parsed.statuses.forEach((st, i) => (params[`isStatus${i}`] = st));
    }
    campaignPrefix('qCampaign', parsed.campaign);
  }
  if (filter.status !== undefined) {
    where.push('status = @status');
    params.status = filter.status;
  }
  campaignPrefix('campaignId', filter.campaignId);
  if (filter.accountId !== undefined) {
    where.push('account_id = @accountId');
    params.accountId = filter.accountId;
  }
  return { where, params, indexOnly: where.length === 1 && id === null ? indexOnly : null };
}
