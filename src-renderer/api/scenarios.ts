import { ApiError } from '../../src-shared/clients';
import type { ScenarioRun } from '../../src-shared/scenario/report';
import { control, describeError } from './clients';
import { live } from './live';

/** A problem the emulator found in a scenario file, where it is (line and column from 1, when known). */
export interface ScenarioProblem {
  path: string;
  line: number | null;
  column: number | null;
  message: string;
}

/** A refused call: the API's message, and the file's problems when it validated one. */
export class ScenarioApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly problems: ScenarioProblem[],
  ) {
    super(message);
  }
}

const BASE = '/emulator/scenarios';

/** What the editor validates or runs: its text, or a scenarios folder's file as it is on disk. */
export type ScenarioRequest = { source: string; file?: string } | { path: string };

/** The problems of a 400: `errors` (a scenario file's, located), or the error body's `fields` by path. */
function problemsOf(body: Record<string, unknown>): ScenarioProblem[] {
  const list = (Array.isArray(body.errors) ? body.errors : null) as Array<Partial<ScenarioProblem>> | null;
  if (list) {
    return list.map((e) => ({ path: String(e.path ?? ''), line: e.line ?? null, column: e.column ?? null, message: String(e.message ?? 'is not valid') }));
  }
  const fields = (body.fields ?? {}) as Record<string, string>;
  return Object.entries(fields).map(([path, message]) => ({ path, line: null, column: null, message }));
}

/** A client call's data; a refusal as a ScenarioApiError with the file's problems. */
async function data<T>(call: Promise<{ data: T }>): Promise<T> {
  try {
    return (await call).data;
  } catch (err) {
    if (err instanceof ApiError) throw new ScenarioApiError(err.body.error, err.status, problemsOf(err.body as Record<string, unknown>));
    throw new ScenarioApiError(describeError(err), 0, []);
  }
}

/** The scenario operations of the control API, through its client (docs/scenarios.md). */
export const scenarios = {
  files: () => data(control.listScenarioFiles()),
  file: (path: string) => data(control.getScenarioFile({ path })),
  validate: (input: ScenarioRequest) => data(control.validateScenario(input)),
  start: (input: ScenarioRequest & { account_id?: string }) => data(control.startScenarioRun(input)),
  log: (id: string, after: number) => data(control.getScenarioRunLog(id, { after })),
  logTextUrl: (id: string) => `${BASE}/runs/${encodeURIComponent(id)}/log.txt`,
  list: () => data(control.listScenarioRuns()),
  get: (id: string) => data(control.getScenarioRun(id)),
  stop: (id: string) => data(control.stopScenarioRun(id)),
  report: (id: string) => data(control.getScenarioReport(id)),
  reportJsonUrl: (id: string) => `${BASE}/runs/${encodeURIComponent(id)}/report`,
  reportHtmlUrl: (id: string) => `${BASE}/runs/${encodeURIComponent(id)}/report.html`,
};

/** Whether a run is over (its report can be asked for). */
export const isFinished = (run: ScenarioRun) => run.status !== 'starting' && run.status !== 'running';

/**
 * Hears `scenario.updated` (the live bus's ScenarioRun, at most ~4 a second). Typed loosely so the
 * page does not depend on the event's entry in src-shared/live-events.ts (added by the engine).
 */
export function onScenarioUpdated(listener: (run: ScenarioRun) => void): () => void {
  const on = live.on.bind(live) as unknown as (name: string, l: (data: unknown) => void) => () => void;
  return on('scenario.updated', (data) => listener(data as ScenarioRun));
}
