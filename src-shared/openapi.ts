import { z } from 'zod';
import { ErrorResponse } from './schemas/common';
import type { Operation } from './operations';

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed JSON, wrong types, missing fields or a broken rule',
  401: 'Missing, malformed or unknown API key',
  403: 'Foreign Host header on the control API',
  404: 'The addressed resource does not exist for this account',
  409: 'The resource already exists',
  413: 'Body over the size limit',
  415: 'Body is not application/json',
  422: 'URL cannot be connected to',
};

type JsonSchema = Record<string, unknown>;

/**
 * Converts a zod schema to JSON Schema (draft 2020-12, which OpenAPI 3.1 uses). Schemas given a meta
 * `id` become shared components, referenced with `$ref`.
 */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  const json = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  delete json.$schema;
  for (const [id, def] of Object.entries(json.$defs ?? {})) components[id] = def;
  delete json.$defs;
  // A schema that is itself a component comes back as its definition: refer to it instead.
  const id = typeof json.id === 'string' ? json.id : undefined;
  if (id) {
    delete json.id;
    components[id] = json;
    return { $ref: `#/components/schemas/${id}` };
  }
  return json;
}

function parametersOf(op: Operation, components: Record<string, JsonSchema>): unknown[] {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', op.params],
    ['query', op.query],
  ] as const) {
    if (!schema) continue;
    const json = toSchema(schema, 'input', components) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: prop });
    }
  }
  return out;
}

export interface OpenApiInfo {
  version: string;
  serverUrl?: string;
}

/** The OpenAPI 3.1 document of the given operations, generated from their zod schemas. */
export function buildOpenApiDocument(operations: Record<string, Operation>, info: OpenApiInfo): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = { $ref: '#/components/schemas/ErrorResponse' };
  for (const [operationId, op] of Object.entries(operations)) {
    const responses: Record<string, unknown> = {
      '200': { description: 'Success', content: { 'application/json': { schema: toSchema(op.response, 'output', components) } } },
    };
    const statuses = new Set<number>([400, ...(op.auth === 'bearer' ? [401] : [403]), ...(op.errors ?? [])]);
    for (const status of [...statuses].sort()) {
      responses[String(status)] = { description: STATUS_TEXT[status] ?? 'Error', content: { 'application/json': { schema: errorRef } } };
    }
    const parameters = parametersOf(op, components);
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      operationId,
      summary: op.summary,
      tags: [op.tag],
      ...(op.auth === 'bearer' ? { security: [{ bearerAuth: [] }] } : { security: [] }),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(op.body, 'input', components) } } } }
        : {}),
      responses,
    };
  }
  components.ErrorResponse = toSchema(ErrorResponse, 'output', components);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mailyard',
      version: info.version,
      description:
        'Offline emulation of an email delivery service (/v1) and the emulator control API (/emulator). Generated from the zod schemas.',
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: "The account's API key" } },
    },
  };
}
