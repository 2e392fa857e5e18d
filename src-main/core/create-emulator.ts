import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { version } from '../../package.json';
import type { Health } from '../../src-shared/schemas/emulator';
import { systemClock, isoTimestamp, type Clock } from './clock';
import { defaultDataDir, EmulatorConfigSchema, type EmulatorConfig, type EmulatorConfigInput } from './config';
import { buildHttpApp } from './http/app';
import { createLogger } from './logger';
import { AccountsService, type Account } from './services/accounts.service';
import { lookupHost, probeUrl, type HostLookup, type UrlProbe } from './services/reachability';
import { WebhooksService } from './services/webhooks.service';
import { AccountsRepo } from './store/accounts.repo';
import { openDatabase } from './store/database';
import { WebhooksRepo } from './store/webhooks.repo';

export const VERSION = version;

/** Seams for what the emulator reaches outside itself; defaults are the real ones. */
export interface EmulatorSeams {
  clock?: Clock;
  logger?: Logger;
  probe?: UrlProbe;
  lookup?: HostLookup;
}

export interface EmulatorHandle {
  readonly version: string;
  readonly config: EmulatorConfig;
  /** `null` with `--memory`. */
  readonly dataDir: string | null;
  readonly urls: { http: string; smtp: string | null };
  readonly ports: { http: number; smtp: number | null };
  readonly defaultAccount: Account;
  readonly services: { accounts: AccountsService; webhooks: WebhooksService };
  /** Stops accepting work, closes the listeners and the database. Safe to call twice. */
  close(): Promise<void>;
}

/** An address as a URL host: IPv6 in brackets. */
function urlHostOf(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * The one composition root: validates the config, opens the store, builds the services, starts the
 * listeners. The CLI and the desktop shell are thin wrappers around it. Never imports electron.
 */
export async function createEmulator(input: EmulatorConfigInput = {}, seams: EmulatorSeams = {}): Promise<EmulatorHandle> {
  const config = EmulatorConfigSchema.parse(input);
  const clock = seams.clock ?? systemClock;
  const logger = seams.logger ?? createLogger(config.logLevel);
  const dataDir = config.memory ? null : (config.dataDir ?? defaultDataDir());
  const startedAt = isoTimestamp(clock.now());

  const db = openDatabase(dataDir);
  let app: FastifyInstance | undefined;
  try {
    const accounts = new AccountsService(new AccountsRepo(db), clock);
    const webhooks = new WebhooksService(new WebhooksRepo(db), clock, {
      strict: config.strictWebhookUrls,
      timeoutMs: config.reachabilityTimeoutMs,
      probe: seams.probe ?? probeUrl,
      lookup: seams.lookup ?? lookupHost,
    });
    const defaultAccount = accounts.bootstrap(config.apiKey);

    let health: Health | undefined;
    app = await buildHttpApp({
      logger,
      version,
      host: config.host,
      maxBodyBytes: config.maxBodyBytes,
      uiDir: config.uiDir,
      accounts,
      webhooks,
      health: () => health!,
    });
    await app.listen({ host: config.host, port: config.httpPort });
    const address = app.server.address() as AddressInfo;
    const urls = { http: `http://${urlHostOf(address.address)}:${address.port}`, smtp: null };
    const ports = { http: address.port, smtp: null };
    health = { status: 'ok', version, started_at: startedAt, urls, ports, data_dir: dataDir };
    logger.info({ urls, dataDir }, 'mailyard started');

    const listening = app;
    let closing: Promise<void> | undefined;
    return {
      version,
      config,
      dataDir,
      urls,
      ports,
      defaultAccount,
      services: { accounts, webhooks },
      close() {
        closing ??= (async () => {
          // Requests in flight get a grace period; connections still open after it are cut, so a
          // client holding a socket (a browser's pre-connect, a live stream) cannot block shutdown.
          const grace = setTimeout(() => listening.server.closeAllConnections(), config.shutdownGraceMs);
          await listening.close();
          clearTimeout(grace);
          db.close();
          logger.info('mailyard stopped');
          logger.flush?.();
        })();
        return closing;
      },
    };
  } catch (err) {
    await app?.close();
    db.close();
    throw err;
  }
}
