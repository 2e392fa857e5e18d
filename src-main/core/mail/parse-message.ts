import addressparser from 'nodemailer/lib/addressparser';
import { MAILPIT_MAX_TAG_LENGTH, MAILPIT_MAX_TAGS } from '../../../src-shared/schemas/mailpit';
import { headerEnd } from './header-end';
import { libmime } from './libmime';
import type { MailAddress } from './parsed-mail';

/** What the sink needs of a message at acceptance: read from its header block only, never failing. */
export interface MessageEnvelopeFacts {
  from: MailAddress | null;
  to: MailAddress[];
  cc: MailAddress[];
  subject: string;
  messageId: string | null;
  /** `X-Mailyard-Campaign-Id`: the campaign of an SMTP send (the API's `campaign_id`). */
  campaignId: string;
  /** `X-Mailyard-Custom-Args`: a JSON object of strings (the API's `custom_args`); ignored when not one. */
  customArgs: Record<string, string>;
  /** `X-Tags` (comma-separated), cleaned as Mailpit cleans them (headerTags): the copies' tags. */
  tags: string[];
  /** Why the header block is not what RFC 5322 asks, if it is not (the message is kept as it came). */
  problems: string[];
}

/** A header block's fields in order, unfolded (continuation lines joined with a space), names lower-cased. */
export function unfoldedFields(block: string): Array<[name: string, value: string]> {
  const out: Array<[string, string]> = [];
  let name: string | null = null;
  let value = '';
  const flush = () => {
    if (name !== null) out.push([name, value.trim()]);
  };
  for (const line of block.split(/\r?\n/)) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && name !== null) {
      value += ` ${line.trim()}`;
      continue;
    }
    flush();
    const colon = line.indexOf(':');
    name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : null;
    value = colon > 0 ? line.slice(colon + 1) : '';
  }
  flush();
  return out;
}

/** The unfolded header fields, lower-cased names; the first occurrence of each wins. */
export function readHeaders(raw: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  // The whole message is scanned, however long its header fields are (a `To:` of hundreds of KB must
  // not hide the `Subject:` after it): the message itself is bounded by the sink's size limit.
  for (const [name, value] of unfoldedFields(raw.subarray(0, headerEnd(raw)).toString('utf8'))) if (!headers.has(name)) headers.set(name, value);
  return headers;
}

/** Encoded words (RFC 2047) decoded; text that is not valid encoding is kept as it is. */
function decodeText(value: string): string {
  try {
    return libmime().decodeWords(value);
  } catch {
    return value;
  }
}

function addresses(value: string | undefined): MailAddress[] {
  if (!value) return [];
  try {
    return addressparser(value, { flatten: true })
      .filter((a) => a.address)
      .map((a) => ({ email: a.address, name: decodeText(a.name ?? '') }));
  } catch {
    return [];
  }
}

function customArgsOf(value: string | undefined, problems: string[]): Record<string, string> {
  if (!value) return {};
  try {
    const parsed: unknown = JSON.parse(decodeText(value));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.values(parsed).every((v) => typeof v === 'string')) {
      return parsed as Record<string, string>;
    }
  } catch {
    // reported below
  }
  problems.push('X-Mailyard-Custom-Args is not a JSON object of strings; ignored');
  return {};
}

/**
 * The tags an `X-Tags` header gives, as Mailpit reads it: split at commas, each tag's characters other
 * than letters, digits, `-`, `_`, `.`, `@` and spaces made spaces, spaces collapsed, cut at
 * MAILPIT_MAX_TAG_LENGTH; empty ones dropped, the first spelling of a name kept, at most MAILPIT_MAX_TAGS.
 */
export function headerTags(value: string): string[] {
  const tags = new Map<string, string>();
  for (const part of value.split(',')) {
    const tag = part
      .replace(/[^a-zA-Z0-9\- _.@]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, MAILPIT_MAX_TAG_LENGTH);
    if (tag !== '' && !tags.has(tag.toLowerCase())) tags.set(tag.toLowerCase(), tag);
  }
  return [...tags.values()].slice(0, MAILPIT_MAX_TAGS);
}

/**
 * The facts of a message the sink records at once (sender, recipients by header, subject, campaign),
 * from its header block alone: the body is not parsed on the way in. Never throws: a message that
 * breaks the rules yields what can be read, and its problems.
 */
export function readMessageFacts(raw: Buffer): MessageEnvelopeFacts {
  const headers = readHeaders(raw);
  const problems: string[] = [];
  if (headers.size === 0) problems.push('the message has no header fields');
  const from = addresses(headers.get('from'))[0] ?? null;
  if (!from) problems.push('the message has no valid From header');
  const messageId = headers.get('message-id')?.trim() || null;
  return {
    from,
    to: addresses(headers.get('to')),
    cc: addresses(headers.get('cc')),
    subject: decodeText(headers.get('subject') ?? ''),
    messageId,
    campaignId: decodeText(headers.get('x-mailyard-campaign-id') ?? '').slice(0, 256),
    customArgs: customArgsOf(headers.get('x-mailyard-custom-args'), problems),
    tags: headerTags(decodeText(headers.get('x-tags') ?? '')),
    problems,
  };
}
