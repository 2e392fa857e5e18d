import { join } from 'node:path';
import { Resolver } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { version } from '../../package.json';
import { SEND_LIMITS } from '../../src-shared/schemas/email';
import type { Health } from '../../src-shared/schemas/emulator';
import { EmulatorClock, isoTimestamp } from './clock';
import { defaultDataDir, EmulatorConfigSchema, type EmulatorConfig, type EmulatorConfigInput } from './config';
import { DeliveryTargets } from './dispatch/delivery-targets';
import { Dispatcher } from './dispatch/dispatcher';
import { LiveBus } from './live-bus';
import { buildHttpApp } from './http/app';
import { createLogger } from './logger';
import { AccountsService, type Account } from './services/accounts.service';
import type { DnsResolver } from './services/domains/dns-records';
import { DomainsService } from './services/domains/domains.service';
import { EmailService } from './services/email/email.service';
import { MessageLog } from './services/email/message-log';
import { senderPolicy } from './services/email/sender-policy';
import { TemplatesService } from './services/email/templates.service';
import { MessagesService, toSummary } from './services/email/messages.service';
import { TrackingService } from './services/email/tracking.service';
import { EmailEventsService, WEBHOOK_TARGET } from './services/email-events.service';
import { INBOUND_DOMAIN_TARGET, INBOUND_USERNAME_TARGET } from './services/inbound/inbound-posts';
import { InboundService } from './services/inbound/inbound.service';
import { ImapConnector } from './imap/imap-connector';
import { IMAP_WEBHOOK_TARGET, MailersService } from './services/mailers/mailers.service';
import { fileKeyStore, memoryKeyStore, SecretBox, type SecretKeyStore } from './services/mailers/secret-box';
import { checkSmtpLogin } from './smtp/connection';
import { SmtpRelay } from './smtp/relay';
import { OAuthService } from './services/oauth/oauth.service';
import { checkServerHost, checkUrl } from './services/url-check';
import { checkedAddresses, serverAddressPolicy } from './services/strict-addresses';
import { MailIntake } from './smtp/mail-intake';
import { SmtpSink } from './smtp/smtp-sink';
import { loadTlsIdentity } from './smtp/tls-certificate';
import { Simulator } from './services/simulation/simulator';
import { StatsService } from './services/stats.service';
import { ResetService } from './services/reset.service';
import { lookupHost, probeUrl, type HostLookup, type UrlProbe } from './services/reachability';
import { WebhooksService } from './services/webhooks.service';
import { AccountsRepo } from './store/accounts.repo';
import { DomainsRepo } from './store/domains.repo';
import { lockDataDir } from './store/data-dir-lock';
import { Checkpointer } from './store/checkpointer';
import { DATABASE_FILE, openDatabase, type Db } from './store/database';
import { DeliveriesRepo } from './store/deliveries.repo';
import { InboundRepo } from './store/inbound.repo';
import { MailersRepo } from './store/mailers.repo';
import { MessagesRepo } from './store/messages.repo';
import { SimulationRepo } from './store/simulation.repo';
import { TemplatesRepo } from './store/templates.repo';
import { UnitOfWork } from './store/unit-of-work';
import { StateRepo } from './store/state.repo';
import { ResetRepo } from './store/reset.repo';
import { StatsRepo } from './store/stats.repo';
import { WriteBatcher } from './store/write-batcher';
import { WebhooksRepo } from './store/webhooks.repo';

export const VERSION = version;

const CLOCK_OFFSET_KEY = 'clock_offset_ms';

/** Seams for what the emulator reaches outside itself; defaults are the real ones. */
export interface EmulatorSeams {
  clock?: EmulatorClock;
  logger?: Logger;
  probe?: UrlProbe;
  /**
   * Name resolution for `--strict-webhook-urls`: the registration checks, and in strict mode every
   * connection to a receiver (webhooks, inbound posts, IMAP webhooks) and to a mailer's SMTP or IMAP
   * server, which goes to the checked address.
   */
  lookup?: HostLookup;
  /** DNS for `--dns-verification real` (default: node's resolver with the system's servers). */
  dnsResolver?: DnsResolver;
  /** The key that encrypts mailer passwords and tokens (default: a 0600 file in the data directory, or memory). */
  secretKeys?: SecretKeyStore;
  /** better-sqlite3's native module for this runtime (the desktop app: a build for Electron); default: its own. */
  sqliteNativeBinding?: string;
}

export interface EmulatorServices {
  accounts: AccountsService;
  webhooks: WebhooksService;
  emailEvents: EmailEventsService;
  email: EmailService;
  templates: TemplatesService;
  messages: MessagesService;
  tracking: TrackingService;
  dispatcher: Dispatcher;
  simulator: Simulator;
  domains: DomainsService;
  inbound: InboundService;
  mailers: MailersService;
  oauth: OAuthService;
  relay: SmtpRelay;
  imap: ImapConnector;
  stats: StatsService;
  reset: ResetService;
}

export interface EmulatorHandle {
  readonly version: string;
  readonly config: EmulatorConfig;
  /** `null` with `--memory`. */
  readonly dataDir: string | null;
  readonly urls: { http: string; smtp: string | null };
  readonly ports: { http: number; smtp: number | null };
  readonly defaultAccount: Account;
  readonly clock: EmulatorClock;
  /** The live bus: announcements of deliveries, attempts, messages, mailers and clock changes. */
  readonly live: LiveBus;
  readonly services: EmulatorServices;
  /** Stops accepting work, lets work in flight finish (bounded), closes the listeners and the database. Safe to call twice. */
  close(): Promise<void>;
}

/** An address as a URL host: IPv6 in brackets. */
function urlHostOf(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * The one composition root: validates the config, opens the store, builds the services and the
 * dispatcher, starts the listener. The CLI and the desktop shell are thin wrappers around it. Never
 * imports electron.
 */
export async function createEmulator(input: EmulatorConfigInput = {}, seams: EmulatorSeams = {}): Promise<EmulatorHandle> {
  const config = EmulatorConfigSchema.parse(input);
  const logger = seams.logger ?? createLogger(config.logLevel);
  const dataDir = config.memory ? null : (config.dataDir ?? defaultDataDir());

  const unlock = dataDir === null ? () => {} : lockDataDir(dataDir);
  let db: Db;
  try {
    db = openDatabase(dataDir, { nativeBinding: seams.sqliteNativeBinding });
  } catch (err) {
    unlock();
    throw err;
  }
  // Checkpoints on a thread of their own (a store in memory has no WAL).
  const checkpointer = dataDir === null ? undefined : await Checkpointer.start(db, join(dataDir, DATABASE_FILE), { nativeBinding: seams.sqliteNativeBinding, logger });
  let app: FastifyInstance | undefined;
  let clock: EmulatorClock | undefined;
  let smtp: SmtpSink | undefined;
  try {
    const state = new StateRepo(db);
    // Emulated time never goes back across restarts: the offset of the last run is kept.
    clock = seams.clock ?? new EmulatorClock(Number(state.get(CLOCK_OFFSET_KEY) ?? 0));
    const startedAt = isoTimestamp(clock.now());
    const live = new LiveBus();
    const unitOfWork = new UnitOfWork(db);
    const webhooksRepo = new WebhooksRepo(db);
    const accounts = new AccountsService({ repo: new AccountsRepo(db), clock });

    const hostLookup = seams.lookup ?? lookupHost;
    // Strict mode's check of a mail server's address at every connection (SMTP relay, IMAP).
    const serverAddress = serverAddressPolicy({ strict: config.strictWebhookUrls, lookup: hostLookup, timeoutMs: 10_000 });
    // Each kind of delivery target registers here as its service is built; the reset suspends them all.
    const targets = new DeliveryTargets();
    const dispatcher = new Dispatcher(
      {
        repo: new DeliveriesRepo(db),
        clock,
        live,
        logger: logger.child({ component: 'dispatcher' }),
        signingSecret: (accountId) => accounts.signingSecret(accountId),
        targets,
      },
      {
        retrySchedule: config.retrySchedule,
        perTargetConcurrency: config.perTargetConcurrency,
        claimBatch: config.claimBatch,
        timeoutMs: config.deliveryTimeoutMs,
        responseBodyLimit: 64 * 1024,
        verifyTls: config.strictWebhookUrls,
        // Strict mode holds at every attempt: the address connected to is checked each time.
        resolve: config.strictWebhookUrls ? (host) => checkedAddresses(hostLookup, host, config.deliveryTimeoutMs) : undefined,
        userAgent: `Mailyard/${version}`,
      },
    );
    const urlPolicy = {
      strict: config.strictWebhookUrls,
      timeoutMs: config.reachabilityTimeoutMs,
      probe: seams.probe ?? probeUrl,
      lookup: hostLookup,
    };
    const inbound = new InboundService({
      repo: new InboundRepo(db),
      clock,
      dispatcher,
      checkUrl: (url, path) => checkUrl(urlPolicy, url, path),
    });
    targets.register(INBOUND_DOMAIN_TARGET, { resolve: (id) => inbound.resolveTarget(INBOUND_DOMAIN_TARGET, id) });
    targets.register(INBOUND_USERNAME_TARGET, { resolve: (id) => inbound.resolveTarget(INBOUND_USERNAME_TARGET, id) });
    const webhooks = new WebhooksService({
      repo: webhooksRepo,
      clock,
      urlPolicy,
      onChanged: (webhookId, deleted) => (deleted ? dispatcher.cancelTarget(WEBHOOK_TARGET, webhookId) : dispatcher.targetChanged(WEBHOOK_TARGET, webhookId)),
    });
    targets.register(WEBHOOK_TARGET, {
      resolve: (id) => {
        const webhook = webhooksRepo.findById(id);
        return webhook && { url: webhook.url, method: webhook.method, headers: JSON.parse(webhook.headers) as Record<string, string> };
      },
    });
    const messagesRepo = new MessagesRepo(db);
    const simulationRepo = new SimulationRepo(db);
    const messageLog = new MessageLog({
      messages: messagesRepo,
      simulation: simulationRepo,
      clock,
      applied: (change) => {
        if (!live.hasListeners('message.updated')) return;
        // An event that leaves the status as it is: the status stored now.
        const status = change.status ?? messagesRepo.get(change.message_id)?.status ?? 'queued';
        live.emit('message.updated', { ...change, status });
      },
    });
    const emailEvents = new EmailEventsService({ webhooks, accounts, dispatcher, clock, log: messageLog });
    const simulator = new Simulator({
      repo: simulationRepo,
      unitOfWork,
      clock,
      emailEvents,
      log: messageLog,
      dispatcher,
      logger: logger.child({ component: 'simulator' }),
    });
    const writes = new WriteBatcher(db);
    const inboundRoutes = new InboundRepo(db);
    const domains = new DomainsService({
      repo: new DomainsRepo(db),
      unitOfWork,
      webhooks: webhooksRepo,
      dispatcher,
      clock,
      mode: config.dnsVerification,
      resolver: seams.dnsResolver ?? new Resolver({ timeout: 3000, tries: 2 }),
      inboundRouted: (accountId, domain) => inboundRoutes.domain(accountId, domain) !== undefined,
    });
    let httpUrl = '';
    const templates = new TemplatesService({ repo: new TemplatesRepo(db), clock });
    const email = new EmailService({
      messages: messagesRepo,
      simulation: simulationRepo,
      emailEvents,
      clock,
      scheduled: () => simulator.wake(),
      baseUrl: () => httpUrl,
      writes,
      template: (accountId, templateId) => templates.forSend(accountId, templateId),
      accountNumber: (accountId) => accounts.numberOf(accountId),
      senders: senderPolicy({
        strict: config.strictSenders,
        domainOfMailer: (accountId, mailerId) => domains.findByMailerId(accountId, mailerId)?.domain,
        verifiedSender: (accountId, fromEmail) => domains.signingKey(accountId, fromEmail) !== undefined,
        configTypeOf: (accountId, mailerId) => {
          const row = mailers.row(mailerId);
          return row?.account_id === accountId ? row.config_type : undefined;
        },
      }),
      dkim: (accountId, fromEmail) => domains.signingKey(accountId, fromEmail),
      relay: { queue: (m, mailerId, at) => relay.queue(m, mailerId, at), wake: () => relay.wake() },
      created: (rows) => {
        if (live.hasListeners('message.created')) for (const row of rows) live.emit('message.created', toSummary(row));
      },
    });
    const mailersRepo = new MailersRepo(db);
    const mailers = new MailersService({
      repo: mailersRepo,
      clock,
      secrets: new SecretBox(seams.secretKeys ?? (dataDir === null ? memoryKeyStore() : fileKeyStore(dataDir))),
      dispatcher,
      checkUrl: (url, path) => checkUrl(urlPolicy, url, path),
      checkSmtpHost: (host, path) => checkServerHost(urlPolicy, host, path),
      checkSmtpLogin: (row, credentials, address) => checkSmtpLogin(row, credentials, config.strictWebhookUrls, address),
      changed: (id, row) => imap.follow(id, row),
      announce: (change) => live.emit('mailer.updated', change),
    });
    targets.register(IMAP_WEBHOOK_TARGET, { resolve: (id) => mailers.resolveTarget(id) });
    const relay = new SmtpRelay({
      repo: mailersRepo,
      mailers,
      messages: messagesRepo,
      unitOfWork,
      emailEvents,
      log: messageLog,
      dispatcher,
      clock,
      logger: logger.child({ component: 'relay' }),
      verifyTls: config.strictWebhookUrls,
      serverAddress,
    });
    const imap = new ImapConnector({
      mailers,
      repo: mailersRepo,
      unitOfWork,
      emailEvents,
      log: messageLog,
      dispatcher,
      clock,
      logger: logger.child({ component: 'imap' }),
      verifyTls: config.strictWebhookUrls,
      serverAddress,
      announce: (message) => live.emit('imap.message', message),
    });
    const oauth = new OAuthService({
      repo: mailersRepo,
      mailers,
      clock,
      baseUrl: () => httpUrl,
      accountName: (id) => accounts.get(id)?.name ?? id,
    });
    const defaultAccount = accounts.bootstrap(config.apiKey);
    const reset = new ResetService({
      repo: new ResetRepo(db),
      dispatcher,
      targets,
      accounts,
      clock,
      keptAccountIds: () => {
        const ids = [accounts.defaultAccountId()];
        const keyed = config.apiKey === undefined ? undefined : accounts.authenticate(config.apiKey);
        if (keyed && keyed.id !== ids[0]) ids.push(keyed.id);
        return ids;
      },
      workers: [
        simulator,
        { stop: () => relay.stop(config.shutdownGraceMs), start: () => relay.start() },
        { stop: () => imap.stop(), start: () => imap.start() },
      ],
      flushWrites: () => writes.flush(),
      forgetCached: () => {
        webhooks.forgetCached();
        domains.forgetCached();
        inbound.forgetCached();
        // Wiped with the store; replacing them with none also drops the rules the email service keeps.
        email.replaceRules([]);
      },
      drainTimeoutMs: config.deliveryTimeoutMs + config.shutdownGraceMs,
    });
    const services: EmulatorServices = {
      accounts,
      webhooks,
      emailEvents,
      email,
      templates,
      messages: new MessagesService({ repo: messagesRepo, relayOf: (messageId) => mailersRepo.relayOf(messageId) }),
      tracking: new TrackingService({
        messages: messagesRepo,
        unitOfWork,
        emailEvents,
        log: messageLog,
        dispatcher,
        clock,
        geoDefault: config.geoDefault,
      }),
      dispatcher,
      simulator,
      domains,
      inbound,
      mailers,
      oauth,
      relay,
      imap,
      stats: new StatsService({ repo: new StatsRepo(db), clock }),
      reset,
    };

    const liveClock = clock;
    liveClock.onChange((s) => {
      state.set(CLOCK_OFFSET_KEY, String(s.offsetMs));
      live.emit('clock.changed', { now: isoTimestamp(s.now), speed: s.speed });
      dispatcher.wake();
      simulator.wake();
    });

    let health: Health | undefined;
    app = await buildHttpApp({
      logger,
      version,
      host: config.host,
      maxBodyBytes: config.maxBodyBytes,
      timeouts: {
        headersMs: config.httpHeadersTimeoutMs,
        requestMs: config.httpRequestTimeoutMs,
        keepAliveMs: config.httpKeepAliveTimeoutMs,
        idleMs: config.httpIdleTimeoutMs,
      },
      uiDir: config.uiDir,
      services,
      clock: liveClock,
      live,
      health: () => health!,
    });
    await app.listen({ host: config.host, port: config.httpPort });
    const address = app.server.address() as AddressInfo;
    const intake = new MailIntake({ email, inbound });
    smtp = new SmtpSink(
      {
        authenticate: (apiKey) => accounts.authenticate(apiKey),
        defaultAccountId: () => accounts.defaultAccountId(),
        accept: (mail) => intake.accept(mail),
        logger: logger.child({ component: 'smtp' }),
      },
      {
        host: config.host,
        port: config.smtpPort,
        auth: config.smtpAuth,
        maxMessageBytes: config.maxMessageBytes,
        maxRecipients: SEND_LIMITS.recipients,
        tls: await loadTlsIdentity(dataDir),
        banner: `Mailyard ${version} SMTP sink: mail here is captured, never delivered`,
        closeGraceMs: config.shutdownGraceMs,
        socketTimeoutMs: config.smtpIdleTimeoutMs,
        dataTimeoutMs: config.smtpDataTimeoutMs,
      },
    );
    const smtpAddress = await smtp.listen();
    const urls = {
      http: `http://${urlHostOf(address.address)}:${address.port}`,
      smtp: `smtp://${urlHostOf(smtpAddress.address)}:${smtpAddress.port}`,
    };
    httpUrl = urls.http;
    const ports = { http: address.port, smtp: smtpAddress.port };
    health = { status: 'ok', version, started_at: startedAt, urls, ports, data_dir: dataDir };
    dispatcher.start();
    simulator.start();
    relay.start();
    imap.start();
    logger.info({ urls, dataDir }, 'mailyard started');

    const listening = app;
    const smtpListening = smtp;
    let closing: Promise<void> | undefined;
    return {
      version,
      config,
      dataDir,
      urls,
      ports,
      defaultAccount,
      clock: liveClock,
      live,
      services,
      close() {
        closing ??= (async () => {
          // Requests and delivery attempts in flight get a grace period; connections still open
          // after it are cut, so a client holding a socket (a browser's pre-connect, a live stream)
          // cannot block shutdown. Attempts cut short are recorded and retried on the next start.
          const grace = setTimeout(() => listening.server.closeAllConnections(), config.shutdownGraceMs);
          simulator.stop();
          // The SMTP sink stops first: a message it is still taking in may enqueue deliveries.
          // So do the relay and the IMAP connector: what they finish enqueues deliveries too.
          const intake = Promise.all([smtpListening.close(), relay.stop(config.shutdownGraceMs), imap.stop()]);
          await Promise.all([listening.close(), intake.then(() => dispatcher.stop(config.shutdownGraceMs))]);
          clearTimeout(grace);
          writes.flush();
          state.set(CLOCK_OFFSET_KEY, String(liveClock.state().offsetMs));
          liveClock.dispose();
          await checkpointer?.stop();
          db.close();
          unlock();
          logger.info('mailyard stopped');
          logger.flush?.();
        })();
        return closing;
      },
    };
  } catch (err) {
    await app?.close();
    await smtp?.close();
    clock?.dispose();
    await checkpointer?.stop();
    db.close();
    unlock();
    throw err;
  }
}
