import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Scenario } from '../../../src-shared/scenario/format';
import type { ScenarioReport, ScenarioRun } from '../../../src-shared/scenario/report';
import { appError } from '../error-catalogue';
import type { AppError } from '../errors';
import { parseScenario, type ScenarioFileError, validateScenario } from './parse';
import { renderReportHtml } from './report-html';
import { ScenarioExecution, type ScenarioOrigin, type ScenarioRunDeps } from './run';
import type { RunAccountChoice } from './run-account';
import type { ScenarioFolders } from './scenario-folders';

export interface ScenarioServiceDeps extends ScenarioRunDeps {
  /** uPlot's script and stylesheet, inlined in the HTML report (read once, on the first report). */
  uplotAssets: () => { uplotJs: string; uplotCss: string };
  /** The folders whose files the control API may run, apps included (`--scenarios DIR`). */
  folders: ScenarioFolders;
}

export interface StartOptions {
  /** An existing account to run on (sending as it), instead of the scenario's own (`account`: new or default). */
  accountId?: string;
  /** Where report.json, report.html and run.log go once the run has ended. */
  reportDir?: string;
  /** Each line of the run's log as it is written (the CLI prints them). */
  onLog?: (line: string) => void;
}

/** A finished run's files in `dir`: report.json, report.html (given rendered) and run.log. */
export async function writeReportFiles(dir: string, report: ScenarioReport, html: string, log: string): Promise<{ json: string; html: string; log: string }> {
  await mkdir(dir, { recursive: true });
  const files = { json: join(dir, 'report.json'), html: join(dir, 'report.html'), log: join(dir, 'run.log') };
  await writeFile(files.json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(files.html, html);
  await writeFile(files.log, log);
  return files;
}

/** Runs kept in memory (newest first): a limit, so a long-lived emulator does not grow without end. */
export const MAX_KEPT_RUNS = 50;

/** A bad file: 400 with every problem (path, line, column) in `details.errors` and by field in `details.fields`. */
export function scenarioFileError(errors: ScenarioFileError[]): AppError {
  const first = errors[0]!;
  const where = first.line === null ? '' : ` (line ${first.line}${first.column === null ? '' : `, column ${first.column}`})`;
  return appError('scenarioFileInvalid', {
    count: errors.length,
    first: `${first.path ? `${first.path}: ` : ''}${first.message}${where}`,
    fields: errors.map((e) => ({ path: e.path, message: e.line === null ? e.message : `${e.message} (line ${e.line}, column ${e.column})` })),
    errors,
  });
}

/**
 * The QA scenarios: one run at a time (a run takes over the simulation rules and the clock), its live
 * progress on the bus, its report.
 */
export class ScenarioService {
  private readonly runs: ScenarioExecution[] = [];
  private lastAnnounced = 0;
  private pendingAnnounce: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ScenarioServiceDeps) {}

  get folders(): ScenarioFolders {
    return this.deps.folders;
  }

  /** The parsed scenario, or a 400 naming every problem. */
  parse(source: string | object): Scenario {
    const r = typeof source === 'string' ? parseScenario(source) : validateScenario(source);
    if (!r.ok) throw scenarioFileError(r.errors);
    return r.scenario;
  }

  list(): ScenarioRun[] {
    return this.runs.map((r) => r.run);
  }

  get(id: string): ScenarioExecution {
    const run = this.runs.find((r) => r.run.id === id);
    if (!run) throw appError('scenarioRunNotFound', { id });
    return run;
  }

  active(): ScenarioExecution | undefined {
    return this.runs.find((r) => r.report === null);
  }

  /** A scenario posted over HTTP (its text, or an object): it runs unless it would start an app (403). */
  startPosted(source: string | object, name: string | null, opts: StartOptions = {}): { run: ScenarioRun; done: Promise<ScenarioReport> } {
    const scenario = this.parse(source);
    if (scenario.app) throw appError('postedAppRefused');
    return this.launch(scenario, { dir: null, label: name }, opts);
  }

  /** A file of a scenarios folder, by its path as listed or its absolute path (404/403 outside them); its app may start. */
  async startListed(path: string, opts: StartOptions = {}): Promise<{ run: ScenarioRun; done: Promise<ScenarioReport> }> {
    const { path: listed, file, source } = await this.deps.folders.read(path);
    return this.launch(this.parse(source), { dir: dirname(file), label: listed }, opts);
  }

  /**
   * A scenario the process holding the emulator chose (the CLI's file, the testing API's file or
   * object): it may start an app, in the file's folder (an object's: the working folder). Never
   * reached over HTTP.
   */
  start(input: { source: string | object; file: string | null }, opts: StartOptions = {}): { run: ScenarioRun; done: Promise<ScenarioReport> } {
    const dir = input.file === null ? process.cwd() : dirname(resolve(input.file));
    return this.launch(this.parse(input.source), { dir, label: input.file }, opts);
  }

  /** Starts a run (409 while one runs); `done` resolves with its report, written to `reportDir` when given. */
  private launch(scenario: Scenario, origin: ScenarioOrigin, opts: StartOptions): { run: ScenarioRun; done: Promise<ScenarioReport> } {
    const busy = this.active();
    if (busy) throw appError('scenarioRunBusy', { id: busy.run.id, name: busy.run.name });
    const target = this.accountFor(scenario, opts.accountId);
    const exec = new ScenarioExecution(
      { ...this.deps, onLog: opts.onLog ?? this.deps.onLog },
      scenario,
      origin,
      randomUUID(),
      (run) => this.announce(run),
      target,
    );
    this.runs.unshift(exec);
    this.runs.splice(MAX_KEPT_RUNS);
    const done = exec.execute().then(async (report) => {
      this.announce(report.run, true);
      if (opts.reportDir) await this.writeReport(report, exec.log.text(), opts.reportDir);
      return report;
    });
    return { run: exec.run, done };
  }

  /**
   * The existing account a run sends as (the one named, else the default one for `account: default`),
   * or null for a new one: 404 for an unknown id, 409 when the account's own webhook would be replaced
   * by the scenario's.
   */
  private accountFor(scenario: Scenario, accountId: string | undefined): RunAccountChoice {
    const account = accountId !== undefined ? this.deps.accounts.get(accountId) : scenario.account === 'default' ? this.deps.accounts.defaultAccount() : null;
    if (accountId !== undefined && !account) throw appError('scenarioAccountNotFound', { id: accountId });
    if (!account) return null;
    const webhook = scenario.webhook && this.deps.webhooks.get(account.id, 'EMAIL_EVENT');
    if (webhook) throw appError('scenarioWebhookTaken', { account: `"${account.name}" (${account.id})`, url: webhook.webhook_url });
    return { accountId: account.id };
  }

  stop(id: string): ScenarioRun {
    const exec = this.get(id);
    exec.stop();
    return exec.run;
  }

  report(id: string): ScenarioReport {
    const exec = this.get(id);
    if (!exec.report) throw appError('scenarioReportPending', { id });
    return exec.report;
  }

  reportHtml(id: string): string {
    return renderReportHtml(this.report(id), this.deps.uplotAssets());
  }

  /** A run's log: its lines after `after`. */
  log(id: string, after = 0) {
    return this.get(id).log.since(after);
  }

  /** report.json, report.html and run.log in `dir`. */
  writeReport(report: ScenarioReport, log: string, dir: string): Promise<{ json: string; html: string; log: string }> {
    return writeReportFiles(dir, report, renderReportHtml(report, this.deps.uplotAssets()), log);
  }

  /** Stops a run under way and waits for it (the emulator is closing). */
  async close(): Promise<void> {
    const exec = this.active();
    if (!exec) return;
    exec.stop();
    await new Promise<void>((resolve) => {
      const check = () => (exec.report ? resolve() : setTimeout(check, 50));
      check();
    });
  }

  /** `scenario.updated` on the live bus, at most 4 a second (the last state always goes out). */
  private announce(run: ScenarioRun, final = false): void {
    const emit = () => {
      this.lastAnnounced = Date.now();
      this.pendingAnnounce = undefined;
      this.deps.live.emit('scenario.updated', { ...run, progress: { ...run.progress } });
    };
    if (final || Date.now() - this.lastAnnounced >= 250) {
      clearTimeout(this.pendingAnnounce);
      emit();
    } else this.pendingAnnounce ??= setTimeout(emit, 250 - (Date.now() - this.lastAnnounced));
  }
}
