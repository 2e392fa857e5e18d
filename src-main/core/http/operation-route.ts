import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ControlOperations, DocumentedRoute, DocumentedRoutes, Operation, ServiceOperations } from '../../../src-shared/operations';
import { appError } from '../error-catalogue';
import type { Account } from '../services/accounts.service';
import { type WouldRefuse, warningText } from '../would-refuse';
import { formatPath, IGNORED_HEADER, ignoredHeaderValue, type RequestLeniency } from './leniency';
import { parseInput } from './validation';
import { WARNING_HEADER, warningHeaderValue } from './warnings';

declare module 'fastify' {
  interface FastifyInstance {
    /** How `/v1` operations treat unknown fields and null optionals (buildHttpApp decorates it). */
    requestLeniency?: RequestLeniency;
  }
}

type Parsed<O extends Operation | DocumentedRoute, K extends 'params' | 'query' | 'body'> =
  O extends Record<K, infer S extends z.ZodType> ? z.output<S> : undefined;

/** What a handler is given: the parsed parts of its request, and the account when the operation needs an API key. */
export type OperationInput<O extends Operation> = {
  params: Parsed<O, 'params'>;
  query: Parsed<O, 'query'>;
  body: Parsed<O, 'body'>;
  request: FastifyRequest;
  /** For an operation that answers a file rather than JSON (its response schema is `unknown`). */
  reply: FastifyReply;
  /**
   * Something of the request the real service would refuse: said in `X-Mailyard-Warning` and logged,
   * or, under `--strict-requests`, thrown as the service's refusal. Answers the warning's words.
   */
  warn: (found: WouldRefuse) => string;
} & (O['auth'] extends 'bearer' ? { account: Account } : unknown);

export type OperationHandler<O extends Operation> = (input: OperationInput<O>) => Promise<z.input<O['response']>> | z.input<O['response']>;

/**
 * One handler per operation of a table, keyed by the operation's name: a handler missing for an
 * operation, or one for an operation the table no longer has, is a compile error where the record is
 * written (areas write theirs with `satisfies Partial<Handlers<...>>`, app.ts joins them).
 */
export type Handlers<T extends Record<string, Operation>> = { [K in keyof T]: OperationHandler<T[K]> };

/** A documented route's handler: it answers through `reply` (a file, a page, a download). */
export type RouteHandler<R extends DocumentedRoute> = (input: {
  params: Parsed<R, 'params'>;
  query: Parsed<R, 'query'>;
  request: FastifyRequest;
  reply: FastifyReply;
}) => FastifyReply | Promise<FastifyReply>;

export type RouteHandlers<T extends Record<string, DocumentedRoute>> = { [K in keyof T]: RouteHandler<T[K]> };

/** The `/v1` operations' handlers; each area writes its part as `satisfies Partial<ServiceHandlers>`. */
export type ServiceHandlers = Handlers<ServiceOperations>;
/** The control API's operations' handlers. */
export type ControlHandlers = Handlers<ControlOperations>;
/** The documented routes' handlers (files, previews, the event stream). */
export type FileRouteHandlers = RouteHandlers<DocumentedRoutes>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEmptyObject(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 0;
}

/** `/v1/domain/{domain}` to fastify's `/v1/domain/:domain`. */
export function toRoutePath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

/** `/v1` operations are lenient unless the emulator runs with `--strict-requests`; the control API is always strict. */
function isLenient(app: FastifyInstance, op: Operation): boolean {
  return op.path.startsWith('/v1/') && app.requestLeniency !== undefined && !app.requestLeniency.strict;
}

/**
 * Registers one operation of the shared table: parses params, query and body with its schemas
 * (400 naming every problem) and answers what the handler returns. An operation without a body
 * refuses one (`null` included): only no body, an empty one, or `{}` (which many HTTP clients send for
 * any PUT or DELETE, and which says nothing) is taken; a lenient one ignores an object's members. On a lenient `/v1` operation, unknown query
 * parameters and body fields, and nulls for optional fields, are ignored: named in `X-Mailyard-Ignored`
 * and logged once per operation and path.
 */
export function registerOperation<O extends Operation>(app: FastifyInstance, op: O, handler: OperationHandler<O>): void {
  const leniency = isLenient(app, op) ? app.requestLeniency : undefined;
  const strictRequests = app.requestLeniency?.strict ?? false;
  const name = `${op.method} ${op.path}`;
  app.route({
    method: op.method,
    url: toRoutePath(op.path),
    config: { errorShape: op.errorShape ?? 'plain' },
    handler: async (request, reply) => {
      const ignored: string[] | undefined = leniency ? [] : undefined;
      let input: Omit<OperationInput<O>, 'warn'>;
      try {
        input = parseRequest(op, request, reply, ignored);
      } finally {
        // Said on a refusal too: what was ignored is not among its problems.
        if (ignored !== undefined && ignored.length > 0) {
          reply.header(IGNORED_HEADER, ignoredHeaderValue(ignored));
          leniency!.reportIgnored(name, ignored, request.log);
        }
      }
      if (op.status !== undefined) reply.code(op.status);
      const warnings: string[] = [];
      const warn = (found: WouldRefuse): string => {
        if (strictRequests) throw found.refusal;
        const text = warningText(found);
        warnings.push(text);
        return text;
      };
      const result = await handler({ ...input, warn } as OperationInput<O>);
      if (warnings.length > 0) {
        reply.header(WARNING_HEADER, warningHeaderValue(warnings));
        request.log.warn(
          { operation: name, warnings },
          `${name}: the real service would refuse this request (${warnings.length} warnings); --strict-requests refuses it`,
        );
      }
      return result;
    },
  });
}

/** Registers every operation of a table with its handler, in the table's order (the OpenAPI document's). */
export function registerOperations<T extends Record<string, Operation>>(app: FastifyInstance, table: T, handlers: Handlers<T>): void {
  for (const name of Object.keys(table) as Array<keyof T & string>) {
    registerOperation(app, table[name], handlerOf(handlers, name) as OperationHandler<T[typeof name]>);
  }
}

/** Registers every documented route of a table with its handler: params and query parsed with its schemas. */
export function registerRoutes<T extends Record<string, DocumentedRoute>>(app: FastifyInstance, routes: T, handlers: RouteHandlers<T>): void {
  for (const [name, route] of Object.entries(routes) as Array<[keyof T & string, DocumentedRoute]>) {
    const handler = handlerOf(handlers, name) as (input: {
      params: unknown;
      query: unknown;
      request: FastifyRequest;
      reply: FastifyReply;
    }) => FastifyReply | Promise<FastifyReply>;
    app.route({
      method: route.method,
      url: toRoutePath(route.path),
      handler: async (request, reply) =>
        handler({
          params: route.params ? parseInput(route.params, request.params, 'params') : undefined,
          query: route.query ? parseInput(route.query, request.query, 'query') : undefined,
          request,
          reply,
        }),
    });
  }
}

/** The compiler holds the records complete; this says which one is missing when a cast got past it. */
function handlerOf(handlers: Record<string, unknown>, name: string): unknown {
  const handler = handlers[name];
  if (typeof handler !== 'function') throw new Error(`no handler for the operation ${name}`);
  return handler;
}

/** Params, query and body parsed with the operation's schemas; `ignored` given: leniently. */
function parseRequest<O extends Operation>(
  op: O,
  request: FastifyRequest,
  reply: FastifyReply,
  ignored: string[] | undefined,
): Omit<OperationInput<O>, 'warn'> {
  // The JSON parser reads an empty body as undefined; fastify reads none for GET and HEAD.
  if (!op.body && request.body !== undefined && !isEmptyObject(request.body)) {
    // Leniently, the members of an object are unknown fields like any other; anything else is refused.
    if (ignored !== undefined && isObject(request.body)) {
      // One by one: a spread of as many keys as the client sends overflows the stack.
      for (const key of Object.keys(request.body)) ignored.push(formatPath([key]));
    } else {
      throw appError('bodyNotAllowed', { method: op.method, path: op.path });
    }
  }
  return {
    params: op.params ? parseInput(op.params, request.params, 'params') : undefined,
    query: op.query ? parseInput(op.query, request.query, 'query', ignored) : undefined,
    body: op.body ? parseInput(op.body, request.body, 'body', ignored) : undefined,
    request,
    reply,
    account: op.auth === 'bearer' ? accountOf(request) : undefined,
  } as unknown as Omit<OperationInput<O>, 'warn'>;
}

/** The account the bearer hook authenticated; an operation that needs one never runs without it. */
function accountOf(request: FastifyRequest): Account {
  if (request.account === undefined) throw appError('unauthorized');
  return request.account;
}
