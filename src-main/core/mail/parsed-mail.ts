import type { AddressObject, ParsedMail } from 'mailparser';
import { shownFileName } from './file-name';

export interface MailAddress {
  email: string;
  name: string;
}

/** A parsed email as webhooks carry it: inbound posts and IMAP posts alike. */
export interface MailContent {
  from: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  subject: string;
  text: string;
  html: string;
  /** Each header once, by the name it came with; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** File names and Content-IDs are data here, never used as paths. */
  attachments: Array<{ filename: string; content_type: string; size: number; content_id: string; content: string }>;
}

/** The addresses of a parsed address header (groups flattened; entries without an address dropped). */
function addressList(value: AddressObject | AddressObject[] | undefined): MailAddress[] {
  const objects = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return objects.flatMap((o) => o.value.flatMap((a) => (a.address ? [{ email: a.address, name: a.name ?? '' }] : [])));
}

/** What a webhook payload carries of a message parsed by mailparser: addresses, text, HTML, headers, attachments (base64). */
export function mailContentOf(parsed: ParsedMail): MailContent {
  const headers: Record<string, string> = {};
  for (const h of parsed.headerLines) {
    const colon = h.line.indexOf(':');
    const name = h.line.slice(0, colon).trim();
    const value = h.line
      .slice(colon + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return {
    from: addressList(parsed.from)[0] ?? { email: '', name: '' },
    to: addressList(parsed.to),
    cc: addressList(parsed.cc),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : '',
    headers,
    attachments: parsed.attachments.map((a, i) => ({
      filename: shownFileName(a.filename) ?? `attachment-${i + 1}`,
      content_type: a.contentType,
      size: a.size,
      content_id: a.contentId ? a.contentId.replace(/^<|>$/g, '') : '',
      content: a.content.toString('base64'),
    })),
  };
}
