import { remoteContent, remoteContentSources } from '../../../../src-shared/remote-content';
import type { ReleaseResult } from '../../../../src-shared/schemas/messages';
import type { ChecksService } from '../../services/checks/checks.service';
import type { MessagesService } from '../../services/email/messages.service';
import { download } from '../download';
import type { LongPoll } from '../long-poll';
import type { ControlHandlers, FileRouteHandlers } from '../operation-route';
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

export interface MessagesDeps {
  messages: MessagesService;
  /** Sends a captured copy for real through an SMTP mailer (the SMTP relay). */
  relay: { release(messageId: string, mailerId: string, to: string[] | undefined): Promise<ReleaseResult> };
  /** The Checks tab: links, HTML compatibility, SpamAssassin. */
  checks: ChecksService;
  longPoll: LongPoll;
}

/** Captured messages: list, wait, count, detail, delete, release, and the Checks tab. */
export function messageHandlers({ messages, relay, checks, longPoll }: MessagesDeps) {
  return {
    listMessages: async ({ query }) => ok('Messages retrieved successfully', await messages.list(query)),
    releaseMessage: async ({ params, body }) => {
      const result = await relay.release(params.id, body.mailer_id, body.to);
      const message = result.ok
        ? `Released to ${result.accepted.join(', ')}${result.rejected.length > 0 ? `; refused for ${result.rejected.join(', ')}` : ''}`
        : `The SMTP server did not take the message: ${result.smtp_response}`;
      return ok(message, result);
    },
    waitForMessages: async ({ query, request }) => {
      const { wait_ms, limit, ...filter } = query;
      const answer = await longPoll(request, wait_ms, () => messages.matching(filter, limit));
      return ok(answer.timed_out ? 'No message matched' : 'Messages matched', {
        messages: answer.found,
        timed_out: answer.timed_out,
        waited_ms: answer.waited_ms,
      });
    },
    countMessages: async ({ query }) => ok('Messages counted', await messages.count(query)),
    getMessage: async ({ params }) => ok('Message retrieved successfully', await messages.detail(params.id)),
    setMessageRead: ({ params, body }) => ok(body.read ? 'Message marked read' : 'Message marked unread', messages.setRead(params.id, body.read)),
    setMessageTags: ({ params, body }) => ok('Message tags set', messages.setTags(params.id, body.tags)),
    deleteMessage: ({ params }) => {
      messages.delete(params.id);
      return ok('Message deleted', { deleted: 1 });
    },
    deleteMessages: async ({ query }) => ok('Messages deleted', { deleted: await messages.deleteMatching(query) }),
    // The Checks tab: links with their problems and the HTML against email clients (caniemail's data) …
    getMessageChecks: async ({ params }) => ok('Message checked', await checks.checks(params.id)),
    // … and SpamAssassin's score with the rules that fired (spamd starts on first use: this may take a while once).
    getMessageSpamScore: async ({ params }) => ok('Message scored', await checks.spam(params.id)),
  } satisfies Partial<ControlHandlers>;
}

/** A captured message's files: its source, its HTML preview, its attachments. */
export function messageFileHandlers(messages: MessagesService) {
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
  } satisfies Partial<FileRouteHandlers>;
}
