import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Scenario } from '../../../src-shared/scenario/format';
import type { ScenarioReport, ScenarioRun } from '../../../src-shared/scenario/report';
import { AppError } from '../errors';
import { parseScenario, validateScenario, type ScenarioFileError } from './parse';
import { renderReportHtml } from './report-html';
import { ScenarioExecution, type ScenarioRunDeps } from './run';

export interface ScenarioServiceDeps extends ScenarioRunDeps {
  /** uPlot's script and stylesheet, inlined in the HTML report (read once, on the first report). */
  uplotAssets: () => { uplotJs: string; uplotCss: string };
}

/** Runs kept in memory (newest first): a limit, so a long-lived emulator does not grow without end. */
export const MAX_KEPT_RUNS = 50;

/** A bad file: 400 with every problem (path, line, column) in `details.errors` and by field in `details.fields`. */
export function scenarioFileError(errors: ScenarioFileError[]): AppError {
  const first = errors[0]!;
  const where = first.line === null ? '' : ` (line ${first.line}${first.column === null ? '' : `, column ${first.column}`})`;
  return new AppError(
    'validation',
    `the scenario file has ${errors.length} problem${errors.length === 1 ? '' : 's'}: ${first.path ? `${first.path}: ` : ''}${first.message}${where}`,
    errors.map((e) => ({ path: e.path, message: e.line === null ? e.message : `${e.message} (line ${e.line}, column ${e.column})` })),
    { details: { errors } },
  );
}

/** The QA scenarios (issue 29): one run at a time, its live progress on the bus, its report. */
export class ScenarioService {
  private readonly runs: ScenarioExecution[] = [];
  private lastAnnounced = 0;
  private pendingAnnounce: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ScenarioServiceDeps) {}

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
    if (!run) throw new AppError('not_found', `no scenario run ${id}`);
    return run;
  }

  active(): ScenarioExecution | undefined {
    return this.runs.find((r) => r.report === null);
  }

  /** Starts a run (409 while one runs); `done` resolves with its report. */
  start(source: string | object, file: string | null = null, opts: { reportDir?: string; onLog?: (line: string) => void } = {}): { run: ScenarioRun; done: Promise<ScenarioReport> } {
    const scenario = this.parse(source);
    const busy = this.active();
    if (busy) throw new AppError('conflict', `a scenario run is under way (${busy.run.id}, ${busy.run.name}); stop it or wait for it to finish`);
    const exec = new ScenarioExecution({ ...this.deps, onLog: opts.onLog ?? this.deps.onLog }, scenario, file, randomUUID(), (run) => this.announce(run));
    this.runs.unshift(exec);
    this.runs.splice(MAX_KEPT_RUNS);
    const done = exec.execute().then(async (report) => {
      this.announce(report.run, true);
      if (opts.reportDir) await this.writeReport(report, opts.reportDir);
      return report;
    });
    return { run: exec.run, done };
  }

  stop(id: string): ScenarioRun {
    const exec = this.get(id);
    exec.stop();
    return exec.run;
  }

  report(id: string): ScenarioReport {
    const exec = this.get(id);
    if (!exec.report) throw new AppError('not_found', `scenario run ${id} has not finished; its report comes when it does`);
    return exec.report;
  }

  reportHtml(id: string): string {
    return renderReportHtml(this.report(id), this.deps.uplotAssets());
  }

  /** report.json and report.html in `dir`. */
  async writeReport(report: ScenarioReport, dir: string): Promise<{ json: string; html: string }> {
    await mkdir(dir, { recursive: true });
    const json = join(dir, 'report.json');
    const html = join(dir, 'report.html');
    await writeFile(json, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(html, renderReportHtml(report, this.deps.uplotAssets()));
    return { json, html };
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
