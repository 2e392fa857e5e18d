import type { ScenarioFolder } from '../../src-shared/operations/control/scenarios';
import type { ScenarioLogLine, ScenarioReport, ScenarioRun } from '../../src-shared/scenario/report';
import { CONTROL_KEY_NEEDED } from './clients';
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

/** The problems of a 400: `errors` (the contract's list), or the control API's `details.fields` by path. */
function problemsOf(body: Record<string, unknown>): ScenarioProblem[] {
  const details = (body.details ?? {}) as Record<string, unknown>;
  const list = (Array.isArray(body.errors) ? body.errors : Array.isArray(details.errors) ? details.errors : null) as Array<Partial<ScenarioProblem>> | null;
  if (list) {
    return list.map((e) => ({ path: String(e.path ?? ''), line: e.line ?? null, column: e.column ?? null, message: String(e.message ?? 'is not valid') }));
  }
  const fields = (details.fields ?? {}) as Record<string, string>;
  return Object.entries(fields).map(([path, message]) => ({ path, line: null, column: null, message }));
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${BASE}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ScenarioApiError(`Cannot reach the emulator: ${(err as Error).message}`, 0, []);
  }
  if (res.status === 401) window.dispatchEvent(new Event(CONTROL_KEY_NEEDED));
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const problems = problemsOf(json);
    const message = typeof json.error === 'string' ? json.error : typeof json.message === 'string' ? json.message : `The emulator answered ${res.status}`;
    throw new ScenarioApiError(message, res.status, problems);
  }
  return (json as { data: T }).data;
}

/** The scenario routes of the control API (docs: /work/shared/spec and docs/scenarios-report.md). */
export const scenarios = {
  files: () => call<{ folders: ScenarioFolder[] }>('GET', '/files'),
  file: (path: string) => call<{ path: string; file: string; source: string }>('GET', `/files/content?path=${encodeURIComponent(path)}`),
  validate: (input: ScenarioRequest) => call<{ scenario: { name?: string; app?: unknown } }>('POST', '/validate', input),
  start: (input: ScenarioRequest) => call<ScenarioRun>('POST', '/runs', input),
  log: (id: string, after: number) => call<{ lines: ScenarioLogLine[]; next: number; dropped: number }>('GET', `/runs/${encodeURIComponent(id)}/log?after=${after}`),
  logTextUrl: (id: string) => `${BASE}/runs/${encodeURIComponent(id)}/log.txt`,
  list: () => call<ScenarioRun[]>('GET', '/runs'),
  get: (id: string) => call<ScenarioRun>('GET', `/runs/${encodeURIComponent(id)}`),
  stop: (id: string) => call<ScenarioRun>('POST', `/runs/${encodeURIComponent(id)}/stop`),
  report: (id: string) => call<ScenarioReport>('GET', `/runs/${encodeURIComponent(id)}/report`),
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
