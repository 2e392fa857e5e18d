import { Resolver } from 'node:dns/promises';
import type { Logger } from 'pino';
import type { EmulatorClock } from '../clock';
import type { EmulatorConfig } from '../config';
import type { DeliveryTargets } from '../dispatch/delivery-targets';
import type { Dispatcher } from '../dispatch/dispatcher';
import { ImapConnector } from '../imap/imap-connector';
import type { LiveBus } from '../live-bus';
import type { AccountsService } from '../services/accounts.service';
import { ChecksService } from '../services/checks/checks.service';
import { SpamFilter } from '../services/checks/spam-filter';
import { findSpamd, Spamd } from '../spamd/spamd';
import { DomainsService } from '../services/domains/domains.service';
import { EmailEventsService } from '../services/events/email-events.service';
import { composeRecipe } from '../services/email/compose-later';
import { EmailService } from '../services/email/email.service';
import { factsOf, MessageLog } from '../services/events/message-log';
import { MessagesService } from '../services/email/messages.service';
import { MailpitService } from '../services/mailpit/mailpit.service';
import { ChaosService } from '../services/mailpit/chaos';
import { MessageFlagsRepo } from '../store/message-flags.repo';
import { MailpitSummariesRepo } from '../store/mailpit-summaries.repo';
import { version as VERSION } from '../../../package.json';
import { senderPolicy } from '../services/email/sender-policy';
import { TemplatesService } from '../services/email/templates.service';
import { TrackingService } from '../services/email/tracking.service';
import { InboundService } from '../services/inbound/inbound.service';
import { MailerTests } from '../services/mailers/mailer-tests';
import { MailersService } from '../services/mailers/mailers.service';
import { fileKeyStore, memoryKeyStore, SecretBox } from '../services/mailers/secret-box';
import { OAuthService } from '../services/oauth/oauth.service';
import { OFFLINE_SMTP } from '../services/oauth/oauth-config';
import { lookupHost, probeUrl } from '../net/reachability';
import { ResetService } from '../services/reset.service';
import { CatchersService, isOwnCatcherUrl } from '../services/catchers/catchers.service';
import { CatchersRepo } from '../store/catchers.repo';
import { SearchIndexer } from '../services/search/search-indexer';
import { mailWork } from '../services/mail-thread/mail-thread';
import { SimulationRules } from '../services/simulation/rules.service';
import { Simulator } from '../services/simulation/simulator';
import { ClockService, CLOCK_SETTLE_WAIT_MS } from '../services/clock.service';
import { StatsService } from '../services/stats.service';
import { serverAddressPolicy } from '../net/strict-addresses';
import { checkServerHost, checkUrl } from '../services/url-check';
import { ReceiverCheckService } from '../services/receiver-check/receiver-check.service';
import { WEBHOOK_TARGET, WebhooksService } from '../services/webhooks.service';
import { checkSmtpLogin } from '../smtp/connection';
import { MailIntake } from '../smtp/mail-intake';
import { SmtpRelay } from '../smtp/relay';
import type { Db } from '../store/database';
import { DomainsRepo } from '../store/domains.repo';
import { InboundRepo } from '../store/inbound.repo';
import { MailersRepo } from '../store/mailers.repo';
import { MessagesRepo } from '../store/messages.repo';
import { ResetRepo } from '../store/reset.repo';
import { SearchIndexRepo } from '../store/search-index.repo';
import { SuppressionsService } from '../services/events/suppressions.service';
import { SimulationRepo } from '../store/simulation.repo';
import { StatsRepo } from '../store/stats.repo';
import { TemplatesRepo } from '../store/templates.repo';
import { UnitOfWork } from '../store/unit-of-work';
import type { WebhooksRepo } from '../store/webhooks.repo';
import { buildRetention } from './retention';
import { SnapshotService } from '../services/snapshot/snapshot.service';
import { MailImport } from '../services/mail-files/mail-import';
import type { StoreSpace } from '../store/store-space';
import { WriteBatcher } from '../store/write-batcher';
import { attemptTransport, registerDeliveryTargets } from './delivery';
import type { EmulatorSeams, EmulatorServices, PublicUrl } from './types';
import { buildScenarioService } from './scenarios';
import type { ScenarioFolders } from '../scenario/scenario-folders';

/** What the services are built from: the store, the clock, the live bus, the dispatcher and the settings. */
export interface ServiceFoundations {
  db: Db;
  dataDir: string | null;
  config: EmulatorConfig;
  seams: EmulatorSeams;
  clock: EmulatorClock;
  live: LiveBus;
  logger: Logger;
  accounts: AccountsService;
  webhooksRepo: WebhooksRepo;
  dispatcher: Dispatcher;
  targets: DeliveryTargets;
  publicUrl: PublicUrl;
  space: StoreSpace;
  /** The folders the scenario runner may run files of, apps included. */
  scenarioFolders: ScenarioFolders;
}

/**
 * Builds every service, each after everything it uses (no service refers to one built later), and
 * registers the delivery targets once their services exist. Also answers the group-commit batcher,
 * which the lifecycle flushes on close.
 */
export function buildServices(f: ServiceFoundations): { services: EmulatorServices; writes: WriteBatcher } {
  const { db, config, clock, live, logger, accounts, dispatcher } = f;
  const unitOfWork = new UnitOfWork(db);
  const writes = new WriteBatcher(db, f.space);
  const lookup = f.seams.lookup ?? lookupHost;
  const urlPolicy = {
    strict: config.strictWebhookUrls,
    timeoutMs: config.reachabilityTimeoutMs,
    probe: f.seams.probe ?? probeUrl,
    lookup,
    // Catchers are Mailyard's own: strict URL modes accept them.
    own: (url: URL) => isOwnCatcherUrl(f.publicUrl.http, url),
  };
  // Strict mode's check of a mail server's address at every connection (SMTP relay, IMAP).
  const serverAddress = serverAddressPolicy({ strict: config.strictWebhookUrls, lookup, timeoutMs: 10_000 });

  // Receivers: the account's webhooks and inbound routes.
  const webhooks = new WebhooksService({
    repo: f.webhooksRepo,
    clock,
    urlPolicy,
    onChanged: (webhookId, deleted) => (deleted ? dispatcher.cancelTarget(WEBHOOK_TARGET, webhookId) : dispatcher.targetChanged(WEBHOOK_TARGET, webhookId)),
  });
  const inboundRepo = new InboundRepo(db);
  const inbound = new InboundService({ repo: inboundRepo, clock, dispatcher, checkUrl: (url, path) => checkUrl(urlPolicy, url, path) });

  // The email log and the email events every later service records and sends.
  const messagesRepo = new MessagesRepo(db, composeRecipe);
  const simulationRepo = new SimulationRepo(db);
  const log = new MessageLog({
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
  const emailEvents = new EmailEventsService({ webhooks, accounts, dispatcher, clock, log, unitOfWork });
  const simulator = new Simulator({ repo: simulationRepo, unitOfWork, clock, emailEvents, logger: logger.child({ component: 'simulator' }), space: f.space });
  const rules = new SimulationRules({ simulation: simulationRepo, emailEvents, clock });

  // Mailers and the protocol adapters that serve them: IMAP watches, the SMTP relay.
  const mailersRepo = new MailersRepo(db);
  // The key that seals mailer secrets (a snapshot with secrets carries it).
  const secretKeys = f.seams.secretKeys ?? (f.dataDir === null ? memoryKeyStore() : fileKeyStore(f.dataDir));
  const mailers = new MailersService({
    repo: mailersRepo,
    clock,
    secrets: new SecretBox(secretKeys),
    dispatcher,
    checkUrl: (url, path) => checkUrl(urlPolicy, url, path),
    checkSmtpHost: (host, path) => checkServerHost(urlPolicy, host, path),
    checkSmtpLogin: (row, credentials, address) => checkSmtpLogin(row, credentials, config.strictWebhookUrls, address),
    announce: (change) => live.emit('mailer.updated', change),
  });
  const imap = new ImapConnector({
    mailers,
    repo: mailersRepo,
    unitOfWork,
    emailEvents,
    dispatcher,
    clock,
    logger: logger.child({ component: 'imap' }),
    verifyTls: config.strictWebhookUrls,
    serverAddress,
    announce: (message) => live.emit('imap.message', message),
    maxMessageBytes: config.maxMessageBytes,
  });
  mailers.onChanged((id, row) => imap.follow(id, row));
  const relay = new SmtpRelay({
    repo: mailersRepo,
    mailers,
    messages: messagesRepo,
    unitOfWork,
    emailEvents,
    log,
    clock,
    logger: logger.child({ component: 'relay' }),
    verifyTls: config.strictWebhookUrls,
    serverAddress,
  });
  const oauth = new OAuthService({ repo: mailersRepo, mailers, clock, baseUrl: () => f.publicUrl.http, accountName: (id) => accounts.get(id)?.name ?? id });

  // Sending: domains (DKIM, the mailer_id rules), templates, the email service itself.
  const domains = new DomainsService({
    repo: new DomainsRepo(db),
    unitOfWork,
    webhooks: f.webhooksRepo,
    dispatcher,
    clock,
    mode: config.dnsVerification,
    resolver: f.seams.dnsResolver ?? new Resolver({ timeout: 3000, tries: 2 }),
    inboundRouted: (accountId, domain) => inboundRepo.domain(accountId, domain) !== undefined,
  });
  const templates = new TemplatesService({ repo: new TemplatesRepo(db), clock });
  // SpamAssassin (spamd, a child process started on first use) for the Checks tab and `--spam-filter`.
  const spamd = new Spamd({ binary: findSpamd(), threshold: config.spamThreshold, logger: logger.child({ component: 'spamd' }) });
  const spamFilter = new SpamFilter({
    enabled: config.spamFilter === 'spamassassin',
    spamd,
    messages: messagesRepo,
    simulation: simulationRepo,
    clock,
    rules: () => rules.list(),
    scheduled: () => simulator.wake(),
    logger: logger.child({ component: 'spam-filter' }),
  });
  // Composing sends and deriving the search index's text, on a thread of their own.
  const mailThread = mailWork(logger.child({ component: 'mail-thread' }));
  const searchIndexer = new SearchIndexer(new SearchIndexRepo(db), (job) => mailThread.derive(job), { logger: logger.child({ component: 'search-index' }) });
  const flags = new MessageFlagsRepo(db);
  const email = new EmailService({
    messages: messagesRepo,
    tags: flags,
    stored: () => searchIndexer.notify(),
    compose: mailThread.compose,
    simulation: simulationRepo,
    rules,
    clock,
    scheduled: () => simulator.wake(),
    baseUrl: () => f.publicUrl.http,
    writes,
    template: (accountId, templateId) => templates.forSend(accountId, templateId),
    accountNumber: (accountId) => accounts.numberOf(accountId),
    senders: senderPolicy({
      strict: config.strictSenders,
      domainOfMailer: (accountId, mailerId) => domains.findByMailerId(accountId, mailerId)?.domain,
      verifiedSender: (accountId, fromEmail) => domains.signingKey(accountId, fromEmail) !== undefined,
      mailerOf: (accountId, mailerId) => {
        const row = mailers.row(mailerId);
        return row?.account_id === accountId ? { type: row.config_type, relays: row.host !== OFFLINE_SMTP.host } : undefined;
      },
    }),
    dkim: (accountId, fromEmail) => domains.signingKey(accountId, fromEmail),
    relay,
    created: (rows) => {
      if (live.hasListeners('message.created')) for (const summary of messages.summaries(rows)) live.emit('message.created', summary);
      spamFilter.inspect(rows);
    },
  });
  const tracking = new TrackingService({ messages: messagesRepo, emailEvents, clock, geoDefault: config.geoDefault });
  registerDeliveryTargets(f.targets, { webhooks: f.webhooksRepo, inbound, mailers });

  // Last, what acts on all of them: the reset.
  const reset = new ResetService({
    repo: new ResetRepo(db),
    dispatcher,
    targets: f.targets,
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
    removeCopies: (accountId) => messagesRepo.deleteMatching({ accountId }),
    // The scenario runner is built after (it uses nearly every service); asked only when an account is deleted.
    runUsing: (accountId) => {
      const run = services.scenarios.active()?.run;
      return run?.accountId === accountId ? run.id : undefined;
    },
    announceDeleted: (account) => live.emit('account.deleted', account),
    flushWrites: () => writes.flush(),
    forgetCached: () => {
      webhooks.forgetCached();
      domains.forgetCached();
      inbound.forgetCached();
      // Wiped with the store: read afresh.
      rules.forgetCached();
    },
    drainTimeoutMs: config.deliveryTimeoutMs + config.shutdownGraceMs,
  });

  const suppressions = new SuppressionsService({ simulation: simulationRepo });
  const messages = new MessagesService({
    repo: messagesRepo,
    flags,
    relayOf: (messageId) => mailersRepo.relayOf(messageId),
    waitForIndex: (waitMs) => searchIndexer.ready(waitMs),
    fireOutcomes: (row) => emailEvents.outcomesOf(factsOf(row)),
    suppression: (accountId, email) => suppressions.entry(accountId, email),
  });
  const checks = new ChecksService({ messages, token: (token) => messagesRepo.token(token), spamd, spamFilterOn: spamFilter.enabled });
  const mailpit = new MailpitService({
    repo: messagesRepo,
    flags,
    summaries: new MailpitSummariesRepo(db),
    messages,
    checks,
    waitForIndex: (waitMs) => searchIndexer.ready(waitMs),
    version: VERSION,
    startedAt: Date.now(),
    capture: async (mail) => (await new MailIntake({ email, inbound, tagsPlusAddresses: config.tagsPlusAddresses }).accept(mail)).refIds,
    defaultAccountId: () => accounts.defaultAccountId(),
    smtpMailers: (accountId) => mailersRepo.ofAccount(accountId, 'smtp'),
    release: (messageId, mailerId, to) => relay.release(messageId, mailerId, to),
  });
  const clockControl = new ClockService({ clock, dispatcher, simulator, settleWaitMs: CLOCK_SETTLE_WAIT_MS });
  const services: EmulatorServices = {
    accounts,
    webhooks,
    emailEvents,
    email,
    templates,
    messages,
    checks,
    mailpit,
    chaos: new ChaosService(config.enableChaos),
    spamd,
    spamFilter,
    searchIndexer,
    mailThread,
    tracking,
    dispatcher,
    simulator,
    rules,
    suppressions,
    clockControl,
    domains,
    inbound,
    mailers,
    mailerTests: new MailerTests({ mailers, smtp: relay, imap }),
    receiverChecks: new ReceiverCheckService({ urlPolicy, transport: attemptTransport(config, lookup) }),
    oauth,
    relay,
    imap,
    stats: new StatsService({ repo: new StatsRepo(db), clock }),
    reset,
    // Retention: the store held to --max-messages and --max-age (services/retention).
    retention: buildRetention(f),
    mailImport: new MailImport({
      capture: async (mail) => (await new MailIntake({ email, inbound, tagsPlusAddresses: config.tagsPlusAddresses }).accept(mail)).refIds,
      accountIdOr404: (id) => accounts.accountIdOr404(id),
      maxMessageBytes: config.maxMessageBytes,
    }),
    snapshots: new SnapshotService({ db, clock, version: VERSION, mailerKey: () => secretKeys.load() }),
    catchers: new CatchersService({
      repo: new CatchersRepo(db),
      clock,
      wallClock: Date.now,
      accounts,
      webhooks,
      baseUrl: () => f.publicUrl.http,
      sender: (webhookId) => dispatcher.sender(webhookId),
      live,
    }),
    scenarios: buildScenarioService({
      accounts,
      webhooks,
      email,
      emailEvents,
      rules,
      clock,
      clockControl,
      dispatcher,
      live,
      publicUrl: f.publicUrl,
      logger: f.logger,
      folders: f.scenarioFolders,
    }),
  };
  return { services, writes };
}
