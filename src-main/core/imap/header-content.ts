import { readHeaders, readMessageFacts } from '../mail/parse-message';
import type { MailContent } from '../mail/parsed-mail';

/** What a post carries of a message whose body is not read: its header block's facts. */
export interface HeaderContent extends MailContent {
  messageId: string;
  /** The `Date` header as ISO 8601, null when missing or not a date. */
  date: string | null;
}

/**
 * The content of a message read from its header block alone, never failing: for a message mailparser
 * refuses (too many MIME parts, a header line over its limit, ...) and for one over the size limit
 * (only its header block is fetched). Text, HTML and attachments are empty; header names are lower-case.
 */
export function headerContent(raw: Buffer): HeaderContent {
  const facts = readMessageFacts(raw);
  const headers = Object.fromEntries(readHeaders(raw));
  const date = headers.date === undefined ? Number.NaN : Date.parse(headers.date);
  return {
    from: facts.from ?? { email: '', name: '' },
    to: facts.to,
    cc: facts.cc,
    subject: facts.subject,
    text: '',
    html: '',
    headers,
    attachments: [],
    messageId: facts.messageId ?? '',
    date: Number.isNaN(date) ? null : new Date(date).toISOString(),
  };
}
