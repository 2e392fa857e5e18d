import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { controlOperations as ops } from '../../../../src-shared/operations';
import { MessageIdParams, type ReleaseMessageBody, type ReleaseResult } from '../../../../src-shared/schemas/messages';
import { shownFileName } from '../../mail/file-name';
import type { ChecksService } from '../../services/checks/checks.service';
import type { MessagesService } from '../../services/email/messages.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';
import { parseInput } from '../validation';

/**
 * Captured HTML runs nothing: no script source at all, the CSP sandbox, no forms, no base. Nothing
 * remote loads either (images, style sheets, fonts: any of them would tell the sender the message was
 * looked at), as mail clients do, until the user allows it (REMOTE_CONTENT_CSP); inline styles and
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

/** The preview once the user allowed remote content (`?images=allow`): images, style sheets and fonts from http and https too; still no script. */
export const REMOTE_CONTENT_CSP = PREVIEW_CSP.replace('img-src data: cid:', 'img-src data: cid: http: https:')
  .replace("style-src 'unsafe-inline'", "style-src 'unsafe-inline' http: https:")
  .replace('font-src data:', 'font-src data: http: https:');

const PreviewQuery = z.object({ images: z.enum(['allow', 'block']).default('block') });

/** Downloads never render on the emulator's origin. */
const DOWNLOAD_CSP = "default-src 'none'; sandbox";

/** A name from a message is data: no path separators, no control or format characters, no leading dots. */
export function safeFilename(name: string): string {
  const cleaned = (shownFileName(name) ?? '').replace(/[/\\\u0000-\u001f\u007f]/g, '_').replace(/^\.+/, '_').trim();
  return cleaned.slice(0, 200) || 'attachment';
}

const AttachmentParams = MessageIdParams.extend({
  n: z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), z.number({ error: 'must be an attachment index' }).int().min(0)),
});

/** A file answer that never renders on the emulator's origin, named safely. */
export function download(reply: FastifyReply, filename: string, contentType: string, body: Buffer): FastifyReply {
  return reply
    .type(/^[\w.+-]+\/[\w.+-]+$/.test(contentType) ? contentType : 'application/octet-stream')
    .header('content-disposition', contentDisposition(safeFilename(filename)))
    .header('content-security-policy', DOWNLOAD_CSP)
    .send(body);
}

/** How often a long poll looks again while it waits (an indexed query each time). */
const LONG_POLL_EVERY_MS = 20;

/**
 * Answers what `find` finds now, or waits (up to waitMs) until it finds something, looking again every
 * LONG_POLL_EVERY_MS. Stops early when the client goes away or the listener closes (then answers what
 * there is: nothing, timed out). The cost of a look is the cost of `find`, not of the store's size.
 */
export async function longPoll<T>(
  app: FastifyInstance,
  request: FastifyRequest,
  waitMs: number,
  find: () => T[] | Promise<T[]>,
): Promise<{ found: T[]; timed_out: boolean; waited_ms: number }> {
  const started = Date.now();
  let found = await find();
  if (found.length > 0 || waitMs === 0) return { found, timed_out: found.length === 0, waited_ms: 0 };
  let gone = false;
  const onGone = () => (gone = true);
  const socket = request.raw.socket;
  socket.once('close', onGone);
  const closing = closingOf(app);
  try {
    while (found.length === 0 && !gone && !closing.closing && Date.now() - started < waitMs) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(LONG_POLL_EVERY_MS, waitMs - (Date.now() - started))));
      found = await find();
    }
  } finally {
    socket.off('close', onGone);
  }
  return { found, timed_out: found.length === 0, waited_ms: Date.now() - started };
}

/** Where an instance keeps whether its listener is closing (on the instance: no state shared between emulators). */
const CLOSING = Symbol('mailyard.closing');

/** Whether the listener is closing: long polls answer at once then, so close() is never held by a wait. */
export function closingOf(app: FastifyInstance): { closing: boolean } {
  const holder = app as FastifyInstance & { [CLOSING]?: { closing: boolean } };
  const existing = holder[CLOSING];
  if (existing) return existing;
  const flag = { closing: false };
  holder[CLOSING] = flag;
  app.addHook('preClose', (done) => {
    flag.closing = true;
    done();
  });
  // What is answered while closing closes its connection: an idle keep-alive socket would hold close() until it times out.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (flag.closing) reply.header('connection', 'close');
    done(null, payload);
  });
  return flag;
}

export function messagesRoutes(
  app: FastifyInstance,
  deps: {
    messages: MessagesService;
    /** Sends a captured copy for real through an SMTP mailer (the SMTP relay). */
    relay: { release(messageId: string, mailerId: string, to: string[] | undefined): Promise<ReleaseResult> };
    /** The Checks tab: links, HTML compatibility, SpamAssassin. */
    checks: ChecksService;
  },
): void {
  const { messages, relay, checks } = deps;
  registerOperation(app, ops.listMessages, async ({ query }) => ok('Messages retrieved successfully', await messages.list(query)));
  registerOperation(app, ops.releaseMessage, async ({ params, body }) => {
    const result = await relay.release(params.id, body.mailer_id, body.to);
    const message = result.ok
      ? `Released to ${result.accepted.join(', ')}${result.rejected.length > 0 ? `; refused for ${result.rejected.join(', ')}` : ''}`
      : `The SMTP server did not take the message: ${result.smtp_response}`;
    return ok(message, result);
  });
  closingOf(app);
  registerOperation(app, ops.waitForMessages, async ({ query, request }) => {
    const { wait_ms, limit, ...filter } = query;
    const answer = await longPoll(app, request, wait_ms, () => messages.matching(filter, limit));
    return ok(answer.timed_out ? 'No message matched' : 'Messages matched', { messages: answer.found, timed_out: answer.timed_out, waited_ms: answer.waited_ms });
  });
  registerOperation(app, ops.countMessages, async ({ query }) => ok('Messages counted', await messages.count(query)));
  registerOperation(app, ops.getMessage, async ({ params }) => ok('Message retrieved successfully', await messages.detail(params.id)));
  registerOperation(app, ops.deleteMessage, ({ params }) => {
    messages.delete(params.id);
    return ok('Message deleted', { deleted: 1 });
  });
  registerOperation(app, ops.deleteMessages, async ({ query }) => ok('Messages deleted', { deleted: await messages.deleteMatching(query) }));

  app.get('/emulator/messages/:id/raw', (request, reply) => {
    const { id } = parseInput(MessageIdParams, request.params, 'params');
    return download(reply, `${id}.eml`, 'message/rfc822', messages.raw(id));
  });

  app.get('/emulator/messages/:id/html', async (request, reply) => {
    const { id } = parseInput(MessageIdParams, request.params, 'params');
    const { images } = parseInput(PreviewQuery, request.query, 'query');
    // The preview's HTML: no tracking pixel, tracked links to their own URLs (never an open or a click).
    const html = await messages.previewHtml(id);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', images === 'allow' ? REMOTE_CONTENT_CSP : PREVIEW_CSP)
      .header('x-frame-options', 'SAMEORIGIN')
      .header('referrer-policy', 'no-referrer')
      .send(html ?? '<!doctype html><p style="font-family:sans-serif;color:#666">This message has no HTML part.</p>');
  });

  // The Checks tab: links with their problems and the HTML against email clients (caniemail's data) …
  registerOperation(app, ops.getMessageChecks, async ({ params }) => ok('Message checked', await checks.checks(params.id)));
  // … and SpamAssassin's score with the rules that fired (spamd starts on first use: this may take a while once).
  registerOperation(app, ops.getMessageSpamScore, async ({ params }) => ok('Message scored', await checks.spam(params.id)));

  app.get('/emulator/messages/:id/attachments/:n', async (request, reply) => {
    const { id, n } = parseInput(AttachmentParams, request.params, 'params');
    const a = await messages.attachment(id, n);
    return download(reply, a.filename, a.contentType, a.content);
  });
}
