import { createHash } from 'node:crypto';
import type { MailpitAddress, MailpitAttachment } from '../../../../src-shared/schemas/mailpit';
import type { MailView, ParsedAttachment } from '../../mail/lenient-parse';

/** How a parsed message's parts and headers read in Mailpit's answers (mailpit.service.ts). */

/**
 * Mailpit's thumbnail of a part it cannot draw: a white 180x120 JPEG. Mailyard draws no thumbnails
 * (that needs an image library), so every part gets this one.
 */
export const BLANK_THUMBNAIL = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCAB4ALQDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAf/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAAAP/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/ALMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD/2Q==',
  'base64',
);

/** A header name as Go's net/textproto writes it (`Message-Id`, `X-Mailer`): Mailpit's headers answer keys so. */
export function canonicalHeaderName(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

export const address = (a: { email: string; name: string }): MailpitAddress => ({ Name: a.name, Address: a.email });

export function headerValues(view: MailView, name: string): string[] {
  const lc = name.toLowerCase();
  return view.headers.filter((h) => h.name.trim().toLowerCase() === lc).map((h) => h.value.replace(/\r?\n[ \t]+/g, ' ').trim());
}

/** Reply-To's addresses (mailparser's view keeps only From, To and Cc as addresses). */
export function replyTo(view: MailView): MailpitAddress[] {
  return headerValues(view, 'reply-to').flatMap((v) =>
    v
      .split(',')
      .map((part) => /^\s*(?:"?([^"<]*?)"?\s*)?<([^>]+)>\s*$/.exec(part) ?? [part, '', part.trim()])
      .filter((m) => m[2]!.includes('@'))
      .map((m) => ({ Name: (m[1] ?? '').trim(), Address: m[2]!.trim() })),
  );
}

/**
 * Mailpit lists a part that carries a file name (a name of format characters only too: it shows as
 * `attachment-N`, as `/emulator` names it) or a Content-ID, or is an attachment by its disposition;
 * inline (or multipart/related) parts under Inline.
 */
export const listed = (a: ParsedAttachment) => a.named || a.contentId !== undefined || a.contentDisposition === 'attachment';
export const isInline = (a: ParsedAttachment) => a.related || a.contentDisposition === 'inline';

/** A listed part's name: its file name as shown, else its Content-ID, else `attachment-N` (a name of format characters only too, as `/emulator` names it). */
export function fileNameOf(a: ParsedAttachment, index: number): string {
  const contentId = a.contentId ? a.contentId.replace(/^<|>$/g, '') : '';
  return a.filename ?? (a.named || !contentId ? `attachment-${index + 1}` : contentId);
}

export function attachmentOf(a: ParsedAttachment, index: number): MailpitAttachment {
  const bytes = a.content ?? Buffer.alloc(0);
  const hex = (algorithm: string) => createHash(algorithm).update(bytes).digest('hex');
  const contentId = a.contentId ? a.contentId.replace(/^<|>$/g, '') : '';
  return {
    PartID: partIdOf(a, index),
    FileName: fileNameOf(a, index),
    ContentType: a.contentType,
    ContentID: contentId,
    Size: a.size,
    Checksums: { MD5: hex('md5'), SHA1: hex('sha1'), SHA256: hex('sha256') },
  };
}

/** The part's place in the MIME tree (Mailpit's PartID); a part mailparser could not place gets `x<index>`. */
export const partIdOf = (a: ParsedAttachment, index: number) => a.partId ?? `x${index}`;

/** `<mailto:a@b>, <https://x>` to its links. */
export function unsubscribeLinks(header: string): string[] {
  return [...header.matchAll(/<([^>]*)>/g)].map((m) => m[1]!.trim()).filter((l) => l !== '');
}
