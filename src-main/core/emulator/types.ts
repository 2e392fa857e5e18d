import type { Logger } from 'pino';
import type { EmulatorClock } from '../clock';
import type { EmulatorConfig } from '../config';
import type { Dispatcher } from '../dispatch/dispatcher';
import type { ImapConnector } from '../imap/imap-connector';
import type { LiveBus } from '../live-bus';
import type { Account, AccountsService } from '../services/accounts.service';
import type { DnsResolver } from '../services/domains/dns-records';
import type { DomainsService } from '../services/domains/domains.service';
import type { EmailEventsService } from '../services/email-events.service';
import type { EmailService } from '../services/email/email.service';
import type { MessagesService } from '../services/email/messages.service';
import type { TemplatesService } from '../services/email/templates.service';
import type { TrackingService } from '../services/email/tracking.service';
import type { InboundService } from '../services/inbound/inbound.service';
import type { MailerTests } from '../services/mailers/mailer-tests';
import type { MailersService } from '../services/mailers/mailers.service';
import type { SecretKeyStore } from '../services/mailers/secret-box';
import type { OAuthService } from '../services/oauth/oauth.service';
import type { HostLookup, UrlProbe } from '../services/reachability';
import type { ResetService } from '../services/reset.service';
import type { Simulator } from '../services/simulation/simulator';
import type { StatsService } from '../services/stats.service';
import type { WebhooksService } from '../services/webhooks.service';
import type { SmtpRelay } from '../smtp/relay';

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

/** Every service of a running emulator, for its own HTTP layer, the CLI, the desktop shell and tests. */
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
  mailerTests: MailerTests;
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

/**
 * The emulator's own HTTP URL, known once the listener has its port: tracking links and OAuth consent
 * pages are built with it. Created empty before the services that read it, filled in by the listeners.
 */
export interface PublicUrl {
  http: string;
}
