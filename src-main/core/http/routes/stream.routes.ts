import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LIVE_EVENT_NAMES } from '../../../../src-shared/live-events';
import type { streamRoutes } from '../../../../src-shared/operations/control/stream';
import type { LiveBus } from '../../live-bus';
import type { RouteHandlers } from '../operation-route';

/** A client that reads slower than this much unsent data is dropped (EventSource reconnects). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * `GET /emulator/stream`: server-sent events announcing deliveries, attempts, clock changes, new messages
 * and their events, mailer changes and messages taken from IMAP inboxes as they happen, so the UI (or
 * `curl -N`) follows along without polling. A stream ends once `allowed` no longer holds for its
 * request (its login ended or expired), at its next event or heartbeat.
 */
export function streamHandlers(app: FastifyInstance, events: LiveBus, allowed: (request: FastifyRequest) => boolean): RouteHandlers<typeof streamRoutes> {
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  const streamLiveEvents: RouteHandlers<typeof streamRoutes>['streamLiveEvents'] = ({ request, reply }) => {
    reply.hijack();
    const res = reply.raw;
    // Hijacked, the answer carries only what is written here: the hooks' headers too (nosniff, CORP).
    res.writeHead(200, {
      ...(reply.getHeaders() as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write('retry: 2000\n: connected\n\n');
    const offs = LIVE_EVENT_NAMES.map((name) =>
      events.on(name, (data) => {
        if (res.writableLength > MAX_BUFFERED_BYTES || !allowed(request)) return end();
        res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      }),
    );
    // Keeps proxies and idle timers from closing a quiet stream (a network keep-alive, wall time).
    const heartbeat = setInterval(() => (allowed(request) ? res.write(': ping\n\n') : end()), 15_000);
    function end() {
      if (!open.delete(end)) return;
      clearInterval(heartbeat);
      for (const off of offs) off();
      res.end();
    }
    open.add(end);
    request.raw.on('close', end);
    return reply;
  };
  return { streamLiveEvents };
}
