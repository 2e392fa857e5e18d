import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { appError } from '../error-catalogue';
import type { Account, AccountsService } from '../services/accounts.service';
import { isLoopbackHost } from './control-auth';
import { sendError, shapeOf } from './error-handler';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account of a `/v1` request. */
    account?: Account;
  }
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * The API key of a request: `Authorization: Bearer <key>`, or `X-API-Key: <key>` (which the real service
 * also takes). Given both, they must name the same key: a request is never authenticated by one while
 * the other is wrong.
 */
export function apiKeyOf(headers: FastifyRequest['headers']): string | undefined {
  const authorization = headers.authorization;
  const bearer = authorization === undefined ? undefined : (BEARER.exec(authorization)?.[1] ?? '');
  const header = headers['x-api-key'];
  const xApiKey = Array.isArray(header) ? '' : header?.trim();
  if (bearer !== undefined && xApiKey !== undefined && bearer !== xApiKey) return undefined;
  return bearer || xApiKey || undefined;
}

/** `Authorization: Bearer <API key>` (or `X-API-Key`) on every `/v1` request, checked before the body is read. */
export function bearerAuth(accounts: AccountsService) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const key = apiKeyOf(request.headers);
    const account = key === undefined ? undefined : accounts.authenticate(key);
    if (!account) {
      return sendError(reply.header('www-authenticate', 'Bearer realm="mailyard"'), appError('unauthorized'), shapeOf(request));
    }
    request.account = account;
  };
}

/** The host name of a Host header, without port or IPv6 brackets, lower-cased. */
export function hostName(header: string | undefined): string {
  if (!header) return '';
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return header.replace(/:\d+$/, '').toLowerCase();
}

function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 0) return false;
  return name === '::1' || /^127\./.test(name) || name === '::ffff:127.0.0.1';
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The site of a browser request sent by a page that is not one of the emulator's own, if it is one;
 * undefined otherwise. `Sec-Fetch-Site` says it where the browser sends it (every current one): a page
 * cannot forge it, and it holds behind a proxy that rewrites Host. Without it (an older browser) a
 * foreign `Origin` says it. Programs (curl, SDKs, node's fetch) send neither: never foreign.
 */
function foreignOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? undefined : (origin ?? site);
  if (origin === undefined) return undefined;
  try {
    if (new URL(origin).host.toLowerCase() === (request.headers.host ?? '').toLowerCase()) return undefined;
  } catch {
    // `null` (a sandboxed frame, a file) or garbage: foreign.
  }
  return origin;
}

/**
 * `/v1` and `/emulator` answer the emulator's own pages and programs, never a page of another site,
 * whatever the method: a page elsewhere can send a GET without CORS and read nothing of the answer,
 * yet learn from its timing (a long poll that answers at once on a match, a 401 against a 200) what
 * captured mail holds. So such a request is refused here, first, before any key is checked or any work
 * or wait begins; and every answer is `Cross-Origin-Resource-Policy: same-origin`, so no other page
 * can embed one. `/t`, `/oauth`, `/openapi.json` and the UI's files are not behind it: mail and other
 * sites open them.
 */
export async function refuseCrossSite(request: FastifyRequest, reply: FastifyReply) {
  reply.header('cross-origin-resource-policy', 'same-origin');
  const origin = foreignOrigin(request);
  if (origin === undefined) return;
  return sendError(reply, appError('crossSiteRequest', { origin }), shapeOf(request));
}

/** Whether a request carries a body, by its headers (the body is not read yet). */
function hasBody(headers: FastifyRequest['headers']): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length.trim() !== '0';
}

/**
 * On a loopback listener the control API is unauthenticated, so it answers only requests addressed to a
 * loopback name or the configured host (no DNS rebinding); and mutating requests with a body must be
 * JSON (a form of another site is refused by refuseCrossSite, before this, and could not send JSON
 * without a CORS preflight). A mutating request without a body (`curl -X POST .../emulator/reset`)
 * needs no Content-Type.
 */
export function controlGuard(configuredHost: string) {
  const allowed = new Set([configuredHost.toLowerCase()]);
  // Beyond loopback the control key guards the API (controlKeyGuard, before this): clients on the
  // network name the machine as they know it, so any Host is taken.
  const anyHost = !isLoopbackHost(configuredHost);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const name = hostName(request.headers.host);
    if (!anyHost && !isLoopbackName(name) && !allowed.has(name)) {
      return sendError(reply, appError('foreignHost', { host: name }));
    }
    if (MUTATING.has(request.method)) {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type === '' && !hasBody(request.headers)) return;
      if (type !== 'application/json') return sendError(reply, appError('unsupportedMediaType'));
    }
  };
}
