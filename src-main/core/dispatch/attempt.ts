import { Agent, type Dispatcher } from 'undici';
import type { ATTEMPT_ERROR_CODES } from '../../../src-shared/schemas/dispatch';
import type { DeliveryRow } from '../store/deliveries.repo';
import type { DeliveryTarget } from './delivery-targets';
import { signWebhook } from './sign';
import { type CheckedResolve, strictConnector } from './strict-connector';

export type AttemptErrorCode = (typeof ATTEMPT_ERROR_CODES)[number];

export interface HttpAttemptRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface HttpAttemptResult {
  durationMs: number;
  response: { status: number; headers: Record<string, string>; body: string; truncated: boolean } | null;
  error: { code: AttemptErrorCode; message: string } | null;
  succeeded: boolean;
}

export interface AttemptOptions {
  agent: Agent;
  timeoutMs: number;
  responseBodyLimit: number;
  /** True while the dispatcher cuts attempts short on shutdown (it destroys the agent). */
  stopping: () => boolean;
  /** Parsed URLs by their text, kept by the caller across attempts (a few targets, many attempts). */
  urls?: Map<string, URL>;
}

/**
 * The request of one attempt of a delivery to its target as it is now: the payload, the Standard
 * Webhooks headers (signed with each of the account's `secrets`: none, or two during a rotation),
 * then the target's own headers. Signed at the moment it is built: every attempt, resend and copied
 * request carries a fresh timestamp. `timestamp` (unix seconds) is now unless given (a receiver check
 * sends a stale one on purpose).
 */
export function attemptRequest(
  row: Pick<DeliveryRow, 'id' | 'payload'> & { webhook_id?: string | null },
  target: DeliveryTarget,
  userAgent: string,
  secrets: readonly string[],
  // The receiver checks this against its own clock, so it is wall time, not emulated time.
  timestamp = Math.floor(Date.now() / 1000),
): HttpAttemptRequest {
  // One event, one webhook-id: a duplicate of a delivery carries its original's.
  const webhookId = row.webhook_id ?? row.id;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
  };
  if (secrets.length > 0) headers['webhook-signature'] = signWebhook(secrets, webhookId, timestamp, row.payload);
  for (const [name, value] of Object.entries(target.headers)) headers[name.toLowerCase()] = value;
  return { method: target.method, url: target.url, headers, body: row.payload };
}

/** How attempts connect: TLS verification (strict mode), the connect time-out, strict mode's address check. */
export interface AttemptAgentOptions {
  verifyTls: boolean;
  timeoutMs: number;
  /** Strict mode: the checked addresses a host may be connected to; absent, connect to whatever the host is. */
  resolve?: CheckedResolve;
}

/**
 * The undici agent attempts are sent with. No per-origin cap: whoever sends bounds what is in flight
 * (the dispatcher's per-target slots), so a target's attempts never queue behind another's at one origin.
 */
export function attemptAgent(options: AttemptAgentOptions): Agent {
  const connect = { rejectUnauthorized: options.verifyTls, timeout: options.timeoutMs };
  return new Agent({ keepAliveTimeout: 4_000, connections: null, connect: options.resolve ? strictConnector(connect, options.resolve) : connect });
}

/** Parses `text`, from `cache` when it was parsed before; the cache is emptied past 256 entries. */
function parseUrl(text: string, cache: Map<string, URL> | undefined): URL {
  let url = cache?.get(text);
  if (url === undefined) {
    url = new URL(text);
    if (cache) {
      if (cache.size >= 256) cache.clear();
      cache.set(text, url);
    }
  }
  return url;
}

/** The body of a response did not arrive within what was left of the time-out. */
class AttemptTimeout extends Error {
  override name = 'TimeoutError';
}

function headerRecord(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function errorCodeOf(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code ?? e.cause?.code;
}

/** A failed attempt's reason, classified and in words. */
export function classifyError(err: unknown, url: URL, timeoutMs: number, stopping: boolean): { code: AttemptErrorCode; message: string } {
  const code = errorCodeOf(err);
  const where = url.host;
  const name = (err as Error).name;
  if (stopping && !(err instanceof AttemptTimeout)) return { code: 'interrupted', message: 'the emulator stopped during this attempt' };
  // Strict mode refused the address before connecting (net/strict-addresses.ts); the message says why.
  if (name === 'StrictAddressError') return { code: 'refused', message: (err as Error).message };
  if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return { code: 'timeout', message: `no complete response from ${where} within ${timeoutMs} ms` };
  }
  if (code === 'ECONNREFUSED') return { code: 'refused', message: `connection refused by ${where}` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') return { code: 'dns', message: `host ${url.hostname} not found` };
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') {
    return { code: 'reset', message: `connection to ${where} closed before a complete response` };
  }
  if (code && (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.includes('CERT') || code.includes('SIGNATURE'))) {
    return { code: 'tls', message: `TLS with ${where} failed: ${(err as Error).message}` };
  }
  return { code: 'network', message: `${code ? `${code}: ` : ''}${(err as Error).message}` };
}

/**
 * One HTTP attempt: sends the request, reads at most `responseBodyLimit` bytes of the answer, and
 * classifies the outcome. Only a 2xx answer succeeds; a redirect is not followed and fails.
 *
 * Uses undici's dispatch interface directly (a handler object, no response stream, no async
 * iterator): the same connection pool and time-outs as `request`, for about two thirds of its CPU.
 */
export function sendAttempt(req: HttpAttemptRequest, options: AttemptOptions): Promise<HttpAttemptResult> {
  const started = performance.now();
  let url: URL;
  try {
    url = parseUrl(req.url, options.urls);
  } catch (err) {
    return Promise.resolve({ durationMs: 0, response: null, error: classifyError(err, new URL('http://invalid'), options.timeoutMs, false), succeeded: false });
  }
  return new Promise<HttpAttemptResult>((resolve) => {
    // The time-out is wall time by nature (a network wait, not scheduled work). undici bounds the
    // wait for the response head; a timer bounds the body to what is left of it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    let status = 0;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const response = { status, headers, body: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'), truncated };
      const succeeded = status >= 200 && status < 300;
      const error =
        status >= 300 && status < 400 ? { code: 'redirect' as const, message: `redirects are not followed (Location: ${headers.location ?? 'none'})` } : null;
      resolve({ durationMs: Math.round(performance.now() - started), response, error, succeeded });
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        durationMs: Math.round(performance.now() - started),
        response: null,
        error: classifyError(err, url, options.timeoutMs, options.stopping()),
        succeeded: false,
      });
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart() {},
      onResponseStart(controller, statusCode, responseHeaders) {
        // 1xx informational answers come before the real one.
        if (statusCode < 200) return;
        status = statusCode;
        headers = headerRecord(responseHeaders);
        const left = Math.max(0, options.timeoutMs - (performance.now() - started));
        timer = setTimeout(() => {
          fail(new AttemptTimeout());
          controller.abort(new AttemptTimeout());
        }, left);
      },
      onResponseData(controller, chunk) {
        if (settled || status === 0) return;
        const room = options.responseBodyLimit - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          finish(true);
          controller.abort(new Error('response body over the limit; the rest is not read'));
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      },
      onResponseEnd() {
        finish(false);
      },
      onResponseError(_controller, err) {
        fail(err);
      },
    };
    try {
      options.agent.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: req.method as Dispatcher.HttpMethod,
          headers: req.headers,
          body: req.body,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        },
        handler,
      );
    } catch (err) {
      fail(err);
    }
  });
}
