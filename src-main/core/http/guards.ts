import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGES } from '../../../src-shared/errors';
import type { Account, AccountsService } from '../services/accounts.service';
import { errorBody, shapeOf } from './error-handler';

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
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer realm="mailyard"')
        .send(errorBody(MESSAGES.unauthorized, undefined, undefined, shapeOf(request)));
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
 * The control API is unauthenticated, so it answers only requests addressed to a loopback name or the
 * configured host (no DNS rebinding), and mutating requests must be JSON (no cross-site form posts).
 */
export function controlGuard(configuredHost: string) {
  const allowed = new Set([configuredHost.toLowerCase()]);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const name = hostName(request.headers.host);
    if (!isLoopbackName(name) && !allowed.has(name)) {
      return reply.status(403).send(errorBody(`Forbidden: the control API answers only loopback hosts, not "${name}"`));
    }
    if (MUTATING.has(request.method)) {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') return reply.status(415).send(errorBody(MESSAGES.unsupportedMediaType));
    }
  };
}
