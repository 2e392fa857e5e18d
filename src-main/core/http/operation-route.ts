import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Operation } from '../../../src-shared/operations';
import { AppError } from '../errors';
import { formatPath, IGNORED_HEADER, ignoredHeaderValue, type RequestLeniency } from './leniency';
import { parseInput } from './validation';

declare module 'fastify' {
  interface FastifyInstance {
    /** How `/v1` operations treat unknown fields and null optionals (buildHttpApp decorates it). */
    requestLeniency?: RequestLeniency;
  }
}

type Parsed<O extends Operation, K extends 'params' | 'query' | 'body'> = O[K] extends z.ZodType ? z.output<O[K]> : undefined;

export interface OperationInput<O extends Operation> {
  params: Parsed<O, 'params'>;
  query: Parsed<O, 'query'>;
  body: Parsed<O, 'body'>;
  request: FastifyRequest;
}

export type OperationHandler<O extends Operation> = (input: OperationInput<O>) => Promise<z.input<O['response']>> | z.input<O['response']>;

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
  const name = `${op.method} ${op.path}`;
  app.route({
    method: op.method,
    url: toRoutePath(op.path),
    config: { errorShape: op.errorShape ?? 'plain' },
    handler: async (request, reply) => {
      const ignored: string[] | undefined = leniency ? [] : undefined;
      let input: OperationInput<O>;
      try {
        input = parseRequest(op, request, ignored);
      } finally {
        // Said on a refusal too: what was ignored is not among its problems.
        if (ignored !== undefined && ignored.length > 0) {
          reply.header(IGNORED_HEADER, ignoredHeaderValue(ignored));
          leniency!.reportIgnored(name, ignored, request.log);
        }
      }
      if (op.status !== undefined) reply.code(op.status);
      return handler(input);
    },
  });
}

/** Params, query and body parsed with the operation's schemas; `ignored` given: leniently. */
function parseRequest<O extends Operation>(op: O, request: FastifyRequest, ignored: string[] | undefined): OperationInput<O> {
  // The JSON parser reads an empty body as undefined; fastify reads none for GET and HEAD.
  if (!op.body && request.body !== undefined && !isEmptyObject(request.body)) {
    // Leniently, the members of an object are unknown fields like any other; anything else is refused.
    if (ignored !== undefined && isObject(request.body)) {
      // One by one: a spread of as many keys as the client sends overflows the stack.
      for (const key of Object.keys(request.body)) ignored.push(formatPath([key]));
    } else {
      const message = `request body must be empty: ${op.method} ${op.path} takes no body`;
      throw new AppError('bad_request', message, [{ path: '', message: 'must be empty' }]);
    }
  }
  return {
    params: op.params ? parseInput(op.params, request.params, 'params') : undefined,
    query: op.query ? parseInput(op.query, request.query, 'query', ignored) : undefined,
    body: op.body ? parseInput(op.body, request.body, 'body', ignored) : undefined,
    request,
  } as OperationInput<O>;
}
