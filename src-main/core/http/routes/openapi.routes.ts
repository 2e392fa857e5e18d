import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../../../../src-shared/openapi';
import { controlOperations, documentedRoutes, serviceOperations } from '../../../../src-shared/operations';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of the service and control APIs. It does not depend on
 * the instance (its `servers` entry is relative), so it is built once, on first request.
 */
export function openApiRoutes(app: FastifyInstance, deps: { version: string }): void {
  let document: Record<string, unknown> | undefined;
  app.get('/openapi.json', (_request, reply) => {
    document ??= buildOpenApiDocument({ ...serviceOperations, ...controlOperations }, { version: deps.version }, documentedRoutes);
    return reply.send(document);
  });
}
