import type { FastifyInstance, FastifyRequest } from 'fastify';

/** How often a long poll looks again while it waits (an indexed query each time). */
const LONG_POLL_EVERY_MS = 20;

export interface LongPollAnswer<T> {
  found: T[];
  timed_out: boolean;
  waited_ms: number;
}

/**
 * Answers what `find` finds now, or waits (up to waitMs) until it finds something, looking again every
 * LONG_POLL_EVERY_MS. Stops early when the client goes away or the listener closes (then answers what
 * there is: nothing, timed out). The cost of a look is the cost of `find`, not of the store's size.
 */
export type LongPoll = <T>(request: FastifyRequest, waitMs: number, find: () => T[] | Promise<T[]>) => Promise<LongPollAnswer<T>>;

/** The long poll of one listener: its waits end at once when that listener closes, so close() is never held by one. */
export function longPollOn(app: FastifyInstance): LongPoll {
  const closing = closingOf(app);
  return async (request, waitMs, find) => {
    const started = Date.now();
    let found = await find();
    if (found.length > 0 || waitMs === 0) return { found, timed_out: found.length === 0, waited_ms: 0 };
    let gone = false;
    const onGone = () => (gone = true);
    const socket = request.raw.socket;
    socket.once('close', onGone);
    try {
      while (found.length === 0 && !gone && !closing.closing && Date.now() - started < waitMs) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(LONG_POLL_EVERY_MS, waitMs - (Date.now() - started))));
        found = await find();
      }
    } finally {
      socket.off('close', onGone);
    }
    return { found, timed_out: found.length === 0, waited_ms: Date.now() - started };
  };
}

/** Whether the listener is closing, set by its preClose hook; what is answered meanwhile closes its connection. */
function closingOf(app: FastifyInstance): { closing: boolean } {
  const flag = { closing: false };
  app.addHook('preClose', (done) => {
    flag.closing = true;
    done();
  });
  // An idle keep-alive socket would otherwise hold close() until it times out.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (flag.closing) reply.header('connection', 'close');
    done(null, payload);
  });
  return flag;
}
