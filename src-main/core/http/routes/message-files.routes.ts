import type { messageCheckOperations, messageFileRoutes } from '../../../../src-shared/operations/control/message-files';
import { remoteContent, remoteContentSources } from '../../../../src-shared/remote-content';
import type { ChecksService } from '../../services/checks/checks.service';
import type { MessagesService } from '../../services/email/messages.service';
import { download } from '../download';
import type { Handlers, RouteHandlers } from '../operation-route';
import { ok } from '../respond';

/**
 * Captured HTML runs nothing: no script source at all, the CSP sandbox, no forms, no base. Nothing
 * remote loads either (images, style sheets, fonts: any of them would tell the sender the message was
 * looked at), as mail clients do, until the user allows it (remoteContentCsp); inline styles and
 * data: fonts and images apply. Framed only by the UI.
 */
export const PREVIEW_CSP = [
  "default-src 'none'",
  'img-src data: cid:',
  "style-src 'unsafe-inline'",
  'font-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
  'sandbox allow-popups allow-popups-to-escape-sandbox',
].join('; ');

/**
 * The preview once the user allowed remote content (`?images=allow`): the images, style sheets and
 * fonts the UI's banner counted (src-shared/remote-content.ts), each allowed by its own URL, and
 * nothing else remote (a poster, an icon, a preload, what a remote sheet asks for); still no script.
 */
export function remoteContentCsp(html: string): string {
  const sources = remoteContentSources(remoteContent(html));
  const more = (list: string[]) => (list.length === 0 ? '' : ` ${list.join(' ')}`);
  return PREVIEW_CSP.replace('img-src data: cid:', `img-src data: cid:${more(sources.images)}`)
    .replace("style-src 'unsafe-inline'", `style-src 'unsafe-inline'${more(sources.css)}`)
    .replace('font-src data:', `font-src data:${more(sources.css)}`);
}

/** A captured message's Checks tab. */
export function messageCheckHandlers(checks: ChecksService): Handlers<typeof messageCheckOperations> {
  return {
    // Links with their problems and the HTML against email clients (caniemail's data) …
    getMessageChecks: async ({ params }) => ok('Message checked', await checks.checks(params.id)),
    // … and SpamAssassin's score with the rules that fired (spamd starts on first use: this may take a while once).
    getMessageSpamScore: async ({ params }) => ok('Message scored', await checks.spam(params.id)),
  };
}

/** A captured message's files: its source, its HTML preview, its attachments. */
export function messageFileHandlers(messages: MessagesService): RouteHandlers<typeof messageFileRoutes> {
  return {
    downloadMessageRaw: ({ params, reply }) => download(reply, `${params.id}.eml`, 'message/rfc822', messages.raw(params.id)),
    previewMessageHtml: async ({ params, query, reply }) => {
      // The preview's HTML: no tracking pixel, tracked links to their own URLs (never an open or a click).
      const html = await messages.previewHtml(params.id);
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', query.images === 'allow' && html !== null ? remoteContentCsp(html) : PREVIEW_CSP)
        .header('x-frame-options', 'SAMEORIGIN')
        .header('referrer-policy', 'no-referrer')
        .send(html ?? '<!doctype html><p style="font-family:sans-serif;color:#666">This message has no HTML part.</p>');
    },
    downloadMessageAttachment: async ({ params, reply }) => {
      const a = await messages.attachment(params.id, params.n);
      return download(reply, a.filename, a.contentType, a.content);
    },
  };
}
