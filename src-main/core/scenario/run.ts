import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { EMAIL_EVENT_KINDS } from '../../../src-shared/events';
import { clockMoveSentence, clockNoteBefore } from '../../../src-shared/scenario/clock-move';
import { type Scenario, scenarioSeed } from '../../../src-shared/scenario/format';
import { inconclusiveReason, type ScenarioReport, type ScenarioRun, type ScenarioRunStatus } from '../../../src-shared/scenario/report';
import type { SendEmailBody, SimulationRule } from '../../../src-shared/schemas/email';
import { type EmulatorClock, isoTimestamp } from '../clock';
import type { DeliveryQueries } from '../dispatch/delivery-queries';
import type { LiveBus } from '../live-bus';
import type { Account, AccountsService } from '../services/accounts.service';
import type { EmailEventsService } from '../services/events/email-events.service';
import type { SimulationRules } from '../services/simulation/rules.service';
import type { WebhooksService } from '../services/webhooks.service';
import { AppFailure, AppProcess, describeExit } from './app-process';
import { buildReport } from './build-report';
import { CopyKeys } from './copy-keys';
import { type FaultsSeam, faultsFor } from './faults';
import { finishRetries, unsettledDeliveries } from './finish-retries';
import { ScenarioObserver } from './observer';
import { eventsFor, outcomeFor } from './plan';
import { openRunAccount, type RunAccountChoice } from './run-account';
import { RunLog } from './run-log';
import { runTraffic } from './traffic';

/** What a run needs of the emulator. */
export interface ScenarioRunDeps {
  accounts: Pick<AccountsService, 'create' | 'defaultAccount' | 'get'>;
  webhooks: Pick<WebhooksService, 'register' | 'get' | 'delete'>;
  email: { send(accountId: string, body: SendEmailBody): Promise<{ ref_id: string }> };
  emailEvents: Pick<EmailEventsService, 'record'>;
  rules: Pick<SimulationRules, 'list' | 'replace'>;
  clock: Pick<EmulatorClock, 'now' | 'state' | 'setSpeed' | 'setTimer'>;
  deliveries: Pick<DeliveryQueries, 'count' | 'nextDueAt'>;
  /** Moves the emulator clock as the control API does: answers once the work it made due is recorded. */
  clockControl: { set(body: { advance_ms: number }): Promise<unknown> };
  faults: FaultsSeam;
  live: LiveBus;
  /** The emulator's HTTP URL and SMTP port (for the app under test). */
  endpoints: () => { http: string; smtpPort: number | null };
  logger: Logger;
  /** Lines for a person following the run (the CLI prints them): the run's log as it is written. */
  onLog?: (line: string) => void;
}

/** Where a run's scenario came from: the folder its app starts in, and how the run names it. */
export interface ScenarioOrigin {
  /** The app's base folder (its file's folder): null for text posted over HTTP, which starts no app. */
  dir: string | null;
  /** How the run and its report name it (a scenarios folder's path as listed, the file, a posted name). */
  label: string | null;
}

const LOG_PREFIX = { runner: '', stdout: 'app: ', stderr: 'app (stderr): ' } as const;

/** Every run's events go through the run; the emulator's own simulated events are off for it (`*`: none). */
const RUN_RULES: SimulationRule[] = [{ pattern: '*', events: [] }];
const UPDATE_EVERY_MS = 250;

/** One scenario run, from set-up to report: see docs/scenarios.md for what it changes and restores. */
export class ScenarioExecution {
  readonly run: ScenarioRun;
  report: ScenarioReport | null = null;
  private stopRequested = false;
  private readonly timers = new Set<() => void>();
  private readonly startMs: number;
  private readonly startWall = Date.now();
  private observer!: ScenarioObserver;
  private sendErrors = 0;
  /** The sends the traffic made (their ref_ids): the rest of the account's sends are the app's. */
  private readonly trafficRefs = new Set<string>();
  /** The run's copies, keyed for the seeded draws. */
  private readonly copies = new CopyKeys();
  readonly log: RunLog;

  constructor(
    private readonly deps: ScenarioRunDeps,
    readonly scenario: Scenario,
    readonly origin: ScenarioOrigin,
    id: string,
    private readonly onUpdate: (run: ScenarioRun) => void,
    private readonly target: RunAccountChoice = null,
  ) {
    this.startMs = deps.clock.now();
    this.log = new RunLog((line) => deps.onLog?.(`${LOG_PREFIX[line.source]}${line.text}`));
    this.run = {
      id,
      name: scenario.name,
      file: origin.label,
      status: 'starting',
      startedAt: isoTimestamp(this.startMs),
      finishedAt: null,
      accountId: '',
      newAccount: target === null,
      seed: scenarioSeed(scenario),
      error: null,
      progress: {
        fraction: 0,
        sends: 0,
        plannedSends: scenario.traffic?.count ?? null,
        events: 0,
        deliveries: 0,
        attempts: 0,
        acknowledged: 0,
        failedAttempts: 0,
        violations: 0,
        elapsedMs: 0,
        emulatedMs: 0,
      },
    };
  }

  stop(): void {
    this.stopRequested = true;
  }

  private say(line: string): void {
    this.log.add('runner', line);
  }

  private refresh(): ScenarioRun {
    const o = this.observer;
    const emulatedMs = this.deps.clock.now() - this.startMs;
    const planned = this.run.progress.plannedSends;
    const byTime = Math.min(1, emulatedMs / Math.max(1, this.scenario.duration));
    const bySends = planned ? o.sends / planned : 0;
    Object.assign(this.run.progress, {
      fraction: Math.min(1, Math.max(byTime, bySends)),
      sends: o.sends,
      events: o.events,
      deliveries: o.deliveries.size,
      attempts: o.attemptsMade,
      acknowledged: o.acknowledged,
      failedAttempts: o.failedAttempts,
      violations: o.violationCount(),
      elapsedMs: Date.now() - this.startWall,
      emulatedMs,
    });
    return this.run;
  }

  private setStatus(status: ScenarioRunStatus): void {
    this.run.status = status;
    this.onUpdate(this.refresh());
  }

  /** Runs to the end; never throws (a failure is the run's `error` status). */
  async execute(): Promise<ScenarioReport> {
    const { deps, scenario: s } = this;
    this.say(
      `scenario "${s.name}"${this.origin.label ? ` (${this.origin.label})` : ''}: ${s.duration / 1000} s emulated at ${s.clock === 'realtime' ? 'real time' : `${s.clock.speed}x`}`,
    );
    this.say(clockNoteBefore(s.duration, s.clock === 'realtime' ? 1 : s.clock.speed));
    let account: Account;
    const existing = this.target?.accountId;
    try {
      account = openRunAccount(deps.accounts, this.target, s.name, this.startWall);
    } catch (err) {
      this.observer = new ScenarioObserver('', s.expect, this.startMs, isoTimestamp);
      this.run.error = `could not ${existing === undefined ? 'make' : 'use'} the run's account: ${err instanceof Error ? err.message : String(err)}`;
      this.say(`error: ${this.run.error}`);
      return this.finish('error', '');
    }
    this.run.accountId = account.id;
    this.say(
      `account ${account.id}${existing === undefined ? ' (new, for this run)' : ` ("${account.name}", an existing account: its other sends during the run count too)`}`,
    );
    this.observer = new ScenarioObserver(account.id, s.expect, this.startMs, isoTimestamp, s.app !== undefined);
    const savedRules = deps.rules.list();
    const savedSpeed = deps.clock.state().speed;
    const seed = this.run.seed;
    this.say(
      `seed ${seed}${s.seed === undefined && s.webhookDelivery?.seed === undefined ? ' (the default)' : ''}: a run of this file with this seed fires the same events`,
    );
    const unsubscribe = this.listen(seed);
    let app: AppProcess | undefined;
    let status: ScenarioRunStatus = 'running';
    /** The scenario's webhook, once registered on an account the run did not make (removed at the end). */
    let lentWebhook = false;
    try {
      deps.rules.replace(RUN_RULES);
      deps.clock.setSpeed(s.clock === 'realtime' ? 1 : s.clock.speed);
      if (s.webhook) {
        // Every kind unless the scenario names some.
        const events = Object.fromEntries((s.webhook.events ?? EMAIL_EVENT_KINDS).map((k) => [k, true]));
        await deps.webhooks.register(account.id, {
          webhook_url: s.webhook.url,
          event: 'EMAIL_EVENT',
          method: 'POST',
          ...(s.webhook.headers ? { headers: s.webhook.headers } : {}),
          webhook_options: { events },
        });
        lentWebhook = existing !== undefined;
        this.say(`webhook registered: ${s.webhook.url}${lentWebhook ? ' (for the run: removed from the account at its end)' : ''}`);
      }
      const faults = faultsFor(s, this.startMs, seed, (ref, recipient) => this.copies.of(ref, recipient));
      deps.faults.set(account.id, faults);
      this.setStatus('running');
      const ticker = setInterval(() => this.onUpdate(this.refresh()), UPDATE_EVERY_MS);
      try {
        if (s.app) app = await this.startApp(s.app, account.apiKey);
        let trafficDone = !s.traffic;
        const traffic = s.traffic
          ? runTraffic({
              traffic: s.traffic,
              clock: deps.clock as EmulatorClock,
              stopped: () => this.stopRequested || this.timeUp(),
              send: async (body) => this.trafficRefs.add((await deps.email.send(account.id, body)).ref_id),
              onError: (n, err) => {
                if (this.sendErrors++ < 3) this.say(`traffic send ${n} failed: ${err instanceof Error ? err.message : String(err)}`);
              },
            }).finally(() => (trafficDone = true))
          : Promise.resolve(0);
        // An app runs until the run's end (its duration); traffic alone ends once sent and settled.
        while (!this.stopRequested && !this.timeUp()) {
          this.checkApp(app);
          if (!app && trafficDone && this.settled(account.id)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        const sent = await traffic;
        if (s.traffic) this.say(`traffic: ${sent} of ${s.traffic.count} sends made${this.sendErrors ? `, ${this.sendErrors} refused` : ''}`);
        if (!this.stopRequested && this.timeUp()) {
          // The run's own events end with the duration: only deliveries of those already fired go on.
          this.cancelTimers();
          await finishRetries(deps, account.id, { stopped: () => this.stopRequested, say: (line) => this.say(line) });
        }
        this.checkApp(app);
        status = this.stopRequested ? 'stopped' : 'passed';
        if (status === 'passed' && s.app && this.observer.sendsOutside(this.trafficRefs) === 0) {
          this.say('the app sent nothing: does it send to MAILYARD_URL or MAIL_API_URL with MAILYARD_API_KEY? (its output is in this log)');
        }
      } finally {
        clearInterval(ticker);
      }
    } catch (err) {
      status = 'error';
      this.run.error = err instanceof Error ? err.message : String(err);
      this.say(`error: ${this.run.error}`);
    } finally {
      if (app && app.exitedWith === undefined) {
        await app.stop();
        this.say(`app stopped (it ${describeExit(app.exitedWith!)})`);
      }
      this.cancelTimers();
      unsubscribe();
      deps.faults.set(account.id, null);
      try {
        deps.rules.replace(savedRules);
        deps.clock.setSpeed(savedSpeed);
        if (lentWebhook) deps.webhooks.delete(account.id, { event: 'EMAIL_EVENT' });
      } catch (err) {
        deps.logger.warn({ err }, "scenario: could not restore the rules, the clock speed or the account's webhook");
      }
    }
    return this.finish(status, account.id);
  }

  /** An app that has ended before the run's end fails the run: what it did cannot be judged. */
  private checkApp(app: AppProcess | undefined): void {
    const exit = app?.exitedWith;
    if (!app || exit === undefined) return;
    const at = Math.round((this.deps.clock.now() - this.startMs) / 1000);
    throw new AppFailure(
      `the app ${describeExit(exit)} before the run's end (${at} s of the run's ${this.scenario.duration / 1000} s, emulated); it must keep running until Mailyard stops it`,
      app,
    );
  }

  private finish(status: ScenarioRunStatus, accountId: string): ScenarioReport {
    this.refresh();
    // The run is over, however it ended: its progress is complete.
    this.run.progress.fraction = 1;
    this.run.finishedAt = isoTimestamp(this.deps.clock.now());
    const clockSpeed = this.scenario.clock === 'realtime' ? 1 : this.scenario.clock.speed;
    let pendingAtEnd = 0;
    let faults = { duplicates: 0, reordered: 0, delayed: 0, outageRefusals: 0 };
    try {
      if (accountId) pendingAtEnd = this.deps.deliveries.count({ account_id: accountId, status: 'pending' });
      if (accountId) faults = this.deps.faults.stats(accountId);
    } catch (err) {
      // The store is closing (the emulator stops): the report goes without these figures.
      this.deps.logger.warn({ err }, 'scenario: could not read the pending deliveries or the fault figures');
    }
    this.run.status = status;
    const report = buildReport({
      run: this.run,
      scenario: this.scenario,
      file: this.origin.label,
      clockSpeed,
      observer: this.observer,
      faults,
      pendingAtEnd,
      trafficRefs: this.trafficRefs,
    });
    if (status === 'passed') this.run.status = report.verdict === 'pass' ? 'passed' : report.verdict === 'fail' ? 'failed' : 'inconclusive';
    const o = this.observer;
    this.say(
      `run ${this.run.status}${this.run.status === 'error' ? '' : `, verdict ${report.verdict}`}: ${o.sends} sends, ${o.events} events, ${o.deliveries.size} webhook deliveries, ${o.attemptsMade} attempts, ${o.violationCount()} violations`,
    );
    const why = inconclusiveReason(report);
    if (why) this.say(`inconclusive: ${why}`);
    this.say(clockMoveSentence(report.clock));
    report.run = { ...this.run, progress: { ...this.run.progress } };
    this.report = report;
    this.onUpdate(this.run);
    return report;
  }

  private timeUp(): boolean {
    return this.deps.clock.now() - this.startMs >= this.scenario.duration;
  }

  /** The run's events not fired yet will not be. */
  private cancelTimers(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
  }

  /** Nothing left to fire, no delivery of the run's account waiting or in flight. */
  private settled(accountId: string): boolean {
    return this.timers.size === 0 && unsettledDeliveries(this.deps.deliveries, accountId) === 0;
  }

  private async startApp(spec: NonNullable<Scenario['app']>, apiKey: string): Promise<AppProcess> {
    const { http, smtpPort } = this.deps.endpoints();
    const env: Record<string, string> = {
      MAILYARD_URL: http,
      MAILYARD_API_KEY: apiKey,
      MAILYARD_SMTP_PORT: smtpPort === null ? '' : String(smtpPort),
      // What examples/shop reads (as in production: the service's URL, its key, the webhook's shared secret).
      MAIL_API_URL: http,
      MAIL_API_KEY: apiKey,
      MAIL_WEBHOOK_SECRET: `scenario-${this.run.id}`,
      PORT: '0',
      ...spec.env,
    };
    // Only a scenario file on disk starts an app (ScenarioService refuses one in posted text): its folder is the base.
    if (this.origin.dir === null) throw new Error('an app starts only from a scenario file on disk');
    const base = this.origin.dir;
    const cwd = spec.cwd ? resolve(base, spec.cwd) : base;
    const app = new AppProcess({
      command: spec.command,
      cwd,
      env,
      readyUrl: spec.readyUrl,
      timeoutMs: spec.timeout ?? 30_000,
      onLine: (stream, line) => this.log.add(stream, line),
    });
    this.say(`app started: ${spec.command} (in ${cwd})`);
    try {
      await app.ready(() => this.stopRequested);
    } catch (err) {
      await app.stop();
      throw err;
    }
    this.say(spec.readyUrl ? `app ready: ${spec.readyUrl} answered 2xx` : 'app running (no readyUrl: ready once started)');
    return app;
  }

  /** Follows the run's account on the live bus; fires each copy's events on the emulator clock. */
  private listen(seed: number): () => void {
    const { live, clock, emailEvents } = this.deps;
    const o = this.observer;
    const offs = [
      live.on('message.created', (m) => {
        const now = clock.now();
        if (!o.onMessage(m, now)) return;
        // The copy's draws are keyed by what a rerun repeats (its address and number), never its id.
        const copy = this.copies.note(m.ref_id, m.recipient.email, o.recipients.get(m.recipient.email.toLowerCase()) ?? 1);
        const events = eventsFor(outcomeFor(this.scenario, m.recipient.email, seed), m.recipient.email, copy, seed);
        for (const e of events) {
          const cancel = clock.setTimer(now + e.atMs, () => {
            this.timers.delete(cancel);
            try {
              const at = clock.now();
              const recorded = emailEvents.record(m.id, e.kind, e.fields, at);
              o.onFired(e, m.recipient.email, m.id, recorded?.deliveryId ?? null, at);
            } catch (err) {
              this.deps.logger.warn({ err, kind: e.kind }, 'scenario: an event could not be fired');
            }
          });
          this.timers.add(cancel);
        }
      }),
      live.on('delivery.created', (d) => o.onDeliveryCreated(d)),
      live.on('delivery.updated', (d) => o.onDeliveryUpdated(d)),
      live.on('attempt.completed', ({ delivery_id, attempt }) => o.onAttempt(delivery_id, attempt, clock.now())),
    ];
    return () => {
      for (const off of offs) off();
    };
  }
}
