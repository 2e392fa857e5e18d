import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { controlOperations } from '../../src-shared/operations';
import type { HttpClient } from '../../src-shared/http-client';
import type { ScenarioInput } from '../../src-shared/scenario/format';
import type { ScenarioReport } from '../../src-shared/scenario/report';

export interface RunScenarioOptions {
  /** Give up waiting for the report after this many ms of wall time (default 10 minutes); the run is stopped. */
  timeoutMs?: number;
}

/**
 * Runs a scenario (a file's path, YAML or JSON, or the scenario as an object) on the emulator and
 * resolves with its report once it has finished; a bad scenario rejects with the 400's ApiError
 * (each problem with its line and field). The verdict is `report.verdict`.
 */
export async function runScenarioOver(http: HttpClient, scenario: string | ScenarioInput, options: RunScenarioOptions = {}): Promise<ScenarioReport> {
  const file = typeof scenario === 'string' ? resolve(scenario) : undefined;
  const source = file ? await readFile(file, 'utf8') : JSON.stringify(scenario);
  const started = await http.call(controlOperations.startScenarioRun, { body: { source, ...(file ? { file } : {}) } });
  const id = started.data.id;
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const run = (await http.call(controlOperations.getScenarioRun, { params: { id } })).data;
    if (run.finishedAt !== null) {
      // The report is kept a moment after the run's end is announced.
      try {
        return (await http.call(controlOperations.getScenarioReport, { params: { id } })).data as ScenarioReport;
      } catch {
        // not yet
      }
    }
    if (Date.now() > deadline) {
      await http.call(controlOperations.stopScenarioRun, { params: { id } });
      throw new Error(`runScenario: the run ${id} did not finish within ${options.timeoutMs ?? 600_000} ms; it was stopped`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
