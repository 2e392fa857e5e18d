import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TrackingService } from '../../services/email/tracking.service';
import { UI_CSP } from '../ui';

/** A 1x1 transparent GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const TOKEN = /^[A-Za-z0-9_-]{10,64}$/;

function page(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', UI_CSP)
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
        `<title>${title}</title><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">` +
        `<h1 style="font-size:1.3rem">${title}</h1>${body}</body></html>`,
    );
}

const who = (request: FastifyRequest) => ({ userAgent: request.headers['user-agent'] ?? '', ip: request.ip });
const tokenOf = (request: FastifyRequest) => {
  const token = (request.params as { token?: string }).token ?? '';
  return TOKEN.test(token) ? token : '';
};

/**
 * The links in tracked mail: `/t/o/{token}` (open pixel), `/t/c/{token}` (click: a 302 only to the
 * URL that was in that message), `/t/u/{token}` (unsubscribe: a confirmation page on GET, the
 * unsubscribe itself on POST, which is also RFC 8058 one-click).
 */
export function trackingRoutes(app: FastifyInstance, tracking: TrackingService): void {
  // Mail clients post one-click unsubscribes as a form; here only, form bodies are read (and ignored).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_req, _body, done) => done(null, undefined));

  app.get('/t/o/:token', (request, reply) => {
    const token = tokenOf(request);
    if (token) tracking.open(token, who(request));
    // Always a pixel, so an unknown token never shows a broken image in a mail client.
    return reply.type('image/gif').header('cache-control', 'no-store, max-age=0').send(PIXEL);
  });

  app.get('/t/c/:token', (request, reply) => {
    const token = tokenOf(request);
    const url = token ? tracking.click(token, who(request)) : undefined;
    if (!url) return page(reply, 404, 'Unknown link', '<p>This tracked link is not known to this Mailyard.</p>');
    return reply.header('cache-control', 'no-store').redirect(url, 302);
  });

  app.get('/t/u/:token', (request, reply) => {
    const token = tokenOf(request);
    if (!token || !tracking.isUnsubscribeToken(token)) return page(reply, 404, 'Unknown link', '<p>This unsubscribe link is not known to this Mailyard.</p>');
    return page(
      reply,
      200,
      'Unsubscribe',
      `<p>Stop receiving these emails?</p><form method="post"><button type="submit" name="List-Unsubscribe" value="One-Click">Unsubscribe</button></form>`,
    );
  });

  app.post('/t/u/:token', (request, reply) => {
    const token = tokenOf(request);
    if (!token || !tracking.unsubscribe(token)) return page(reply, 404, 'Unknown link', '<p>This unsubscribe link is not known to this Mailyard.</p>');
    return page(reply, 200, 'Unsubscribed', '<p>You will not receive these emails any more.</p>');
  });
}
