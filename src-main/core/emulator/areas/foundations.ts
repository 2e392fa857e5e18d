import type { Logger } from 'pino';
import type { EmulatorClock } from '../../clock';
import type { EmulatorConfig } from '../../config';
import type { Dispatcher } from '../../dispatch/dispatcher';
import type { LiveBus } from '../../live-bus';
import { type HostLookup, lookupHost, probeUrl } from '../../net/reachability';
import { type ServerAddress, serverAddressPolicy } from '../../net/strict-addresses';
import type { ScenarioFolders } from '../../scenario/scenario-folders';
import type { AccountsService } from '../../services/accounts.service';
import { isOwnCatcherUrl } from '../../services/catchers/catchers.service';
import type { WebhookUrlPolicy } from '../../services/url-check';
import type { Db } from '../../store/database';
import type { StoreSpace } from '../../store/store-space';
import { UnitOfWork } from '../../store/unit-of-work';
import type { WebhooksRepo } from '../../store/webhooks.repo';
import { WriteBatcher } from '../../store/write-batcher';
import type { Delivery } from '../delivery';
import type { EmulatorSeams, PublicUrl } from '../types';

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
  /** The dispatcher, its worker, the deliveries' read side, the scenario faults and the delivery targets. */
  delivery: Delivery;
  publicUrl: PublicUrl;
  space: StoreSpace;
  /** The folders the scenario runner may run files of, apps included. */
  scenarioFolders: ScenarioFolders;
}

/** The foundations and what every area shares: the unit of work, the group commit, the URL and address policies. */
export interface AreaFoundations extends ServiceFoundations {
  /** What services call to send webhook requests (delivery.dispatcher). */
  dispatcher: Dispatcher;
  unitOfWork: UnitOfWork;
  /** The group-commit batcher, which the lifecycle flushes on close. */
  writes: WriteBatcher;
  lookup: HostLookup;
  /** How a URL the emulator will post to is checked when it is set. */
  urlPolicy: WebhookUrlPolicy;
  /** Strict mode's check of a mail server's address at every connection (SMTP relay, IMAP). */
  serverAddress: ServerAddress;
}

export function areaFoundations(f: ServiceFoundations): AreaFoundations {
  const { config } = f;
  const lookup = f.seams.lookup ?? lookupHost;
  return {
    ...f,
    dispatcher: f.delivery.dispatcher,
    unitOfWork: new UnitOfWork(f.db),
    writes: new WriteBatcher(f.db, f.space),
    lookup,
    urlPolicy: {
      strict: config.strictWebhookUrls,
      timeoutMs: config.reachabilityTimeoutMs,
      probe: f.seams.probe ?? probeUrl,
      lookup,
      // Catchers are Mailyard's own: strict URL modes accept them.
      own: (url: URL) => isOwnCatcherUrl(f.publicUrl.http, url),
    },
    serverAddress: serverAddressPolicy({ strict: config.strictWebhookUrls, lookup, timeoutMs: 10_000 }),
  };
}
