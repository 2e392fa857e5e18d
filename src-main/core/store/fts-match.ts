import { searchWords, type SearchClause } from '../../../src-shared/search/message-query';

/**
 * The FTS5 MATCH expressions of a parsed Messages search, for the store's two indexes: the words of the
 * message search index and the address index. Only the store builds them; the query language itself
 * (what the UI and the store both read) is src-shared/search/message-query.ts.
 */

/** The FTS5 columns of the message search index, and of the address index (message_addresses). */
export const SEARCH_COLUMNS = { from: 'sender', to: 'recipient', subject: 'subject' } as const;

function ftsAnd(parts: string[]): string | null {
  return parts.length ? parts.join(' AND ') : null;
}

/**
 * The FTS5 MATCH expression of the word clauses (all must hold), or null when none has a word to look
 * for. Only words reach FTS5, each inside double quotes: no input is FTS5 syntax. Address clauses are
 * left to toAddressMatch.
 */
export function toFtsMatch(clauses: SearchClause[]): string | null {
  const parts: string[] = [];
  for (const c of clauses) {
    if (c.address !== null) continue;
    const words = searchWords(c.text);
    if (words.length === 0) continue;
    const phrase = `"${words.join(' ')}"${c.prefix ? '*' : ''}`;
    parts.push(c.field === 'any' ? phrase : `{${SEARCH_COLUMNS[c.field]}} : ${phrase}`);
  }
  return ftsAnd(parts);
}

/**
 * The address index's MATCH expression of the address clauses, or null when there is none. Each is one
 * quoted word of letters, digits and ADDRESS_CHARS (a subject: clause has no address column: its
 * address is looked for among all of them).
 */
export function toAddressMatch(clauses: SearchClause[]): string | null {
  const parts: string[] = [];
  for (const c of clauses) {
    if (c.address === null) continue;
    const word = `"${c.address}"${c.prefix ? '*' : ''}`;
    parts.push(c.field === 'from' || c.field === 'to' ? `{${SEARCH_COLUMNS[c.field]}} : ${word}` : word);
  }
  return ftsAnd(parts);
}
