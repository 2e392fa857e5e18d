import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { appError } from '../error-catalogue';
import { ControlSessions } from './control-sessions';
import { sendError } from './error-handler';
import { KeyGuesses, type KeyGuessLimits, type KeyThrottled } from './key-guesses';

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
  /** Whether the key is required because the listener is reachable from the network (else it was given on loopback). */
  readonly beyondLoopback: boolean;
  /**
   * Whether a request carries the key (a bearer header, or basic auth with the key as password) or a
   * login that holds; true when none is required. Counts nothing: for a request already let in.
   */
  allows(request: FastifyRequest): boolean;
  /** As `allows`, for a request arriving: a wrong key counts as a guess, and none is checked while guesses are throttled. */
  check(request: FastifyRequest): KeyCheck;
}

/** A request's key: let in, none or a wrong one, or not checked (too many wrong keys lately). */
export type KeyCheck = 'allowed' | 'missing' | 'wrong' | KeyThrottled;

export interface ControlAccessOptions {
  /** Wall time: logins' expiry and the window of wrong keys (tests move it). */
  now?: () => number;
  /** Where the summary of wrong keys goes. */
  log: FastifyBaseLogger;
  /** Whether the listener is reachable from the network (the words of a refusal say why a key is needed). */
  beyondLoopback: boolean;
  guessLimits?: KeyGuessLimits;
}

/**
 * The control key's checks, and the web UI's logins (ControlSessions): the login cookie carries a
 * random session id, never the key nor anything made from it. Wrong keys are throttled (KeyGuesses).
 */
export function controlAccess(
  controlKey: string | undefined,
  options: ControlAccessOptions,
): ControlAccess & {
  login(reply: FastifyReply, request: FastifyRequest, key: unknown): 'allowed' | 'wrong' | KeyThrottled;
  logout(reply: FastifyReply, request: FastifyRequest): void;
  close(): void;
} {
  const now = options.now ?? Date.now;
  const sessions = new ControlSessions(now);
  const guesses = new KeyGuesses(now, options.log, options.guessLimits);
  // A session cookie besides: it also ends when the browser closes.
  const cookie = (request: FastifyRequest, value: string, maxAge?: number) =>
    `${cookieName(request)}=${value}; Path=/; HttpOnly; SameSite=Strict${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`;
  const sessionOf = (request: FastifyRequest) => cookieOf(request, cookieName(request));
  const keyOf = (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    return BEARER.exec(header)?.[1] ?? basicPassword(header);
  };
  const holdsLogin = (request: FastifyRequest) => {
    const id = sessionOf(request);
    return id !== undefined && sessions.holds(id);
  };
  /** The key given, checked unless guesses are throttled; a wrong one counted. */
  const judge = (request: FastifyRequest, given: string): 'allowed' | 'wrong' | KeyThrottled => {
    const throttled = guesses.throttled(request.ip);
    if (throttled) return throttled;
    if (sameSecret(given, controlKey!)) return 'allowed';
    guesses.wrong(request.ip);
    return 'wrong';
  };
  return {
    required: controlKey !== undefined,
    beyondLoopback: options.beyondLoopback,
    allows(request) {
      if (controlKey === undefined) return true;
      const given = keyOf(request);
      return (given !== undefined && sameSecret(given, controlKey)) || holdsLogin(request);
    },
    check(request) {
      if (controlKey === undefined) return 'allowed';
      // A login that holds is no guess: it goes on while keys are throttled.
      if (holdsLogin(request)) return 'allowed';
      const given = keyOf(request);
      return given === undefined ? 'missing' : judge(request, given);
    },
    login(reply, request, key) {
      if (controlKey === undefined) return 'allowed';
      const judged = typeof key === 'string' ? judge(request, key) : 'wrong';
      if (judged !== 'allowed') return judged;
      // A new id at each login; the browser's previous one ends.
      const previous = sessionOf(request);
      if (previous !== undefined) sessions.end(previous);
      reply.header('set-cookie', cookie(request, sessions.begin()));
      return 'allowed';
    },
    logout(reply, request) {
      const id = sessionOf(request);
      if (id !== undefined) sessions.end(id);
      reply.header('set-cookie', cookie(request, '', 0));
    },
    close: () => guesses.close(),
  };
}

/** Paths of the control API that answer without the key: the web UI's login. */
const OPEN_PATHS = new Set(['/emulator/session', '/emulator/login', '/emulator/logout']);

/** 429 with Retry-After in whole seconds: no key is checked until then. */
function sendThrottled(reply: FastifyReply, throttled: KeyThrottled) {
  const seconds = Math.max(1, Math.ceil(throttled.retryAfterMs / 1000));
  const { perAddress, inAll, windowMs } = throttled.limits;
  return sendError(
    reply.header('retry-after', String(seconds)),
    appError('controlKeyGuesses', {
      count: throttled.by === 'address' ? perAddress : inAll,
      whose: throttled.by === 'address' ? 'from this address' : 'from all addresses together',
      window: windowMs / 1000,
      seconds,
    }),
  );
}

/** The 401 of a request without the right key, in words that say why this listener wants one. */
function sendKeyRequired(reply: FastifyReply, access: ControlAccess) {
  return sendError(
    reply.header('www-authenticate', 'Bearer realm="mailyard control"'),
    appError(access.beyondLoopback ? 'controlKeyRequired' : 'controlKeyGivenRequired'),
  );
}

/** The control API's key check (an `onRequest` hook, before the body is read): 401 in the API's error shape without it, 429 while wrong keys are throttled. */
export function controlKeyGuard(access: ControlAccess) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!access.required || OPEN_PATHS.has(request.url.split('?')[0]!)) return;
    const checked = access.check(request);
    if (checked === 'allowed') return;
    if (typeof checked === 'object') return sendThrottled(reply, checked);
    return sendKeyRequired(reply, access);
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
  app.get('/emulator/session', (request, reply) => {
    // A key sent here is checked as anywhere else (counted when wrong), or the answer would be a free oracle.
    const checked = access.check(request);
    if (typeof checked === 'object') return sendThrottled(reply, checked);
    return reply.header('cache-control', 'no-store').send({
      success: true,
      message: 'Session',
      data: { key_required: access.required, authenticated: checked === 'allowed' },
    });
  });
  app.post('/emulator/login', (request, reply) => {
    const parsed = LoginBody.safeParse(request.body ?? {});
    if (!parsed.success) return sendError(reply, appError('loginBodyInvalid', { problem: parsed.error.issues[0]!.message }));
    const judged = access.login(reply, request, parsed.data.key);
    if (typeof judged === 'object') return sendThrottled(reply, judged);
    // Logged by the throttle: the first wrong key of an address, then a summary.
    if (judged === 'wrong') return sendError(reply, appError('controlKeyWrong'));
    return reply.send({ success: true, message: 'Logged in', data: { key_required: access.required, authenticated: true } });
  });
  app.post('/emulator/logout', (request, reply) => {
    access.logout(reply, request);
    return reply.send({ success: true, message: 'Logged out', data: { key_required: access.required, authenticated: !access.required } });
  });
}
