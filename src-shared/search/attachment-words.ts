import { searchWords } from './query-text';

/**
 * How attachments are held in the message search index: a line appended to a copy's header lines,
 * `X-Mailyard-Attachment: <names> mlyatt mlyfn<word>...`. The names' own words make a plain word find an
 * attachment's name; ATTACHMENT_WORD (once) answers has:attachment; each word of a name, glued to
 * FILENAME_MARK, answers filename: (a word of nothing else: `filename:invoice` is not a body's "invoice").
 * Unusual word starts, so a word a person types is never one of them.
 */
export const ATTACHMENT_WORD = 'mlyatt';
export const FILENAME_MARK = 'mlyfn';

/** The index's line for a copy's attachment names ('' when it has none). */
export function attachmentIndexLine(names: string[]): string {
  if (names.length === 0) return '';
  const marked = names.map((n) =>
    searchWords(n)
      .map((w) => FILENAME_MARK + w)
      .join(' '),
  );
  return `X-Mailyard-Attachment: ${names.join(' ')} ${ATTACHMENT_WORD} ${marked.join(' ')}`;
}

/** The words a filename: clause is looked up by (each glued to FILENAME_MARK). */
export function filenameWords(text: string): string[] {
  return searchWords(text).map((w) => FILENAME_MARK + w);
}
