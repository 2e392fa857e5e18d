import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ERROR_STATUS } from '../../src-shared/errors';
import { ApiError, type HttpClient } from '../../src-shared/http-client';
import { controlOperations } from '../../src-shared/operations';
import type { ScenarioInput } from '../../src-shared/scenario/format';
import type { ScenarioReport } from '../../src-shared/scenario/report';
import { AppError } from '../core/errors';
import { errorBody } from '../core/http/error-handler';
import { parseScenario, runRequestOf } from '../core/scenario/parse';
import type { ScenarioService } from '../core/scenario/scenario.service';
import type { RunScenarioOptions } from './types';

const DEFAULT_TIMEOUT_MS = 600_000;

function timedOut(id: string, ms: number): Error {
  return new Error(`runScenario: the run ${id} did not finish within ${ms} ms; it was stopped`);
}

/**
 * `yard.runScenario` of an emulator in this process: the test chose the scenario (a file's path, or
 * an object), so its app may start (in the file's folder; an object's app in the test's working
 * folder). A bad scenario rejects with the ApiError the control API would answer.
 */
export async function runScenarioInProcess(
  scenarios: ScenarioService,
  scenario: string | ScenarioInput,
  options: RunScenarioOptions = {},
): Promise<ScenarioReport> {
  const file = typeof scenario === 'string' ? resolve(scenario) : null;
  const source = file ? await readFile(file, 'utf8') : scenario;
  let started: ReturnType<ScenarioService['start']>;
  try {
    started = scenarios.start({ source, file }, options.accountId === undefined ? {} : { accountId: options.accountId });
  } catch (err) {
    throw err instanceof AppError ? new ApiError(ERROR_STATUS[err.code], errorBody(err.message, err.errors, err.extras)) : err;
  }
  const ms = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      scenarios.stop(started.run.id);
      void started.done.finally(() => reject(timedOut(started.run.id, ms)));
    }, ms);
  });
  try {
    return await Promise.race([started.done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `runScenario` of an emulator reached over HTTP (`connectMailyard`): a file that starts an app is run
 * as its file (`path`), which that emulator must allow (`mailyard serve --scenarios DIR`); anything
 * else is posted as text. Resolves with the report once the run has finished.
 */
export async function runScenarioOver(http: HttpClient, scenario: string | ScenarioInput, options: RunScenarioOptions = {}): Promise<ScenarioReport> {
  const file = typeof scenario === 'string' ? resolve(scenario) : undefined;
  const source = file ? await readFile(file, 'utf8') : JSON.stringify(scenario);
  const parsed = parseScenario(source);
  const body = {
    ...(file ? runRequestOf(file, source, parsed.ok ? parsed.scenario : undefined) : { source }),
    ...(options.accountId === undefined ? {} : { account_id: options.accountId }),
  };
  const started = await http.call(controlOperations.startScenarioRun, { body });
  const id = started.data.id;
  const ms = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + ms;
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
      throw timedOut(id, ms);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
