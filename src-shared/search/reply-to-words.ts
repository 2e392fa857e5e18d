import { addressWords } from './address-words';
import { searchWords } from './query-text';

/**
 * How a copy's Reply-To is held in the search indexes (reply-to: and addressed: read it). The word index
 * gets a line appended to the copy's header lines, `X-Mailyard-Reply-To: mlyrt<word>...`: each word of
 * the header's names and addresses glued to REPLY_TO_MARK, so `reply-to:support` finds the Reply-To's
 * "Support" and not a body's. The address index gets each of its addresses (and `@domain`) glued to
 * REPLY_TO_ADDRESS_MARK, one word each as the other addresses are there. Unusual word starts, as the
 * attachment marks (attachment-words.ts): a word a person types is never one of them.
 */
export const REPLY_TO_MARK = 'mlyrt';
/** Glued to an address word (`mlyrt+ann@example.com`): the address index keeps `+` inside a word. */
export const REPLY_TO_ADDRESS_MARK = 'mlyrt+';

/** The words a reply-to: clause of words is looked up by (each glued to REPLY_TO_MARK). */
export function replyToWords(text: string): string[] {
  return searchWords(text).map((w) => REPLY_TO_MARK + w);
}

/** The word index's line for a copy's Reply-To values ('' when it has none). */
export function replyToIndexLine(values: readonly string[]): string {
  const words = values.flatMap(replyToWords);
  return words.length ? `X-Mailyard-Reply-To: ${words.join(' ')}` : '';
}

/** The address index's words for a copy's Reply-To values. */
export function replyToAddressWords(values: readonly string[]): string[] {
  return values.flatMap((v) => addressWords(v)).map((w) => REPLY_TO_ADDRESS_MARK + w);
}
