import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../../../../src-shared/openapi';
import { controlOperations, documentedRoutes, serviceOperations } from '../../../../src-shared/operations';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of the service and control APIs, its `servers` entry the
 * emulator's own URL (known once it listens, so the document is built on first request).
 */
export function openApiRoutes(app: FastifyInstance, deps: { version: string; serverUrl: () => string | undefined }): void {
  let built: { url: string | undefined; document: Record<string, unknown> } | undefined;
  app.get('/openapi.json', (_request, reply) => {
    const url = deps.serverUrl() || undefined;
    if (!built || built.url !== url) {
      const operations = { ...serviceOperations, ...controlOperations };
      built = { url, document: buildOpenApiDocument(operations, { version: deps.version, serverUrl: url }, documentedRoutes) };
    }
    return reply.send(built.document);
  });
}
