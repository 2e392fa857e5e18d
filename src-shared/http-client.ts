import type { z } from 'zod';
import type { Fetch } from './fetch-types';
import type { Operation } from './operations';
import { AnyErrorResponse, type ErrorResponse } from './schemas/common';

type Field<O, K extends string> = O extends Record<K, infer S extends z.ZodType> ? { [P in K]: z.input<S> } : { [P in K]?: never };

/** What a call of operation `O` takes: its path params, query and body, each only when it has one. */
export type CallInput<O extends Operation> = Field<O, 'params'> & Field<O, 'query'> & Field<O, 'body'>;
export type CallOutput<O extends Operation> = z.output<O['response']>;

/** A non-2xx answer, with the parsed error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorResponse,
  ) {
    super(`${status} ${body.error}`);
    this.name = 'ApiError';
  }

  /** Each field problem of `fields` as `{path, message}`, in the order the server listed them. */
  get fieldErrors(): Array<{ path: string; message: string }> {
    return Object.entries(this.body.fields ?? {}).map(([path, message]) => ({ path, message }));
  }
}

export interface HttpClientOptions {
  /** e.g. `http://127.0.0.1:4400`; empty for same-origin requests from the web UI. */
  baseUrl: string;
  /** Defaults to the global `fetch`; any function with its shape (a wrapper that records or retries) fits. */
  fetch?: Fetch;
  headers?: Record<string, string>;
  /**
   * Told what a `/v1` answer says it ignored (`X-Mailyard-Ignored`: unknown fields and query
   * parameters, nulls for optional fields), when it ignored anything.
   */
  onIgnored?: (paths: string[], op: Operation) => void;
  /**
   * Told what a `/v1` answer says the real service would refuse (`X-Mailyard-Warning`: docs/warnings.md),
   * when it says anything. A throw here fails the call, though the request was done.
   */
  onWarning?: (warnings: string[], op: Operation) => void;
}

/** The response header naming what of a `/v1` request the real service would refuse (Mailyard took it). */
export const WARNING_HEADER = 'X-Mailyard-Warning';
/** Between two warnings of the header. */
export const WARNING_SEPARATOR = ' | ';

/** The header's warnings, one string each. */
export function parseWarningHeader(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(WARNING_SEPARATOR)
    .map((w) => w.trim())
    .filter((w) => w !== '');
}

/** The response header naming what a lenient `/v1` request had ignored. */
export const IGNORED_HEADER = 'X-Mailyard-Ignored';

/** `foo, to[0].extra` to `['foo', 'to[0].extra']`. */
export function parseIgnoredHeader(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** Builds a request path from an operation's template and its params. */
export function buildPath(template: string, params?: Record<string, unknown>, query?: Record<string, unknown>): string {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * The transport under both typed clients: builds the request from an operation, sends JSON, and
 * validates the answer against the operation's response schema (a mismatch is a server bug and throws).
 */
export class HttpClient {
  private readonly fetchImpl: Fetch;

  constructor(private readonly options: HttpClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  async call<O extends Operation>(op: O, input: CallInput<O>): Promise<CallOutput<O>> {
    const { params, query, body } = input as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers };
    let payload: string | undefined;
    // An operation with a body schema sends JSON; one without sends no body (the server refuses one),
    // but a mutating call still says JSON, which the control API takes from any client.
    if (op.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body ?? {});
    } else if (op.method !== 'GET') {
      headers['content-type'] = 'application/json';
    }
    const res = await this.fetchImpl(this.options.baseUrl + buildPath(op.path, params, query), {
      method: op.method,
      headers,
      body: payload,
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const parsed = AnyErrorResponse.safeParse(json);
      throw new ApiError(res.status, parsed.success ? parsed.data : { success: false, error: text || res.statusText });
    }
    const ignored = parseIgnoredHeader(res.headers.get(IGNORED_HEADER));
    if (ignored.length > 0) this.options.onIgnored?.(ignored, op);
    const warnings = parseWarningHeader(res.headers.get(WARNING_HEADER));
    if (warnings.length > 0) this.options.onWarning?.(warnings, op);
    return op.response.parse(json) as CallOutput<O>;
  }
}
