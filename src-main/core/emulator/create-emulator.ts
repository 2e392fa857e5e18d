import { version } from '../../../package.json';
import type { Health } from '../../../src-shared/schemas/emulator';
import { EmulatorClock, isoTimestamp } from '../clock';
import { defaultDataDir, type EmulatorConfigInput, EmulatorConfigSchema } from '../config';
import { withControlKey } from '../http/control-auth';
import { LiveBus } from '../live-bus';
import { createLogger } from '../logger';
import { lookupHost } from '../net/reachability';
import { ScenarioFolders } from '../scenario/scenario-folders';
import { AccountsService, toAccountRecord } from '../services/accounts.service';
import { catcherUrls } from '../services/catchers/catchers.service';
import { AccountsRepo } from '../store/accounts.repo';
import { StateRepo } from '../store/state.repo';
import { WebhooksRepo } from '../store/webhooks.repo';
import { buildDelivery } from './delivery';
import { restoredClockOffset, startWorkers, stopEmulator } from './lifecycle';
import { type Listeners, startListeners } from './listeners';
import { buildServices } from './services';
import { prepareSnapshotStart } from './snapshot-start';
import { openStore } from './store';
import type { EmulatorHandle, EmulatorSeams, PublicUrl } from './types';

export const VERSION = version;

/**
 * The one composition root: validates the config, opens the store, builds the dispatcher and the
 * services (services.ts, in the order they depend on each other), starts the listeners and the workers,
 * and answers a handle whose close() stops it all gracefully (lifecycle.ts). The CLI and the desktop
 * shell are thin wrappers around it. Never imports electron.
 */
export async function createEmulator(input: EmulatorConfigInput = {}, seams: EmulatorSeams = {}): Promise<EmulatorHandle> {
  // Beyond loopback the control API needs a key: a random one when none was given.
  const config = withControlKey(EmulatorConfigSchema.parse(input));
  const logger = seams.logger ?? createLogger(config.logLevel);
  const dataDir = config.memory ? null : (config.dataDir ?? defaultDataDir());
  // A scenarios folder that is not there fails the start, naming it, before anything opens.
  const scenarioFolders = new ScenarioFolders(config.scenarioDirs);
  // --from-snapshot: the snapshot checked and copied before anything opens (the file itself is only read).
  const snapshot = config.fromSnapshot === undefined ? undefined : prepareSnapshotStart(config.fromSnapshot, dataDir);
  if (snapshot?.secretKeys !== undefined && seams.secretKeys === undefined) seams = { ...seams, secretKeys: snapshot.secretKeys };
  const store = await openStore(dataDir, { nativeBinding: seams.sqliteNativeBinding, logger, idleMs: config.storeIdleMs, startFrom: snapshot?.bytes });
  snapshot?.opened(store.db);
  const { db } = store;
  let clock: EmulatorClock | undefined;
  let listeners: Listeners | undefined;
  try {
    const state = new StateRepo(db);
    // A fresh store starts the clock at clockStart when given; a saved offset wins (time never moves back).
    const saved = restoredClockOffset(state);
    const offset = saved === 0 && config.clockStart !== undefined ? Date.parse(config.clockStart) - Date.now() : saved;
    clock = seams.clock ?? new EmulatorClock(offset);
    const startedAt = isoTimestamp(clock.now());
    const live = new LiveBus();
    const accounts = new AccountsService({
      repo: new AccountsRepo(db),
      clock,
      defaultPayloadFormat: config.payloadFormat,
      created: (account) => live.emit('account.created', toAccountRecord(account)),
    });
    // Filled in once the HTTP listener has its port (tracking links, OAuth pages, catchers).
    const publicUrl: PublicUrl = { http: '' };
    const delivery = buildDelivery({
      db,
      config,
      clock,
      live,
      logger,
      accounts,
      lookup: seams.lookup ?? lookupHost,
      space: store.space,
      publicUrl,
    });
    const { services, writes } = buildServices({
      db,
      dataDir,
      config,
      seams,
      clock,
      live,
      logger,
      accounts,
      // A webhook pointing at a catcher follows it to whatever port this start listens on.
      webhooksRepo: new WebhooksRepo(
        db,
        catcherUrls(() => publicUrl.http),
      ),
      delivery,
      publicUrl,
      space: store.space,
      scenarioFolders,
    });
    store.space.onChange((s) => live.emit('store.changed', s));
    const defaultAccount = accounts.bootstrap(config.apiKey);

    let health: Omit<Health, 'store'> | undefined;
    // What /readyz says: the listener answers before the SMTP sink and the workers run.
    let phase: 'starting' | 'ready' | 'stopping' = 'starting';
    listeners = await startListeners({
      config,
      dataDir,
      version,
      logger,
      clock,
      live,
      services,
      health: () => ({ ...health!, store: store.space.state() }),
      readiness: () => (phase === 'ready' && store.space.state().full ? 'store_full' : phase),
      wallClock: seams.wallClock,
    });
    const { urls, ports } = listeners;
    publicUrl.http = urls.http;
    publicUrl.smtpPort = ports.smtp;
    health = { status: 'ok', version, started_at: startedAt, urls, ports, data_dir: dataDir };
    startWorkers(services, clock, live, state);
    phase = 'ready';
    logger.info({ urls, dataDir }, 'mailyard started');

    const parts = { config, services, listeners, writes, clock, state, store, logger };
    let closing: Promise<void> | undefined;
    return {
      version,
      config,
      dataDir,
      warnings: store.warnings,
      urls,
      ports,
      smtpCertificate: listeners.smtpCertificate,
      defaultAccount,
      clock,
      live,
      services,
      close: () => {
        if (closing === undefined) {
          phase = 'stopping';
          // With 'mailyard stopped' at the end: how long a stop took, in the log (a container's stop is timed so).
          logger.info('mailyard stopping');
          closing = stopEmulator(parts);
        }
        return closing;
      },
    };
  } catch (err) {
    await listeners?.http.close();
    await listeners?.smtp.close();
    clock?.dispose();
    await store.close();
    throw err;
  }
}
