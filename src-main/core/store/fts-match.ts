import { ATTACHMENT_WORD, filenameWords } from '../../../src-shared/search/attachment-words';
import { type SearchClause, searchWords } from '../../../src-shared/search/message-query';
import { REPLY_TO_ADDRESS_MARK, replyToWords } from '../../../src-shared/search/reply-to-words';

/**
 * The FTS5 MATCH expressions of a parsed Messages search, for the store's two indexes: the words of the
 * message search index and the address index. Only the store builds them; the query language itself
 * (what the UI and the store both read) is src-shared/search/message-query.ts.
 */

/** The FTS5 columns of the message search index, and of the address index (message_addresses). */
export const SEARCH_COLUMNS = { from: 'sender', to: 'recipient', cc: 'recipient', bcc: 'recipient', subject: 'subject' } as const;

/** has:attachment in the word index (see attachmentIndexLine). */
export const ATTACHMENT_MATCH = `{headers} : "${ATTACHMENT_WORD}"`;

function ftsAnd(parts: string[]): string | null {
  return parts.length ? parts.join(' AND ') : null;
}

/**
 * One clause's MATCH expression and the index it is looked up in, or null when it has no word to look
 * for. Only words reach FTS5, each inside double quotes: no input is FTS5 syntax.
 */
export function clauseMatch(c: SearchClause): { index: 'words' | 'addresses'; match: string } | null {
  const star = c.prefix ? '*' : '';
  if (c.address !== null) {
    const word = `"${c.address}"${star}`;
    const replyTo = `{other} : "${REPLY_TO_ADDRESS_MARK}${c.address}"${star}`;
    if (c.field === 'reply-to') return { index: 'addresses', match: replyTo };
    if (c.field === 'addressed') return { index: 'addresses', match: `({sender recipient} : ${word} OR ${replyTo})` };
    // (subject: has no address column: its address is looked for among all of them.)
    return { index: 'addresses', match: c.field in SEARCH_COLUMNS && c.field !== 'subject' ? `{${SEARCH_COLUMNS[c.field as 'from']}} : ${word}` : word };
  }
  if (c.field === 'filename') {
    const words = filenameWords(c.text);
    return words.length ? { index: 'words', match: `{headers} : "${words.join(' ')}"${star}` } : null;
  }
  const words = searchWords(c.text);
  if (words.length === 0) return null;
  const replyTo = () => `{headers} : "${replyToWords(c.text).join(' ')}"${star}`;
  if (c.field === 'reply-to') return { index: 'words', match: replyTo() };
  if (c.field === 'addressed') return { index: 'words', match: `({sender recipient} : "${words.join(' ')}"${star} OR ${replyTo()})` };
  if (c.field === 'message-id') return { index: 'words', match: `{headers} : "message id ${words.join(' ')}"${star}` };
  const phrase = `"${words.join(' ')}"${star}`;
  return { index: 'words', match: c.field === 'any' ? phrase : `{${SEARCH_COLUMNS[c.field]}} : ${phrase}` };
}

function positives(clauses: SearchClause[], index: 'words' | 'addresses'): string | null {
  const parts: string[] = [];
  for (const c of clauses) {
    if (c.negated) continue;
    const m = clauseMatch(c);
    if (m && m.index === index) parts.push(m.match);
  }
  return ftsAnd(parts);
}

/**
 * The word index's MATCH expression of the clauses that must hold (all of them), or null when none has
 * a word to look for. Address clauses are left to toAddressMatch, negated ones to clauseMatch.
 */
export function toFtsMatch(clauses: SearchClause[]): string | null {
  return positives(clauses, 'words');
}

/** The address index's MATCH expression of the address clauses that must hold, or null when there is none. */
export function toAddressMatch(clauses: SearchClause[]): string | null {
  return positives(clauses, 'addresses');
}
