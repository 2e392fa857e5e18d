import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply } from 'fastify';
import { shownFileName } from '../mail/file-name';

/** Downloads never render on the emulator's origin. */
const DOWNLOAD_CSP = "default-src 'none'; sandbox";

/** A name from a message is data: no path separators, no control or format characters, no leading dots. */
export function safeFilename(name: string): string {
  const cleaned = (shownFileName(name) ?? '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips from a download's file name
    .replace(/[/\\\u0000-\u001f\u007f]/g, '_')
    .replace(/^\.+/, '_')
    .trim();
  return cleaned.slice(0, 200) || 'attachment';
}

/** A file answer that never renders on the emulator's origin, named safely. */
export function download(reply: FastifyReply, filename: string, contentType: string, body: Buffer): FastifyReply {
  return reply
    .type(/^[\w.+-]+\/[\w.+-]+$/.test(contentType) ? contentType : 'application/octet-stream')
    .header('content-disposition', contentDisposition(safeFilename(filename)))
    .header('content-security-policy', DOWNLOAD_CSP)
    .send(body);
}
