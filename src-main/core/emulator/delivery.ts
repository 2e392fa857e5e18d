import type { Logger } from 'pino';
import { version } from '../../../package.json';
import type { Clock } from '../clock';
import type { EmulatorConfig } from '../config';
import { DeliveryFaultsRegistry } from '../dispatch/delivery-faults';
import { DeliveryOutbox } from '../dispatch/delivery-outbox';
import { DeliveryQueries } from '../dispatch/delivery-queries';
import { DeliveryTargets } from '../dispatch/delivery-targets';
import { DeliveryWorker } from '../dispatch/delivery-worker';
import { Dispatcher } from '../dispatch/dispatcher';
import type { LiveBus } from '../live-bus';
import type { HostLookup } from '../net/reachability';
import { checkedAddresses } from '../net/strict-addresses';
import type { AccountsService } from '../services/accounts.service';
import type { InboundService } from '../services/inbound/inbound.service';
import { INBOUND_DOMAIN_TARGET, INBOUND_USERNAME_TARGET } from '../services/inbound/inbound-posts';
import { IMAP_WEBHOOK_TARGET, type MailersService } from '../services/mailers/mailers.service';
import { WEBHOOK_TARGET } from '../services/webhooks.service';
import type { Db } from '../store/database';
import { DeliveriesRepo } from '../store/deliveries.repo';
import type { StoreSpace } from '../store/store-space';
import type { WebhooksRepo } from '../store/webhooks.repo';
import type { PublicUrl } from './types';

/**
 * How webhook attempts connect and what they say they are: the time-out, TLS verification and, in
 * strict mode, the address check made at every connection. A receiver check sends the same way.
 */
export function attemptTransport(config: EmulatorConfig, lookup: HostLookup, ownListener?: PublicUrl) {
  return {
    timeoutMs: config.deliveryTimeoutMs,
    verifyTls: config.strictWebhookUrls,
    // Strict mode holds at every attempt: the address connected to is checked each time, except
    // Mailyard's own listener (only catcher URLs pass the URL check when a URL is set).
    resolve: config.strictWebhookUrls
      ? (host: string, port: string) =>
          ownListener && isOwnListener(ownListener, host, port) ? Promise.resolve([host]) : checkedAddresses(lookup, host, config.deliveryTimeoutMs)
      : undefined,
    userAgent: `Mailyard/${version}`,
  };
}

/** The delivery side of the emulator, each part with its one job (see dispatch/dispatcher.ts). */
export interface Delivery {
  /** What services call to send, and the control API's actions on a delivery. */
  dispatcher: Dispatcher;
  /** The registry of delivery targets, empty until the services register theirs (registerDeliveryTargets). */
  targets: DeliveryTargets;
  /** Sends what the outbox holds: started and stopped by the lifecycle, woken by the clock. */
  worker: DeliveryWorker;
  /** The read side: what the control API lists and shows, the clock view's counts. */
  queries: DeliveryQueries;
  /** What a scenario run does to its account's webhook deliveries. */
  faults: DeliveryFaultsRegistry;
}

/**
 * The durable outbox of every webhook request, the worker it tells, the read side and the faults,
 * and the registry of delivery targets.
 */
export function buildDelivery(deps: {
  db: Db;
  config: EmulatorConfig;
  clock: Clock;
  live: LiveBus;
  logger: Logger;
  accounts: AccountsService;
  lookup: HostLookup;
  space: StoreSpace;
  /** The emulator's own listener: strict mode lets attempts reach it (its catchers). */
  publicUrl: PublicUrl;
}): Delivery {
  const { config, lookup, clock, live } = deps;
  const targets = new DeliveryTargets();
  const repo = new DeliveriesRepo(deps.db);
  const options = {
    retrySchedule: config.retrySchedule,
    perTargetConcurrency: config.perTargetConcurrency,
    claimBatch: config.claimBatch,
    responseBodyLimit: 64 * 1024,
    ...attemptTransport(config, lookup, deps.publicUrl),
  };
  const outbox = new DeliveryOutbox(repo, clock, options);
  const faults = new DeliveryFaultsRegistry(clock);
  const worker = new DeliveryWorker(
    {
      repo,
      clock,
      live,
      logger: deps.logger.child({ component: 'dispatcher' }),
      signingSecrets: (accountId) => deps.accounts.signingSecrets(accountId),
      targets,
      space: deps.space,
    },
    options,
    outbox,
    faults,
  );
  const queries = new DeliveryQueries(repo);
  const dispatcher = new Dispatcher({ repo, live, outbox, worker, faults, queries });
  return { dispatcher, targets, worker, queries, faults };
}

/** Whether `host:port` is the emulator's own HTTP listener, by its URL's literal host and port. */
function isOwnListener(publicUrl: PublicUrl, host: string, port: string): boolean {
  if (publicUrl.http === '') return false;
  const own = new URL(publicUrl.http);
  return own.hostname === host && own.port === port;
}

/**
 * The kinds of delivery target, each with where its URL, method and headers are read at each attempt:
 * the account's EMAIL_EVENT and DOMAIN_VERIFICATION webhooks, inbound routes (per domain and per
 * username), and IMAP configurations' webhooks.
 */
export function registerDeliveryTargets(targets: DeliveryTargets, sources: { webhooks: WebhooksRepo; inbound: InboundService; mailers: MailersService }): void {
  targets.register(WEBHOOK_TARGET, {
    resolve: (id) => {
      const webhook = sources.webhooks.findById(id);
      return webhook && { url: webhook.url, method: webhook.method, headers: JSON.parse(webhook.headers) as Record<string, string> };
    },
  });
  targets.register(INBOUND_DOMAIN_TARGET, { resolve: (id) => sources.inbound.resolveTarget(INBOUND_DOMAIN_TARGET, id) });
  targets.register(INBOUND_USERNAME_TARGET, { resolve: (id) => sources.inbound.resolveTarget(INBOUND_USERNAME_TARGET, id) });
  targets.register(IMAP_WEBHOOK_TARGET, { resolve: (id) => sources.mailers.resolveTarget(id) });
}
