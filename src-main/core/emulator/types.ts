import type { Logger } from 'pino';
import type { EmulatorClock } from '../clock';
import type { EmulatorConfig } from '../config';
import type { DeliveryFaultsRegistry } from '../dispatch/delivery-faults';
import type { DeliveryWorker } from '../dispatch/delivery-worker';
import type { HttpServices } from '../http/app';
import type { ImapConnector } from '../imap/imap-connector';
import type { LiveBus } from '../live-bus';
import type { HostLookup, UrlProbe } from '../net/reachability';
import type { Account } from '../services/accounts.service';
import type { SpamFilter } from '../services/checks/spam-filter';
import type { DnsResolver } from '../services/domains/dns-records';
import type { MailWork } from '../services/mail-thread/mail-thread';
import type { SecretKeyStore } from '../services/mailers/secret-box';
import type { SearchIndexer } from '../services/search/search-indexer';
import type { MailIntake } from '../smtp/mail-intake';
import type { SmtpRelay } from '../smtp/relay';
import type { TlsCertificate } from '../smtp/tls-certificate';
import type { Spamd } from '../spamd/spamd';

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
  /** Wall time in ms, for what must not follow the emulator clock: when a web UI login expires (default Date.now). */
  wallClock?: () => number;
  /** better-sqlite3's native module for this runtime (the desktop app: a build for Electron); default: its own. */
  sqliteNativeBinding?: string;
}

/**
 * Every service of a running emulator, for its own HTTP layer (which declares the part it calls:
 * HttpServices), the CLI, the desktop shell, the testing API and tests.
 */
export interface EmulatorServices extends HttpServices {
  /** Sends what the delivery outbox holds (started and stopped with the emulator). */
  deliveryWorker: DeliveryWorker;
  /** What a scenario run does to its account's webhook deliveries (duplicates, delays, outages). */
  deliveryFaults: DeliveryFaultsRegistry;
  relay: SmtpRelay;
  imap: ImapConnector;
  /** SpamAssassin's daemon, started on first use and stopped with the emulator. */
  spamd: Spamd;
  spamFilter: SpamFilter;
  /** Keeps the search indexes up with the stored copies (started with the workers, closed before the store). */
  searchIndexer: SearchIndexer;
  /** Composing and the search index's text, off the main thread (closed after the indexer). */
  mailThread: MailWork;
  /** How mail is taken in (the SMTP sink's, Mailpit's send's and a mail import's): stored or inbound-routed, with Mailpit's tags. */
  mailIntake: MailIntake;
}

export interface EmulatorHandle {
  readonly version: string;
  readonly config: EmulatorConfig;
  /** `null` with `--memory`. */
  readonly dataDir: string | null;
  /** What start-up found worth a warning (a data directory other users can read), each logged once at warn. */
  readonly warnings: readonly string[];
  readonly urls: { http: string; smtp: string | null };
  readonly ports: { http: number; smtp: number | null };
  /**
   * With `smtpTls: 'starttls'`, the certificate the SMTP sink presents (self-signed): its PEM, for a
   * client's trusted CAs (nodemailer `tls: { ca }`), and the file it is kept in (null with `--memory`).
   * Null when STARTTLS is off (the default).
   */
  readonly smtpCertificate: TlsCertificate | null;
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
  /** The SMTP listener's port once it listens (null: none); the scenario runner gives it to the app under test. */
  smtpPort?: number | null;
}
