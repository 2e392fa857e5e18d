import { attachmentIndexLine } from '../../../../src-shared/search/attachment-words';
import { replyToIndexLine } from '../../../../src-shared/search/reply-to-words';
import { attachmentNames } from '../../mail/attachment-names';
import { bodyStart, headerEnd } from '../../mail/header-end';
import { parseLeniently } from '../../mail/lenient-parse';
import { libmime } from '../../mail/libmime';
import { readTextParts } from '../../mail/text-parts';
import { composeArguments, recipeHeaderBlock } from '../email/compose-later';
import { requestAttachmentNames } from '../email/content-attachments';

/**
 * At most this much of a message's body text is indexed for search. Every recipient's copy has its
 * own row in the index, so the index of a send grows with its recipients: this bound keeps a large
 * send's index to a few KB a recipient (a 1 MB body indexed whole cost about 150 KB a recipient, and
 * half a second of the event loop for 200 recipients).
 */
export const BODY_LIMIT = 8 * 1024;
/** At most this much of a message's start is read for its header lines. */
const HEADER_LIMIT = 64 * 1024;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The words of an HTML part: without its tags, style and script blocks and comments; the common entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(style|script|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : ' ';
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    });
}

/** The text the search indexes for a body: the text part and the HTML part's words, cut at BODY_LIMIT. */
export function bodySearchText(text: string | undefined | null, html: string | undefined | null): string {
  const parts = [text ?? '', html ? htmlToText(html.length > BODY_LIMIT * 2 ? html.slice(0, BODY_LIMIT * 2) : html) : ''];
  const joined = parts.join('\n');
  return joined.length > BODY_LIMIT ? joined.slice(0, BODY_LIMIT) : joined;
}

/** A message's attachments' names as the index's line (see attachmentIndexLine), '' when it has none. */
export function attachmentSearchLine(raw: Buffer): string {
  return attachmentIndexLine(attachmentNames(raw));
}

/** The values of the Reply-To fields of header lines (as headerSearchText gives them), unfolded. */
export function replyToValues(headers: string): string[] {
  return [...headers.matchAll(/^reply-to:(.*(?:\r?\n[ \t].*)*)/gim)].map((m) => m[1]!.replace(/\s+/g, ' ').trim()).filter((v) => v !== '');
}

/**
 * The header lines of a raw message (its header block, encoded words decoded), for the search, a line
 * of its attachments' names (see attachmentIndexLine: plain words, has:attachment and filename: find
 * them) and a line of its Reply-To's words (replyToIndexLine: reply-to: and addressed: find them).
 * Copies of one send share their attachments: the caller may pass the line it found once.
 */
export function headerSearchText(raw: Buffer, attachments = attachmentSearchLine(raw)): string {
  return headerBlockSearchText(raw.subarray(0, headerEnd(raw, 0, Math.min(raw.length, HEADER_LIMIT))).toString('utf8'), attachments);
}

/** What a send stored as its recipe is made of, from the request itself: its text and HTML, its header block (the composer's, made without encoding any body), its attachments' names. */
export function recipeParts(recipe: Uint8Array): { text: string; html: string; headerBlock: string; attachmentNames: string[] } {
  const args = composeArguments(recipe);
  const { options } = args;
  const html = options.html;
  return {
    text: typeof options.text === 'string' ? options.text : '',
    html: typeof html === 'string' ? html : '',
    headerBlock: recipeHeaderBlock(args),
    attachmentNames: requestAttachmentNames(args.body),
  };
}

/**
 * The text the index takes of a send stored as its recipe, from the request itself: what
 * receivedBodySearchText and headerSearchText read from the message it composes.
 */
export function recipeSearchText(recipe: Uint8Array): { body: string; headers: string } {
  const parts = recipeParts(recipe);
  return {
    body: bodySearchText(parts.text, parts.html),
    headers: headerBlockSearchText(parts.headerBlock, attachmentIndexLine(parts.attachmentNames)),
  };
}

export function headerBlockSearchText(block: string, attachments: string): string {
  let headers: string;
  try {
    headers = libmime().decodeWords(block);
  } catch {
    headers = block;
  }
  return [headers, attachments, replyToIndexLine(replyToValues(headers))].filter((l) => l !== '').join('\n');
}

/**
 * Of a received message's body, at most this much is parsed for the index (which keeps BODY_LIMIT of
 * its text): a message's text parts come before its attachments as mail programs compose it, and a
 * 24 MB attachment parsed through whole cost about a second of CPU a message on the accepting path.
 */
export const BODY_PARSE_LIMIT = 1024 * 1024;

/**
 * The body text of a stored message, from its headers and the first BODY_PARSE_LIMIT bytes of its
 * body, never failing. A plain MIME tree is read directly (readTextParts: attachments skipped unread);
 * anything else is parsed by mailparser, attachments read through and dropped, and a message over its
 * limits is indexed as it is shown (parsed with raised limits, or its raw body as text).
 */
export async function receivedBodySearchText(raw: Buffer): Promise<string> {
  const parts = await receivedBodyParts(raw);
  return bodySearchText(parts.text, parts.html);
}

/** The text and HTML parts of a stored message (each joined), read as receivedBodySearchText reads them; empty when it cannot be read. */
export async function receivedBodyParts(raw: Buffer): Promise<{ text: string; html: string }> {
  const end = bodyStart(raw) + BODY_PARSE_LIMIT;
  const head = raw.length > end ? raw.subarray(0, end) : raw;
  const parts = readTextParts(head);
  if (parts !== null) return { text: parts.text.join('\n'), html: parts.html.join('\n') };
  try {
    const parsed = await parseLeniently(head, { skipHtmlToText: true });
    return { text: parsed.text ?? '', html: parsed.html ?? '' };
  } catch {
    return { text: '', html: '' };
  }
}
