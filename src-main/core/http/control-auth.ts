import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { ControlSessions } from './control-sessions';
import { appError } from '../error-catalogue';
import { sendError } from './error-handler';

/**
 * Whether a listen address is reachable from this machine only: a loopback address or `localhost`.
 * Anything else (`0.0.0.0`, `::`, a LAN address, a host name) is reachable from the network.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(name)) return false;
  const address = ipaddr.process(name);
  return address.range() === 'loopback';
}

/** A new control key: 24 random bytes, base64url (32 characters). */
export function generateControlKey(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The config with the control key it runs with: a listener reachable from the network gets a random
 * key when none was given (the CLI prints it); a loopback one keeps what was given (none: no key).
 */
export function withControlKey<C extends { host: string; controlKey?: string }>(config: C): C {
  if (config.controlKey !== undefined || isLoopbackHost(config.host)) return config;
  return { ...config, controlKey: generateControlKey() };
}

/**
 * The HttpOnly cookie the web UI's login sets; named by the listener's port, so two Mailyards on one
 * host keep theirs. Cookies are not isolated by port: every server on this host name receives it.
 */
function cookieName(request: FastifyRequest): string {
  return `mailyard_control_${request.socket.localPort ?? 0}`;
}

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const BASIC = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i;

/** The password of a basic-auth header (Mailpit's clients send the key so: any user name, the key as password). */
function basicPassword(header: string): string | undefined {
  const encoded = BASIC.exec(header)?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** Who may use the control API and the web UI's data: everyone on loopback, else the holder of the key. */
export interface ControlAccess {
  /** Whether requests must carry the key (a listener beyond loopback, or a key given explicitly). */
  readonly required: boolean;
  /** Whether a request carries the key (a bearer header, or basic auth with the key as password) or a login that holds; true when none is required. */
  allows(request: FastifyRequest): boolean;
}

/**
 * The control key's checks, and the web UI's logins (ControlSessions): the login cookie carries a
 * random session id, never the key nor anything made from it. `now` is wall time (tests move it).
 */
export function controlAccess(
  controlKey: string | undefined,
  now: () => number = Date.now,
): ControlAccess & { login(reply: FastifyReply, request: FastifyRequest, key: unknown): boolean; logout(reply: FastifyReply, request: FastifyRequest): void } {
  const sessions = new ControlSessions(now);
  // A session cookie besides: it also ends when the browser closes.
  const cookie = (request: FastifyRequest, value: string, maxAge?: number) =>
    `${cookieName(request)}=${value}; Path=/; HttpOnly; SameSite=Strict${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`;
  const sessionOf = (request: FastifyRequest) => cookieOf(request, cookieName(request));
  return {
    required: controlKey !== undefined,
    allows(request) {
      if (controlKey === undefined) return true;
      const header = request.headers.authorization ?? '';
      const given = BEARER.exec(header)?.[1] ?? basicPassword(header);
      if (given !== undefined && sameSecret(given, controlKey)) return true;
      const id = sessionOf(request);
      return id !== undefined && sessions.holds(id);
    },
    login(reply, request, key) {
      if (controlKey === undefined) return true;
      if (typeof key !== 'string' || !sameSecret(key, controlKey)) return false;
      // A new id at each login; the browser's previous one ends.
      const previous = sessionOf(request);
      if (previous !== undefined) sessions.end(previous);
      reply.header('set-cookie', cookie(request, sessions.begin()));
      return true;
    },
    logout(reply, request) {
      const id = sessionOf(request);
      if (id !== undefined) sessions.end(id);
      reply.header('set-cookie', cookie(request, '', 0));
    },
  };
}

/** Paths of the control API that answer without the key: the web UI's login. */
const OPEN_PATHS = new Set(['/emulator/session', '/emulator/login', '/emulator/logout']);

/** The control API's key check (an `onRequest` hook, before the body is read): 401 in the API's error shape without it. */
export function controlKeyGuard(access: ControlAccess) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!access.required || OPEN_PATHS.has(request.url.split('?')[0]!) || access.allows(request)) return;
    return sendError(reply.header('www-authenticate', 'Bearer realm="mailyard control"'), appError('controlKeyRequired'));
  };
}

const LoginBody = z.strictObject({ key: z.string({ error: 'key must be a string: the control key' }).min(1, 'key must not be empty') });

/**
 * The web UI's login: `GET /emulator/session` says whether a key is needed and whether this browser
 * has logged in; `POST /emulator/login {key}` begins a login and sets its HttpOnly, SameSite=Strict
 * cookie; `POST /emulator/logout` ends the login and clears the cookie. Registered inside the control
 * API (its Host and JSON checks apply).
 */
export function sessionRoutes(app: FastifyInstance, access: ReturnType<typeof controlAccess>): void {
  app.get('/emulator/session', (request, reply) =>
    reply.header('cache-control', 'no-store').send({
      success: true,
      message: 'Session',
      data: { key_required: access.required, authenticated: access.allows(request) },
    }),
  );
  app.post('/emulator/login', (request, reply) => {
    const parsed = LoginBody.safeParse(request.body ?? {});
    if (!parsed.success) return sendError(reply, appError('loginBodyInvalid', { problem: parsed.error.issues[0]!.message }));
    if (!access.login(reply, request, parsed.data.key)) {
      request.log.warn({ remote: request.ip }, 'web UI login refused: not the control key');
      return sendError(reply, appError('controlKeyWrong'));
    }
    return reply.send({ success: true, message: 'Logged in', data: { key_required: access.required, authenticated: true } });
  });
  app.post('/emulator/logout', (request, reply) => {
    access.logout(reply, request);
    return reply.send({ success: true, message: 'Logged out', data: { key_required: access.required, authenticated: !access.required } });
  });
}
