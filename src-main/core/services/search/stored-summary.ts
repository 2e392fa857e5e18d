import addressparser from 'nodemailer/lib/addressparser';
import type { MailpitAddress } from '../../../../src-shared/schemas/mailpit';
import { attachmentNames } from '../../mail/attachment-names';
import { headerEnd } from '../../mail/header-end';
import { libmime } from '../../mail/libmime';
import { unfoldedFields } from '../../mail/parse-message';
import { htmlToText, receivedBodyParts } from './search-text';

/**
 * What Mailpit's list shows of a message beyond its copy's columns, derived once (by the search
 * indexer, on the mail thread, from the text it reads anyway) and stored (mailpit_summaries,
 * migration 0038): the list and search then read no message. Its header facts are the copy's own
 * (its To line), its body facts the send's.
 */
export interface StoredSummary {
  MessageID: string;
  From: MailpitAddress | null;
  To: MailpitAddress[];
  Cc: MailpitAddress[];
  ReplyTo: MailpitAddress[];
  Subject: string;
  /** The attachments Mailpit counts (not the inline parts). */
  Attachments: number;
  Snippet: string;
}

/** How long Mailpit's list snippet is, in characters. */
export const SNIPPET_LENGTH = 250;
/** At most this much of a header block is read for the summary's facts. */
const HEADER_LIMIT = 64 * 1024;

/** What the copies of one send share of their summary: its body's facts. */
export type BodyFacts = Pick<StoredSummary, 'Attachments' | 'Snippet'>;

/** The body's facts: the snippet is the text part's words (the HTML's when there is no text part), whitespace collapsed. */
export function bodyFacts(text: string, html: string, attachments: number): BodyFacts {
  const source = text.trim() !== '' ? text : htmlToText(html);
  return { Attachments: attachments, Snippet: source.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_LENGTH) };
}

/**
 * The summary of a copy the indexer gave none (stored before migration 0038), from its bytes: read
 * as the indexer reads them, so both give the same summary.
 */
export async function summaryOfMessage(raw: Buffer): Promise<StoredSummary> {
  const parts = await receivedBodyParts(raw);
  return { ...headerFacts(raw), ...bodyFacts(parts.text, parts.html, attachmentNames(raw).length) };
}

function decoded(value: string): string {
  try {
    return libmime().decodeWords(value);
  } catch {
    return value;
  }
}

/** The unfolded header fields of a block, lower-cased names, every occurrence in order. */
function fields(block: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, value] of unfoldedFields(block)) out.set(name, [...(out.get(name) ?? []), value]);
  return out;
}

function addresses(values: string[] | undefined): MailpitAddress[] {
  return (values ?? []).flatMap((value) => {
    try {
      return addressparser(value, { flatten: true })
        .filter((a) => a.address)
        .map((a) => ({ Name: decoded(a.name ?? ''), Address: a.address }));
    } catch {
      return [];
    }
  });
}

/** The header facts of a message's start (its header block): never failing. */
export function headerFacts(start: Buffer): Pick<StoredSummary, 'MessageID' | 'From' | 'To' | 'Cc' | 'ReplyTo' | 'Subject'> {
  const block = start.subarray(0, headerEnd(start, 0, Math.min(start.length, HEADER_LIMIT))).toString('utf8');
  const f = fields(block);
  return {
    MessageID: (f.get('message-id')?.[0] ?? '').replace(/^<|>$/g, ''),
    From: addresses(f.get('from'))[0] ?? null,
    To: addresses(f.get('to')),
    Cc: addresses(f.get('cc')),
    ReplyTo: addresses(f.get('reply-to')),
    Subject: decoded(f.get('subject')?.[0] ?? ''),
  };
}
