import { version as VERSION } from '../../../../package.json';
import type { ScenarioService } from '../../scenario/scenario.service';
import { CatchersService } from '../../services/catchers/catchers.service';
import { CLOCK_SETTLE_WAIT_MS, ClockService } from '../../services/clock.service';
import { MailImport } from '../../services/mail-files/mail-import';
import { ReceiverCheckService } from '../../services/receiver-check/receiver-check.service';
import { ResetService } from '../../services/reset.service';
import { SnapshotService } from '../../services/snapshot/snapshot.service';
import { StatsService } from '../../services/stats.service';
import { CatchersRepo } from '../../store/catchers.repo';
import { ResetRepo } from '../../store/reset.repo';
import { StatsRepo } from '../../store/stats.repo';
import { attemptTransport } from '../delivery';
import { buildRetention } from '../retention';
import { buildScenarioService } from '../scenarios';
import type { EventsArea } from './events';
import type { AreaFoundations } from './foundations';
import type { MailersArea } from './mailers';
import type { MessagesArea } from './messages';
import type { Receivers } from './receivers';
import type { SendingArea } from './sending';

/**
 * What acts on all the others, built last: the reset, the clock's controls, the stats, the catchers,
 * the receiver checks and the scenario runner.
 */
export function buildControl(
  f: AreaFoundations,
  { webhooks, inbound }: Pick<Receivers, 'webhooks' | 'inbound'>,
  { messagesRepo, emailEvents, simulator, rules }: Pick<EventsArea, 'messagesRepo' | 'emailEvents' | 'simulator' | 'rules'>,
  { relay, imap, secretKeys }: Pick<MailersArea, 'relay' | 'imap' | 'secretKeys'>,
  { email, domains }: Pick<SendingArea, 'email' | 'domains'>,
  { chaos, mailIntake }: Pick<MessagesArea, 'chaos' | 'mailIntake'>,
) {
  const { db, config, clock, live, accounts, dispatcher } = f;
  // The scenario runner is built after the reset (it uses nearly every service); asked only when an account is deleted.
  let scenarios: ScenarioService | undefined;
  const reset = new ResetService({
    repo: new ResetRepo(db),
    dispatcher,
    deliveryWorker: f.delivery.worker,
    targets: f.delivery.targets,
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
    runUsing: (accountId) => {
      const run = scenarios?.active()?.run;
      return run !== undefined && (accountId === undefined || run.accountId === accountId) ? run.id : undefined;
    },
    announceDeleted: (account) => live.emit('account.deleted', account),
    flushWrites: () => f.writes.flush(),
    forgetCached: () => {
      webhooks.forgetCached();
      domains.forgetCached();
      inbound.forgetCached();
      // Wiped with the store: read afresh.
      rules.forgetCached();
      // Not stored, but test state all the same: a suite resetting between tests inherits no SMTP refusals.
      chaos.reset();
    },
    drainTimeoutMs: config.deliveryTimeoutMs + config.shutdownGraceMs,
  });
  const clockControl = new ClockService({ clock, deliveries: f.delivery.queries, worker: f.delivery.worker, simulator, settleWaitMs: CLOCK_SETTLE_WAIT_MS });
  const catchers = new CatchersService({
    repo: new CatchersRepo(db),
    clock,
    wallClock: Date.now,
    accounts,
    webhooks,
    baseUrl: () => f.publicUrl.http,
    sender: (webhookId) => dispatcher.sender(webhookId),
    live,
  });
  scenarios = buildScenarioService({
    accounts,
    webhooks,
    email,
    emailEvents,
    rules,
    clock,
    clockControl,
    deliveries: f.delivery.queries,
    faults: f.delivery.faults,
    live,
    publicUrl: f.publicUrl,
    logger: f.logger,
    folders: f.scenarioFolders,
  });
  return {
    reset,
    clockControl,
    stats: new StatsService({ repo: new StatsRepo(db), clock }),
    catchers,
    receiverChecks: new ReceiverCheckService({ urlPolicy: f.urlPolicy, transport: attemptTransport(config, f.lookup) }),
    scenarios,
    // Retention: the store held to --max-messages and --max-age (services/retention).
    retention: buildRetention(f),
    mailImport: new MailImport({
      capture: async (mail) => (await mailIntake.accept(mail)).refIds,
      accountIdOr404: (id) => accounts.accountIdOr404(id),
      maxMessageBytes: config.maxMessageBytes,
    }),
    snapshots: new SnapshotService({ db, clock, version: VERSION, mailerKey: () => secretKeys.load() }),
  };
}
