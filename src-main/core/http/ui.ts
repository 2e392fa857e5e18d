import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** The web UI's policy: only its own scripts; captured HTML is shown in sandboxed frames of its own. */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Mailyard</title>
<p>Mailyard is running, but its web UI is not built. Run <code>npm run build</code> and start it again.</p>`;

function setUiHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', UI_CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
}

/**
 * Serves the built renderer at `/`. Returns the function that answers an unknown GET that is not an
 * API path: the UI's index page (the UI routes on the client), so deep links keep working.
 *
 * Both the page and the files are looked up when asked for, not once at start: after `npm run build`
 * a running emulator serves the new UI (its page names new asset files) at the next reload.
 */
export async function registerUi(app: FastifyInstance, uiDir: string | undefined): Promise<(reply: FastifyReply) => FastifyReply> {
  const index = uiDir ? join(uiDir, 'index.html') : undefined;
  if (!uiDir || !index || !existsSync(index)) {
    const page = (reply: FastifyReply) => setUiHeaders(reply).type('text/html; charset=utf-8').send(NOT_BUILT);
    app.get('/', (_req, reply) => page(reply));
    return page;
  }
  // Its file serving (a bundled tree of packages) loads at start, when the UI is served, not on import.
  const { default: fastifyStatic } = await import('@fastify/static');
  await app.register(fastifyStatic, {
    root: uiDir,
    index: false,
    dotfiles: 'ignore',
    setHeaders: (reply) => setUiHeaders(reply),
  });
  let cached: { mtimeMs: number; html: Buffer } | undefined;
  const html = (): Buffer => {
    try {
      const { mtimeMs } = statSync(index);
      if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, html: readFileSync(index) };
    } catch {
      // Mid-rebuild (the file is briefly gone): the last page read.
    }
    return cached?.html ?? Buffer.from(NOT_BUILT);
  };
  const page = (reply: FastifyReply) => setUiHeaders(reply).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html());
  app.get('/', (_req, reply) => page(reply));
  return page;
}
