import { z } from 'zod';
import { errorStatuses } from './openapi-responses';
import type { DocumentedRoute, Operation } from './operations';
import { ErrorResponse, WebhookErrorResponse } from './schemas/common';

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
  if (io === 'input') describeDefaults(json);
  for (const [id, def] of Object.entries(json.$defs ?? {})) components[id] = def;
  delete json.$defs;
  // A schema that is itself a component comes back as its definition: keep it there, refer to it here.
  const id = typeof json.id === 'string' ? json.id : undefined;
  if (id) {
    delete json.id;
    components[id] = json;
    return { $ref: `#/components/schemas/${id}` };
  }
  return json;
}

/**
 * A field with a default may be left out of a request, but generators (openapi-typescript among them)
 * read a `default` as "always present" and make the field required in the request type: in what a
 * client sends, the default is said in the description instead.
 */
function describeDefaults(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) describeDefaults(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const obj = node as JsonSchema;
  if ('default' in obj) {
    const note = `Default: ${JSON.stringify(obj.default)}.`;
    obj.description = typeof obj.description === 'string' ? `${obj.description} ${note}` : note;
    delete obj.default;
  }
  for (const value of Object.values(obj)) describeDefaults(value);
}

/**
 * A schema whose `anyOf` branches only add to its own fields (`required`, constraints on properties it
 * has) says "these fields, and one of these" the way JSON Schema can but generators cannot:
 * openapi-typescript types a branch of bare `required` as `unknown`, and the whole body with it. Each
 * such branch becomes a complete object (the fields, the branch's required ones added, its constraints
 * merged into the properties), a component of its own when it has a `title`, so the schema is an
 * `anyOf` of whole shapes: the same values are valid, and every generator can type it.
 */
function completeAlternatives(components: Record<string, JsonSchema>): void {
  for (const [id, schema] of Object.entries(components)) {
    const { anyOf, description, ...fields } = schema as JsonSchema & { anyOf?: JsonSchema[]; properties?: Record<string, JsonSchema> };
    const properties = fields.properties;
    if (!Array.isArray(anyOf) || !properties) continue;
    const addsToFields = (branch: JsonSchema) =>
      Object.keys(branch).every((key) => ['title', 'description', 'required', 'properties'].includes(key)) &&
      Object.keys((branch.properties as JsonSchema | undefined) ?? {}).every((name) => name in properties);
    if (!anyOf.every(addsToFields)) continue;
    const shapes = anyOf.map((branch) => {
      const {
        title,
        description: about,
        required = [],
        properties: constraints = {},
      } = branch as JsonSchema & { required?: string[]; properties?: Record<string, JsonSchema> };
      const merged = { ...properties };
      for (const [name, extra] of Object.entries(constraints)) {
        const base = merged[name]!;
        merged[name] = '$ref' in base ? { allOf: [base, extra] } : { ...base, ...extra };
      }
      const shape: JsonSchema = {
        ...(typeof about === 'string' ? { description: about } : {}),
        ...fields,
        properties: merged,
        required: [...new Set([...((fields.required as string[] | undefined) ?? []), ...required])],
      };
      if (typeof title !== 'string') return shape;
      components[title] = shape;
      return { $ref: `#/components/schemas/${title}` };
    });
    components[id] = { ...(typeof description === 'string' ? { description } : {}), anyOf: shapes };
  }
}

/** The error bodies: `details` an object, always present, on the webhook calls; `records` on the domain calls. */
const ERROR_SCHEMAS = {
  plain: ErrorResponse,
  details: WebhookErrorResponse,
  records: ErrorResponse.required({ records: true }).meta({ id: 'ErrorResponseWithRecords' }),
} as const;

function parametersOf(op: Pick<Operation, 'params' | 'query'>, components: Record<string, JsonSchema>): unknown[] {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', op.params],
    ['query', op.query],
  ] as const) {
    if (!schema) continue;
    const json = toSchema(schema, 'input', components) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = prop;
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

function securityOf(auth: Operation['auth']): unknown[] {
  // The control API needs no key on loopback, the control key beyond it: both alternatives hold.
  return auth === 'bearer' ? [{ bearerAuth: [] }, { apiKeyAuth: [] }] : [{}, { controlKey: [] }];
}

/** Statuses answered before any route is matched (by the HTTP parser or the router): always the plain error body. */
const BEFORE_ROUTING = new Set([408, 414, 431]);

function errorResponses(operationId: string, op: Operation, errorRef: JsonSchema, plainRef: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, description] of errorStatuses(operationId, op)) {
    const schema = BEFORE_ROUTING.has(status) ? plainRef : errorRef;
    out[String(status)] = { description, content: { 'application/json': { schema } } };
  }
  return out;
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  Webhooks: 'Webhooks of the service API: register, update, delete, list',
  Email: 'Sending, email logs, templates and the suppression list of the service API',
  Domains: 'Sending domains and their DNS records in the service API',
  Inbound: 'Inbound routing: domains and username routes whose mail is posted to a URL',
  Mailers: 'SMTP and IMAP configurations of the service API',
  OAuth: 'OAuth for SMTP and IMAP configurations',
  Emulator: "The emulator's own state: health, accounts, stats, the live stream",
  Messages: 'Captured messages of the control API: list, detail, downloads, checks, release',
  Simulation: 'Synthetic events and the simulation rules',
  Clock: "The emulator's clock: speed it up or jump it forward",
  Deliveries: 'Webhook deliveries, their attempts and retries',
};

export interface OpenApiInfo {
  version: string;
}

/**
 * Drops `additionalProperties: false` from the given schemas and every component they refer to, so a
 * validating tool is never stricter than the server, which ignores unknown fields.
 */
function openToUnknownFields(schemas: unknown[], components: Record<string, JsonSchema>): void {
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const obj = node as JsonSchema;
    if (obj.additionalProperties === false) delete obj.additionalProperties;
    const ref = typeof obj.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(obj.$ref)?.[1] : undefined;
    if (ref && !seen.has(ref)) {
      seen.add(ref);
      visit(components[ref]);
    }
    for (const value of Object.values(obj)) visit(value);
  };
  visit(schemas);
}

/** The OpenAPI 3.1 document of the given operations, generated from their zod schemas, and of the routes that answer files or streams. */
export function buildOpenApiDocument(
  operations: Record<string, Operation>,
  info: OpenApiInfo,
  routes: Record<string, DocumentedRoute> = {},
): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  const errorRefs = {
    plain: toSchema(ERROR_SCHEMAS.plain, 'output', components),
    details: toSchema(ERROR_SCHEMAS.details, 'output', components),
    records: toSchema(ERROR_SCHEMAS.records, 'output', components),
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  /** The service API's request schemas: it accepts and ignores unknown fields (API.md part 0). */
  const lenient: unknown[] = [];
  for (const [operationId, op] of Object.entries(operations)) {
    tags.add(op.tag);
    const parameters = parametersOf(op, components);
    const requestBody = op.body && { required: true, content: { 'application/json': { schema: toSchema(op.body, 'input', components) } } };
    if (op.auth === 'bearer') lenient.push(requestBody, parameters);
    paths[op.path] ??= {};
    paths[op.path]![op.method.toLowerCase()] = {
      operationId,
      summary: op.summary,
      tags: [op.tag],
      security: securityOf(op.auth),
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses: {
        [String(op.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: toSchema(op.response, 'output', components) } } },
        ...errorResponses(operationId, op, errorRefs[op.errorShape ?? 'plain'], errorRefs.plain),
      },
    };
  }
  for (const [operationId, route] of Object.entries(routes)) {
    tags.add(route.tag);
    const parameters = parametersOf(route, components);
    const asOperation: Operation = { ...route, response: z.unknown() };
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId,
      summary: route.summary,
      tags: [route.tag],
      security: securityOf(route.auth),
      ...(parameters.length ? { parameters } : {}),
      responses: {
        '200': { description: route.answer.description, content: { [route.answer.mediaType]: { schema: route.answer.schema } } },
        ...errorResponses(operationId, asOperation, errorRefs.plain, errorRefs.plain),
      },
    };
  }
  completeAlternatives(components);
  openToUnknownFields(lenient, components);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mailyard',
      version: info.version,
      description:
        'Offline emulation of an email delivery service (/v1) and the emulator control API (/emulator). Generated from the zod schemas. ' +
        'Like the real service, /v1 accepts and ignores unknown body fields and query parameters (they are named in the X-Mailyard-Ignored ' +
        'answer header) unless the emulator runs with --strict-requests; the control API refuses them.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative, so a client generated from one emulator's document works against any other's.
    servers: [{ url: '/', description: 'The emulator that serves this document' }],
    tags: [...tags].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${name} operations` })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: "The account's API key: `Authorization: Bearer <key>`" },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: "The account's API key in the X-API-Key header" },
        controlKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The control key (`--control-key`), required when the emulator listens beyond loopback',
        },
      },
    },
  };
}
