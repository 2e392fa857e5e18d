import type { FastifyInstance } from 'fastify';

/**
 * Whether the emulator takes work: `ready`, or why not. `starting` until the listeners and the workers
 * run, `stopping` from the moment a stop begins, `store_full` while the data directory's disk refuses
 * writes (sends answer 507, SMTP 451).
 */
export type Readiness = 'ready' | 'starting' | 'stopping' | 'store_full';

/**
 * `GET /livez` and `GET /readyz` (Mailpit's names): for a container's health check, an orchestrator's
 * probes and a CI job's wait. They answer without a key, whatever the Host and wherever the listener is
 * reached from (`/emulator/health` keeps the control API's rules), so they say a status word and
 * nothing else: no URL, key, count or path. `/livez`: 200 while the process answers. `/readyz`: 200
 * when ready, else 503 with the reason.
 */
export function probeRoutes(app: FastifyInstance, deps: { readiness: () => Readiness }): void {
  app.get('/livez', (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => {
    const status = deps.readiness();
    return reply
      .header('cache-control', 'no-store')
      .status(status === 'ready' ? 200 : 503)
      .send({ status });
  });
}
