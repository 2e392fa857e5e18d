import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/**
 * One HTTP operation: the single description from which the server registers its route, the typed
 * clients build their requests, and the OpenAPI document is generated.
 */
export interface Operation {
  method: HttpMethod;
  /** OpenAPI-style template, e.g. `/v1/domain/{domain}`. */
  path: string;
  summary: string;
  tag: string;
  /** `bearer`: needs an account API key (the `/v1` service API); `none`: the control API. */
  auth: 'bearer' | 'none';
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response: z.ZodType;
  /** The success status (default 200): 202 for work that goes on after the answer. */
  status?: 200 | 201 | 202;
  /** Error statuses this operation may answer besides 400 (and 401 for bearer operations). */
  errors?: readonly number[];
  /**
   * What its error body always carries beside `success` and `error`, as the real service's docs show:
   * `details` (the webhook calls) or `records` (the domain calls). Absent: only what the error has.
   */
  errorShape?: 'details' | 'records';
}

/** Keeps each operation's literal types (method, path, schemas) while checking it is an Operation. */
export function defineOperations<const T extends Record<string, Operation>>(ops: T): T {
  return ops;
}

/**
 * A route that answers something other than the API's JSON (a file, a preview, a stream): described
 * for the OpenAPI document only, its handler written by hand.
 */
export interface DocumentedRoute extends Pick<Operation, 'method' | 'path' | 'summary' | 'tag' | 'auth' | 'params' | 'query' | 'errors'> {
  answer: { mediaType: string; description: string; schema: Record<string, unknown> };
}

/** Keeps each documented route's name and literal types while checking it is a DocumentedRoute. */
export function defineRoutes<const T extends Record<string, DocumentedRoute>>(routes: T): T {
  return routes;
}
