import { readFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { clockMoveSentence } from '../../src-shared/scenario/clock-move';
import { inconclusiveReason, type ScenarioReport, type ScenarioRun } from '../../src-shared/scenario/report';
import { createEmulator } from '../core';
import { formatScenarioError, parseScenario, runRequestOf } from '../core/scenario/parse';
import { writeReportFiles } from '../core/scenario/scenario.service';

export const SCENARIO_USAGE = `Usage: mailyard scenario run <file> [options]

Runs a QA scenario file (YAML or JSON, docs/scenarios.md) and prints its verdict.
Exit status: 0 pass; 1 fail (an expectation violated, the run stopped or in error); 2 a bad file or
command line; 3 inconclusive (an expectation had nothing to judge, or the scenario sets none).

Options:
  --url URL          run on a running emulator (default: one started in memory for the run)
  --api-key KEY      that emulator's control key, when it needs one
  --account ID       with --url: run on that emulator's existing account ID, sending as it
                     (default: the scenario's account, new or default)
  --report-dir DIR   where report.json and report.html go (default: scenario-reports/<file name>)
  --json             print the JSON report on stdout (progress goes to stderr)
  -h, --help         show this help`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  stopSignal: () => Promise<string>;
}

function progressLine(run: ScenarioRun): string {
  const p = run.progress;
  const pct = Math.round(p.fraction * 100);
  return `[${String(pct).padStart(3)}%] ${run.status}: ${p.sends}${p.plannedSends ? `/${p.plannedSends}` : ''} sends, ${p.events} events, ${p.deliveries} webhook deliveries (${p.attempts} attempts, ${p.failedAttempts} failed), ${p.acknowledged} acknowledged, ${p.violations} violations (${Math.round(p.emulatedMs / 1000)} s emulated, ${Math.round(p.elapsedMs / 1000)} s wall)`;
}

/** How the summary marks an expectation's result. */
const RESULT_TAG = { passed: 'ok', failed: 'FAIL', 'not-judged': 'NOT JUDGED' } as const;

/** The exit status of a finished run: 0 pass, 1 fail (error and stopped included), 3 inconclusive. */
export const VERDICT_EXIT = { pass: 0, fail: 1, inconclusive: 3 } as const;

/** The verdict and each expectation, with the violations that broke it (the first five of each). */
export function summaryLines(report: ScenarioReport): string[] {
  const lines = [`Scenario "${report.scenario.name}": ${report.verdict.toUpperCase()} (${report.run.status})`];
  if (report.run.error) lines.push(`  error: ${report.run.error}`);
  const why = inconclusiveReason(report);
  if (why) lines.push(`  inconclusive: ${why}`);
  for (const e of report.expectations) {
    lines.push(`  ${RESULT_TAG[e.result].padEnd(10)} ${e.id}: ${e.description} (${e.observed})`);
    for (const v of e.violations.slice(0, 5)) lines.push(`         violation ${v.expectation}: ${v.message}${v.messageId ? ` [message ${v.messageId}]` : ''}`);
    if (e.violations.length > 5) lines.push(`         ... and ${e.violations.length - 5} more`);
  }
  const t = report.totals;
  lines.push(
    `  totals: ${t.sends} sends to ${t.recipients} recipients, ${t.events} events, ${t.deliveries} webhook deliveries (${t.attempts} attempts, ${t.retries} of them retries), ${t.acknowledged} acknowledged, ${t.gaveUp} given up`,
  );
  return lines;
}

/**
 * Runs on an emulator at `url`. A scenario that starts an app is run as its file (`path`), which that
 * emulator must have been started to allow (`--scenarios DIR`): posted text never starts an app.
 */
async function overHttp(
  url: string,
  key: string | undefined,
  request: ReturnType<typeof runRequestOf> & { account_id?: string },
  say: (l: string) => void,
  stop: Promise<string>,
) {
  const base = url.replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return {
      status: res.status,
      text,
      json: (() => {
        try {
          return JSON.parse(text);
        } catch {
          return undefined;
        }
      })(),
    };
  };
  const started = await call('POST', '/emulator/scenarios/runs', request);
  // A file's problems are `errors`; an emulator of an earlier version put them under `details`.
  if (started.status === 400)
    return {
      badFile: started.json?.errors ?? started.json?.details?.errors ?? [{ path: '', line: null, column: null, message: started.json?.error ?? started.text }],
    };
  if (started.status === 403 || started.status === 404 || started.status === 409) return { refused: String(started.json?.error ?? started.text) };
  if (started.status !== 202) throw new Error(`the emulator answered ${started.status}: ${started.json?.error ?? started.text}`);
  const id = (started.json.data as ScenarioRun).id;
  let stopping = false;
  void stop.then(() => {
    stopping = true;
    void call('POST', `/emulator/scenarios/runs/${id}/stop`);
  });
  let last = 0;
  for (;;) {
    const r = await call('GET', `/emulator/scenarios/runs/${id}/report`);
    if (r.status === 200) {
      const html = await fetch(`${base}/emulator/scenarios/runs/${id}/report.html`, { headers });
      const log = await fetch(`${base}/emulator/scenarios/runs/${id}/log.txt`, { headers });
      return { report: r.json.data as ScenarioReport, html: await html.text(), log: await log.text() };
    }
    if (Date.now() - last > 1000 && !stopping) {
      last = Date.now();
      const run = await call('GET', `/emulator/scenarios/runs/${id}`);
      if (run.status === 200) say(progressLine(run.json.data as ScenarioRun));
    }
    await new Promise((res) => setTimeout(res, 250));
  }
}

/** `mailyard scenario run <file>`: resolves with the exit status. */
export async function scenarioCommand(argv: string[], io: Io): Promise<number> {
  const parse = () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        'api-key': { type: 'string' },
        account: { type: 'string' },
        'report-dir': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    io.err(`mailyard: ${(err as Error).message}`);
    io.err(SCENARIO_USAGE);
    return 2;
  }
  const [sub, fileArg, ...extra] = parsed.positionals;
  if (parsed.values.help) {
    io.out(SCENARIO_USAGE);
    return 0;
  }
  if (sub !== 'run' || !fileArg || extra.length > 0) {
    io.err(sub !== 'run' ? `mailyard: unknown scenario command "${sub ?? ''}" (run is the one)` : 'mailyard: give one scenario file');
    io.err(SCENARIO_USAGE);
    return 2;
  }
  if (parsed.values.account !== undefined && !parsed.values.url) {
    io.err('mailyard: --account needs --url: an emulator started for the run has no account but its default (account: default in the file)');
    return 2;
  }
  const file = resolve(fileArg);
  const json = parsed.values.json === true;
  const say = json ? io.err : io.out;
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (err) {
    io.err(`mailyard: cannot read ${fileArg}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return 2;
  }
  const parsedFile = parseScenario(source);
  if (!parsedFile.ok) {
    io.err(`mailyard: ${fileArg} is not a valid scenario (${parsedFile.errors.length} problem${parsedFile.errors.length === 1 ? '' : 's'}):`);
    for (const e of parsedFile.errors) io.err(`  ${formatScenarioError(e, fileArg)}`);
    return 2;
  }
  const reportDir = resolve(parsed.values['report-dir'] ?? join('scenario-reports', basename(file, extname(file))));
  say(`Running scenario "${parsedFile.scenario.name}" (${fileArg})${parsed.values.url ? ` on ${parsed.values.url}` : ' on an emulator in memory'}`);
  const stop = io.stopSignal();
  let report: ScenarioReport;
  if (parsed.values.url) {
    const account = parsed.values.account;
    const request = { ...runRequestOf(file, source, parsedFile.scenario), ...(account === undefined ? {} : { account_id: account }) };
    const r = await overHttp(parsed.values.url, parsed.values['api-key'], request, say, stop);
    if ('badFile' in r) {
      for (const e of r.badFile) io.err(`  ${formatScenarioError(e, fileArg)}`);
      return 2;
    }
    if ('refused' in r) {
      io.err(`mailyard: ${parsed.values.url} refused to run ${fileArg}: ${r.refused}`);
      return 2;
    }
    report = r.report;
    await writeReportFiles(reportDir, report, r.html, r.log);
  } else {
    const emulator = await createEmulator({ memory: true, httpPort: 0, smtpPort: 0, logLevel: 'warn' });
    try {
      const off = emulator.live.on('scenario.updated', (run) => say(progressLine(run)));
      const { run, done } = emulator.services.scenarios.start({ source, file }, { reportDir, onLog: say });
      void stop.then(() => emulator.services.scenarios.stop(run.id));
      report = await done;
      off();
    } finally {
      await emulator.close();
    }
  }
  for (const line of summaryLines(report)) say(line);
  // An emulator the CLI started is gone with its clock; a running one keeps the clock where the run left it.
  if (parsed.values.url) say(`  clock: ${clockMoveSentence(report.clock)}`);
  say(`Report: ${join(reportDir, 'report.html')} (and report.json; the run's log in run.log)`);
  if (json) io.out(JSON.stringify(report, null, 2));
  return VERDICT_EXIT[report.verdict];
}
