import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { catcherOperations } from '../../../../src-shared/operations/control/catchers';
import { CATCHER_LIMITS } from '../../../../src-shared/schemas/catchers';
import { appError } from '../../error-catalogue';
import type { CatchersService } from '../../services/catchers/catchers.service';
import { sendError } from '../error-handler';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** `/emulator/catchers`: create, change and delete catchers, and read what they caught. */
export function catcherHandlers(catchers: CatchersService): Handlers<typeof catcherOperations> {
  return {
    createCatcher: ({ body }) => ok('Catcher created', catchers.create(body)),
    listCatchers: ({ query }) => ok('Catchers retrieved', { catchers: catchers.list(query.account_id) }),
    getCatcher: ({ params }) => ok('Catcher retrieved', catchers.get(params.id)),
    updateCatcher: ({ params, body }) => ok('Catcher updated', catchers.update(params.id, body)),
    deleteCatcher: ({ params }) => ok('Catcher deleted', catchers.delete(params.id)),
    listCatcherRequests: ({ params, query }) => ok('Catcher requests retrieved', catchers.requests(params.id, query)),
    pointWebhookAtCatcher: async ({ params }) => ok("Catcher is the account's webhook for every event kind", await catchers.useAsWebhook(params.id)),
  };
}

function headerRecord(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * `/catch/{id}` (and any path below it), every method: open to anyone, as a webhook receiver is. It only
 * records and answers a fixed word; what it caught is read through the control API alone, so a page
 * of another site that posts here learns nothing. Answers wait (a delay, a hang) on wall time, and
 * are all let go when the listener closes.
 */
export function catchRoutes(app: FastifyInstance, catchers: CatchersService): void {
  // Any body, as bytes: a receiver takes what it is sent.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CATCHER_LIMITS.bodyReadBytes }, (_request, body, done) => done(null, body));

  const waiting = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const wake of waiting) wake();
    done();
  });

  /** Resolves after `ms`, or when the sender goes away or the listener closes, whichever comes first. */
  const hold = (request: FastifyRequest, ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        request.raw.socket.off('close', wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiting.add(wake);
      request.raw.socket.once('close', wake);
    });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { id } = request.params as { id: string };
    const answer = catchers.receive(id, {
      method: request.method,
      path: request.url,
      headers: headerRecord(request),
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    });
    if (!answer) return sendError(reply, appError('catcherNotFound'));
    if (answer.refused) {
      const bound =
        answer.refused === 'catcher'
          ? { held: CATCHER_LIMITS.heldPerCatcher, holder: 'this catcher holds' }
          : { held: CATCHER_LIMITS.heldInAll, holder: 'all catchers together hold' };
      return sendError(reply.header('cache-control', 'no-store'), appError('catcherHoldsFull', bound));
    }
    if (answer.status === 0) {
      // No answer at all: the sender's own time-out ends the attempt.
      reply.hijack();
      try {
        await hold(request, CATCHER_LIMITS.hangMs);
      } finally {
        answer.release();
      }
      request.raw.socket.destroy();
      return;
    }
    if (answer.delayMs > 0) {
      try {
        await hold(request, answer.delayMs);
      } finally {
        answer.release();
      }
    }
    return reply
      .status(answer.status)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(answer.status < 300 ? 'caught\n' : `answered ${answer.status} as this catcher was told\n`);
  };
  app.all('/catch/:id', handler);
  app.all('/catch/:id/*', handler);
}
