import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, LogController } from 'fastify';
import type { Logger } from 'pino';
import sjson from 'secure-json-parse';
import { ERROR_STATUS } from '../../../src-shared/errors';
import { controlOperations, documentedRoutes, serviceOperations } from '../../../src-shared/operations';
import { mailpitOperations, mailpitRoutes } from '../../../src-shared/operations/mailpit/mailpit';
import type { Health } from '../../../src-shared/schemas/emulator';
import type { EmulatorClock } from '../clock';
import type { DeliveryQueries } from '../dispatch/delivery-queries';
import type { Dispatcher } from '../dispatch/dispatcher';
import { appError } from '../error-catalogue';
import type { AppError } from '../errors';
import type { LiveBus } from '../live-bus';
import type { ScenarioService } from '../scenario/scenario.service';
import type { AccountsService } from '../services/accounts.service';
import type { CatchersService } from '../services/catchers/catchers.service';
import type { ChecksService } from '../services/checks/checks.service';
import type { ClockService } from '../services/clock.service';
import type { DomainsService } from '../services/domains/domains.service';
import type { EmailService } from '../services/email/email.service';
import type { MessagesService } from '../services/email/messages.service';
import type { TemplatesService } from '../services/email/templates.service';
import type { TrackingService } from '../services/email/tracking.service';
import type { EmailEventsService } from '../services/events/email-events.service';
import type { SuppressionsService } from '../services/events/suppressions.service';
import type { InboundService } from '../services/inbound/inbound.service';
import type { MailExport } from '../services/mail-files/mail-export';
import type { MailImport } from '../services/mail-files/mail-import';
import type { MailerTests } from '../services/mailers/mailer-tests';
import type { MailersService } from '../services/mailers/mailers.service';
import type { ChaosService } from '../services/mailpit/chaos';
import type { MailpitService } from '../services/mailpit/mailpit.service';
import type { OAuthService } from '../services/oauth/oauth.service';
import type { ReceiverCheckService } from '../services/receiver-check/receiver-check.service';
import type { ResetService } from '../services/reset.service';
import type { RetentionService } from '../services/retention/retention.service';
import type { SimulationRules } from '../services/simulation/rules.service';
import type { Simulator } from '../services/simulation/simulator';
import type { SnapshotService } from '../services/snapshot/snapshot.service';
import type { StatsService } from '../services/stats.service';
import type { WebhooksService } from '../services/webhooks.service';
import type { SmtpRelay } from '../smtp/relay';
import { controlAccess, controlKeyGuard, isLoopbackHost, sessionRoutes } from './control-auth';
import { errorBody, handleError, sendError } from './error-handler';
import { bearerAuth, controlGuard, refuseCrossSite } from './guards';
import { createRequestLeniency } from './leniency';
import { longPollOn } from './long-poll';
import { registerOperations, registerRoutes } from './operation-route';
import { catcherHandlers, catchRoutes } from './routes/catchers.routes';
import { chaosHandlers } from './routes/chaos.routes';
import { deliveryHandlers } from './routes/deliveries.routes';
import { domainControlHandlers, domainHandlers } from './routes/domains.routes';
import { emailHandlers } from './routes/email.routes';
import { emulatorHandlers } from './routes/emulator.routes';
import { inboundControlHandlers, inboundHandlers } from './routes/inbound.routes';
import { mailFileHandlers, mailFileRouteHandlers } from './routes/mail-files.routes';
import { mailerControlHandlers, mailerFileHandlers, mailerHandlers } from './routes/mailers.routes';
import { mailpitHandlers, mailpitRouteHandlers, plainTextErrors } from './routes/mailpit.routes';
import { messageCheckHandlers, messageFileHandlers } from './routes/message-files.routes';
import { messageHandlers } from './routes/messages.routes';
import { oauthRoutes } from './routes/oauth.routes';
import { openApiRoutes } from './routes/openapi.routes';
import { probeRoutes, type Readiness } from './routes/probe.routes';
import { receiverCheckHandlers } from './routes/receiver-checks.routes';
import { resetHandlers } from './routes/reset.routes';
import { scenarioFileHandlers, scenarioHandlers } from './routes/scenarios.routes';
import { simulationHandlers } from './routes/simulation.routes';
import { storeFileHandlers, storeHandlers } from './routes/store.routes';
import { streamHandlers } from './routes/stream.routes';
import { suppressionHandlers } from './routes/suppressions.routes';
import { trackingRoutes } from './routes/tracking.routes';
import { webhookHandlers } from './routes/webhooks.routes';
import { registerUi } from './ui';

/** The services the routes call: what the HTTP layer needs of the emulator, and nothing more. */
export interface HttpServices {
  accounts: AccountsService;
  webhooks: WebhooksService;
  email: EmailService;
  templates: TemplatesService;
  messages: MessagesService;
  /** Mailpit's API over the captured copies (`/api/v1`, `/view`). */
  mailpit: MailpitService;
  /** Mailpit's chaos triggers for the SMTP sink (`/api/v1/chaos`, `/emulator/chaos`). */
  chaos: ChaosService;
  checks: ChecksService;
  tracking: TrackingService;
  emailEvents: EmailEventsService;
  dispatcher: Dispatcher;
  /** The deliveries' read side: what the control API lists and shows. */
  deliveries: DeliveryQueries;
  simulator: Simulator;
  rules: SimulationRules;
  suppressions: SuppressionsService;
  clockControl: ClockService;
  domains: DomainsService;
  inbound: InboundService;
  mailers: MailersService;
  mailerTests: MailerTests;
  oauth: OAuthService;
  relay: Pick<SmtpRelay, 'release'>;
  stats: StatsService;
  reset: ResetService;
  scenarios: ScenarioService;
  receiverChecks: ReceiverCheckService;
  catchers: CatchersService;
  /** The store's size and retention limits. */
  retention: RetentionService;
  /** Snapshots of the whole state (the download). */
  snapshots: SnapshotService;
  /** Messages brought in from files (`mailyard import`). */
  mailImport: MailImport;
  mailExport: MailExport;
}

export interface HttpAppDeps {
  logger: Logger;
  version: string;
  host: string;
  /**
   * The key the control API (and so the web UI's data and the release path) requires: always when the
   * host is beyond loopback (see withControlKey), and when one was given on loopback too.
   */
  controlKey?: string;
  /** Wall time, for when a web UI login expires (default Date.now). */
  wallClock?: () => number;
  maxBodyBytes: number;
  /** `/v1` refuses unknown fields and null optionals (400) rather than ignoring them (leniency.ts). */
  strictRequests?: boolean;
  /** How long a slow client may hold a connection (docs/limits.md). */
  timeouts: HttpTimeouts;
  uiDir: string | undefined;
  services: HttpServices;
  clock: EmulatorClock;
  live: LiveBus;
  health: () => Health;
  /** What `/readyz` answers (`/livez` answers while the listener does). */
  readiness: () => Readiness;
}

export interface HttpTimeouts {
  /** The headers of a request must arrive within this long (a connection that sends nothing too). */
  headersMs: number;
  /** A whole request, headers and body, must arrive within this long. */
  requestMs: number;
  /** An idle keep-alive connection is closed this long after its last answer. */
  keepAliveMs: number;
  /** A connection with no byte read or written for this long is closed. */
  idleMs: number;
}

/** How long after its connection closes a socket that was answered an error may linger (the client reads the answer first). */
const ERROR_LINGER_MS = 1000;

/** Answers a connection whose request cannot go on with the API's error body, then closes it. */
function answerAndClose(socket: Duplex, error: AppError): void {
  const status = ERROR_STATUS[error.code];
  const body = JSON.stringify(errorBody(error.message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  // Ended, not destroyed: a client still sending its body reads the answer rather than a reset;
  // one that never closes its side is cut off shortly after.
  setTimeout(() => socket.destroy(), ERROR_LINGER_MS).unref();
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The longest path parameter the router matches (fastify's default of 100 is shorter than a domain name). */
export const MAX_PARAM_LENGTH = 1024;

/** Paths that belong to an API: an unknown one is a JSON 404, never the UI page. */
const API_PREFIXES = ['/v1', '/emulator', '/t', '/oauth', '/openapi.json', '/catch', '/api', '/view'];

/** What Mailpit answers for a path none of its routes takes (`/view/{id}.html%00`, `/api/v1/nothing`). */
const MAILPIT_NOT_FOUND = '404 page not found\n';
const isMailpitPath = (url: string) => /^\/(api|view)\//.test(url);

function isApiPath(url: string): boolean {
  const path = url.split('?')[0]!;
  return API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * fastify's JSON-schema compilers (ajv, fast-json-stringify) are loaded when an app is made unless it
 * brings its own: no route here has a JSON schema (requests are checked with the operation table's
 * zod schemas), so these stand in and the start does not load them. A route given one fails at start.
 */
const noJsonSchemas = () => () => {
  throw new Error("routes take no JSON schema here: requests are checked with the operation table's zod schemas");
};

/** The one HTTP listener's routes, hooks and error handling; the caller decides where it listens. */
export async function buildHttpApp(deps: HttpAppDeps): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = deps.logger.child({ component: 'http' });
  if (!isLoopbackHost(deps.host) && deps.controlKey === undefined) {
    throw new Error(`listening on ${deps.host} (beyond loopback) needs a control key: none was given`);
  }
  const access = controlAccess(deps.controlKey, { now: deps.wallClock, log: logger, beyondLoopback: !isLoopbackHost(deps.host) });
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.maxBodyBytes,
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
    // Slow clients cannot hold a connection: headers, whole request, idle keep-alive and a silent
    // socket are each bounded. Node checks the first two every `connectionsCheckingInterval`.
    requestTimeout: deps.timeouts.requestMs,
    keepAliveTimeout: deps.timeouts.keepAliveMs,
    connectionTimeout: deps.timeouts.idleMs,
    http: {
      headersTimeout: deps.timeouts.headersMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(deps.timeouts.headersMs / 4))),
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A path parameter may be a domain name of 253 characters, percent-encoded when it is an IDN.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors the router raises before any route runs (a path with malformed percent-encoding) get the
    // API's error body too, not fastify's own.
    frameworkErrors: (error, _request, reply) => {
      const ours =
        error.code === 'FST_ERR_BAD_URL'
          ? appError('badUrlEncoding')
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? appError('uriTooLong', { max: MAX_PARAM_LENGTH })
            : undefined;
      if (ours) return void sendError(reply as FastifyReply, ours);
      void (reply as FastifyReply).status(error.statusCode && error.statusCode < 500 ? error.statusCode : 400).send(errorBody(error.message));
    },
    // Requests the HTTP parser cannot read, and requests that do not arrive in time, still get the
    // error shape of the API (unless an answer has begun: then the connection is only closed).
    clientErrorHandler: (err, socket) => {
      const answer = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
      if (!socket.writable || answer?.headersSent) return socket.destroy(err);
      const code = (err as { code?: string }).code;
      if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        // With an answer under way the headers are in: it is the body that is late.
        return answerAndClose(
          socket,
          answer ? appError('bodyLate', { limit: seconds(deps.timeouts.requestMs) }) : appError('headersLate', { limit: seconds(deps.timeouts.headersMs) }),
        );
      }
      if (code === 'HPE_HEADER_OVERFLOW') return answerAndClose(socket, appError('headersTooLarge'));
      answerAndClose(socket, appError('notHttp'));
    },
  });

  // JSON is the only body type. Empty bodies are `undefined` (the route says whether it needs one);
  // `__proto__` and `constructor.prototype` keys are refused (prototype pollution).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, sjson.parse(text, { protoAction: 'error', constructorAction: 'error' }));
    } catch (err) {
      const reason = (err as Error).message;
      done(/forbidden (prototype|constructor) property/i.test(reason) ? appError('forbiddenJsonKeys') : appError('invalidJsonBody', { reason }), undefined);
    }
  });

  app.setErrorHandler(handleError);
  app.addHook('onClose', async () => access.close());
  app.decorate('requestLeniency', createRequestLeniency(deps.strictRequests ?? false));

  app.addHook('onRequest', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });

  const page = await registerUi(app, deps.uiDir);
  app.setNotFoundHandler((request, reply) => {
    if (request.method === 'GET' && !isApiPath(request.url) && (request.headers.accept ?? '').includes('text/html')) {
      return page(reply);
    }
    // Mailpit's paths answer as Mailpit (Go's router) does: a plain-text 404, which its clients read.
    if (isMailpitPath(request.url)) return reply.code(404).type('text/plain; charset=utf-8').send(MAILPIT_NOT_FOUND);
    return sendError(reply, appError('routeNotFound', { method: request.method, path: request.url.split('?')[0]! }));
  });

  openApiRoutes(app, { version: deps.version });
  // The probes: no key, any Host, nothing private (a container's health check reaches them from outside loopback).
  probeRoutes(app, { readiness: deps.readiness });

  const services = deps.services;
  await app.register(async (v1) => {
    v1.addHook('onRequest', refuseCrossSite);
    v1.addHook('onRequest', bearerAuth(services.accounts));
    // Every operation of the table has its handler here, and only those: the compiler checks both.
    registerOperations(v1, serviceOperations, {
      ...webhookHandlers(services.webhooks),
      ...emailHandlers(services.email, services.templates, services.suppressions, () => services.messages.ruleTagsApplied()),
      ...domainHandlers(services.domains),
      ...inboundHandlers(services.inbound),
      ...mailerHandlers(services.mailers, services.oauth),
    });
  });

  // Tracked mail's links: public (a mail client or browser follows them), no API key, no Host check.
  await app.register(async (t) => trackingRoutes(t, deps.services.tracking));
  // The OAuth consent page: a browser opens it and posts its form, so like /t it has no API key or JSON guard.
  await app.register(async (o) => oauthRoutes(o, deps.services.oauth));
  // Catchers' receiving end: public like /t (webhooks reach it from anywhere); it records and answers only.
  await app.register(async (c) => catchRoutes(c, deps.services.catchers));

  await app.register(async (control) => {
    // A page of another site first (it learns nothing, not even whether it holds a login); then the
    // key: without it a request is refused (401) whatever its Host.
    control.addHook('onRequest', refuseCrossSite);
    control.addHook('onRequest', controlKeyGuard(access));
    control.addHook('onRequest', controlGuard(deps.host));
    sessionRoutes(control, access);
    const longPoll = longPollOn(control);
    registerOperations(control, controlOperations, {
      ...emulatorHandlers({ accounts: services.accounts, health: deps.health, reset: services.reset }),
      ...resetHandlers(services.reset),
      ...deliveryHandlers({ dispatcher: services.dispatcher, deliveries: services.deliveries, emailEvents: services.emailEvents, longPoll }),
      ...simulationHandlers(services.rules, services.clockControl),
      ...chaosHandlers(services.chaos),
      ...suppressionHandlers(services.suppressions, services.accounts),
      ...scenarioHandlers(services.scenarios),
      ...messageHandlers({ messages: services.messages, relay: services.relay, stats: services.stats, accounts: services.accounts, longPoll }),
      ...messageCheckHandlers(services.checks),
      ...inboundControlHandlers(services.inbound, services.accounts),
      ...domainControlHandlers(services.domains),
      ...mailerControlHandlers(services.mailers, services.mailerTests),
      ...receiverCheckHandlers(services.receiverChecks),
      ...catcherHandlers(services.catchers),
      ...storeHandlers(services.retention),
      ...mailFileHandlers(services.mailImport),
    });
    registerRoutes(control, documentedRoutes, {
      ...messageFileHandlers(services.messages),
      ...mailerFileHandlers(services.mailers),
      ...scenarioFileHandlers(services.scenarios),
      ...storeFileHandlers(services.snapshots),
      ...mailFileRouteHandlers(services.mailExport),
      ...streamHandlers(control, deps.live, (request) => access.allows(request)),
    });
  });

  // Mailpit's API (docs/mailpit.md): the control API's rules (the key beyond loopback, the Host and
  // JSON checks), Mailpit's paths, shapes and plain-text errors.
  await app.register(async (mailpit) => {
    mailpit.addHook('onRequest', refuseCrossSite);
    mailpit.addHook('onRequest', controlKeyGuard(access));
    mailpit.addHook('onRequest', controlGuard(deps.host));
    plainTextErrors(mailpit);
    registerOperations(mailpit, mailpitOperations, mailpitHandlers(services.mailpit, services.chaos));
    registerRoutes(mailpit, mailpitRoutes, mailpitRouteHandlers(services.mailpit));
  });

  return app;
}
