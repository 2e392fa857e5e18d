/**
 * `mailyard/testing`: the emulator inside a test suite (vitest, jest, mocha, node:test).
 *
 *   await using yard = await startMailyard();      // free ports, a fresh in-memory store
 *   process.env.MAIL_API_URL = yard.url;           // point the code under test at it
 *   ...
 *   const bounce = await yard.waitForDelivery({ event: 'bounce', status: 'succeeded' });
 *   await yard.reset();                            // between tests
 *   await yard.stop();                             // after all (or `await using`)
 *
 * It runs the one emulator core (`createEmulator`) in the test's process, or attaches to a running
 * one (`connectMailyard`); the helpers talk to it through its control API with the typed clients.
 */

import { VERSION as CORE_VERSION, createEmulator } from '../core';
import type { EmulatorConfigInput } from '../core/config';
import { builtUiDir } from './built-ui';
import { buildHelpers } from './helpers';
import { checkOptions, MailyardStartError, startFailure } from './options';
import { runScenarioInProcess } from './scenario';
import type { MailyardHelpers } from './types';

export { ApiError, ControlClient, ServiceClient } from '../../src-shared/clients';
export type { ScenarioInput } from '../../src-shared/scenario/format';
export type { ScenarioExpectationResult, ScenarioReport, ScenarioRun, ScenarioViolation } from '../../src-shared/scenario/report';
export { type ConnectedMailyard, type ConnectMailyardOptions, connectMailyard } from './connect';
export { isEmailEvent, linksOf } from './content';
export { MailyardStartError } from './options';
export { mailyardSerializer, normalizeForSnapshot } from './serializer';
export type * from './types';
export type { RunScenarioOptions } from './types';
export { type WaitOptions, WaitTimeoutError } from './waiters';
/** The package's version. */
export const VERSION: string = CORE_VERSION;

/**
 * Options of `startMailyard`: every option of `mailyard serve` (camelCase: `strictSenders`,
 * `retrySchedule`, `smtpAuth`, `clockStart`, ...). Differences from `mailyard serve`: ports default to 0
 * (free ones), the store is in memory unless `dataDir` is given, and logs are silent (`logLevel`). An
 * option given as `undefined` is not given (`{ apiKey: process.env.MAIL_API_KEY }`).
 */
export interface StartMailyardOptions extends Omit<EmulatorConfigInput, 'memory' | 'uiDir' | 'httpPort' | 'smtpPort'> {
  /** HTTP port (default 0: a free one). */
  httpPort?: number | undefined;
  /** SMTP port (default 0: a free one). */
  smtpPort?: number | undefined;
  /** Keep the store in this folder (created when missing) instead of memory; `stop()` leaves it. */
  dataDir?: string | undefined;
  /** The default account's API key on a fresh store (8 to 256 token characters); generated when absent. */
  apiKey?: string | undefined;
  /** Where the emulator clock starts on a fresh store, e.g. '2026-01-01T00:00:00Z' (for snapshots); it runs on from there. */
  clockStart?: string | undefined;
  /** Serve the web UI at `url`, to look at a test while it runs (default: true). */
  ui?: boolean | undefined;
  /**
   * Fail on anything the real service would refuse (docs/warnings.md): the emulator runs with
   * `strictRequests`, so such a request (your app's, or `yard.service`'s) gets the service's refusal
   * instead of a 200 with `X-Mailyard-Warning`, and the code path that sent it fails as in production.
   * Unknown fields are refused too. Default false.
   */
  strict?: boolean | undefined;
}

export interface Mailyard extends MailyardHelpers, AsyncDisposable {
  readonly version: string;
  readonly urls: { http: string; smtp: string };
  readonly httpPort: number;
  /**
   * Where the SMTP sink listens: any client's default settings send there (no STARTTLS unless
   * `smtpTls: 'starttls'`; AUTH optional unless `smtpAuth: 'required'`). With `smtpTls: 'starttls'`,
   * `certificate` is the PEM of its self-signed certificate, to trust in the client (nodemailer
   * `tls: { ca: yard.smtp.certificate }`); null otherwise.
   */
  readonly smtp: { host: string; port: number; certificate: string | null };
  readonly smtpPort: number;
  /**
   * The control key (`Authorization: Bearer <key>` on `/emulator`, or the web UI's login): made at
   * start when `host` is beyond loopback, the one given as `controlKey`; `null` on loopback without one.
   * `control` and the helpers send it.
   */
  readonly controlKey: string | null;
  /** The account that key belongs to. */
  readonly accountId: string;
  /** `null` for the in-memory store. */
  readonly dataDir: string | null;
  /**
   * Stops the emulator (webhook attempts in flight get a short grace). Safe to call twice. Until it is
   * called the emulator's listeners keep the process alive: call it in `afterAll`/`after`, or use
   * `await using yard = await startMailyard()`, which calls it when the scope ends.
   */
  stop(): Promise<void>;
}

/** Starts an emulator for a test suite; see the module's comment and the docs ("Testing API"). */
export async function startMailyard(options: StartMailyardOptions = {}): Promise<Mailyard> {
  // An option given as undefined takes its default, as one left out (the spread below would not).
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as StartMailyardOptions;
  const { ui = true, dataDir, strict, ...rest } = given;
  const config: EmulatorConfigInput = {
    httpPort: 0,
    smtpPort: 0,
    logLevel: 'silent',
    ...rest,
    ...(strict ? { strictRequests: true } : {}),
    ...(dataDir === undefined ? { memory: true } : { dataDir }),
  };
  checkOptions(config);
  let handle: Awaited<ReturnType<typeof createEmulator>>;
  try {
    handle = await createEmulator({ ...config, uiDir: ui ? builtUiDir(import.meta.dirname) : undefined });
  } catch (err) {
    throw startFailure(err, config);
  }
  try {
    const apiKey = options.apiKey ?? handle.defaultAccount.apiKey;
    // Beyond loopback (`host: '0.0.0.0'`) or with `controlKey` given, the control API needs the key.
    const controlKey = handle.config.controlKey ?? null;
    const live = handle.live;
    const helpers = buildHelpers({
      url: handle.urls.http,
      apiKey,
      controlKey,
      subscribe: (changed) => {
        const offs = [
          live.on('delivery.created', changed),
          live.on('delivery.updated', changed),
          live.on('attempt.completed', changed),
          live.on('message.created', changed),
          live.on('message.updated', changed),
        ];
        return () => {
          for (const off of offs) off();
        };
      },
      runScenario: (scenario, opts) => runScenarioInProcess(handle.services.scenarios, scenario, opts),
    });
    // Looked up in the process (an HTTP request here would load fetch's machinery into every test file's start).
    const account = handle.services.accounts.authenticate(apiKey);
    const smtpPort = handle.ports.smtp!;
    let stopping: Promise<void> | undefined;
    const stop = () => (stopping ??= handle.close());
    return {
      ...helpers,
      version: handle.version,
      urls: { http: handle.urls.http, smtp: handle.urls.smtp! },
      httpPort: handle.ports.http,
      smtp: { host: handle.config.host, port: smtpPort, certificate: handle.smtpCertificate?.pem ?? null },
      smtpPort,
      accountId: account?.id ?? handle.defaultAccount.id,
      dataDir: handle.dataDir,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (err) {
    // Never leave a started emulator behind: it would keep the test process alive.
    await handle.close();
    throw err instanceof MailyardStartError
      ? err
      : new MailyardStartError(`startMailyard: the emulator started at ${handle.urls.http} but could not be reached: ${(err as Error).message}`, undefined, {
          cause: err,
        });
  }
}
