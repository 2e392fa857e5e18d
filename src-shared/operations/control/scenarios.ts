import { z } from 'zod';
import { dataResponse } from '../../schemas/common';
import { defineOperations, defineRoutes } from '../operation';

/**
 * What to validate or run: a scenario's text (`source`, YAML or JSON, with an optional file name for
 * the report), or a file on the emulator's disk in a folder it was started with (`path`: as
 * `GET /emulator/scenarios/files` lists it, or absolute). Only a file from such a folder may start an
 * app: text posted over HTTP never runs a command.
 */
export const ScenarioSourceBody = z
  .strictObject({
    source: z.string().min(1).max(1_000_000).optional(),
    file: z.string().max(1024).optional(),
    path: z.string().min(1).max(4096).optional(),
    /** An existing account to run on, sending as it (GET /emulator/accounts), instead of the scenario's `account` (new or default). */
    account_id: z.string().min(1).max(64).optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.source === undefined) === (body.path === undefined)) {
      ctx.addIssue({ code: 'custom', message: "give source (the scenario's text) or path (a file of a scenarios folder), one of them" });
    } else if (body.path !== undefined && body.file !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['file'], message: 'goes with source only: a path names its file itself' });
    }
  });

/** One problem of a scenario file: the field's path, and its line and column (1-based) where the text says. */
export const ScenarioFileError = z.object({
  path: z.string(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  message: z.string(),
});

export const ScenarioRunStatusSchema = z.enum(['starting', 'running', 'passed', 'failed', 'inconclusive', 'stopped', 'error']);
export const ScenarioProgressSchema = z.object({
  fraction: z.number(),
  sends: z.number().int(),
  plannedSends: z.number().int().nullable(),
  events: z.number().int(),
  deliveries: z.number().int(),
  attempts: z.number().int(),
  acknowledged: z.number().int(),
  failedAttempts: z.number().int(),
  violations: z.number().int(),
  elapsedMs: z.number(),
  emulatedMs: z.number(),
});
export const ScenarioRunSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The scenario file (a folder's file as listed, or the file the CLI or testing API named), null for posted text. */
  file: z.string().nullable(),
  status: ScenarioRunStatusSchema,
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  accountId: z.string(),
  newAccount: z.boolean(),
  seed: z.number().int(),
  progress: ScenarioProgressSchema,
  error: z.string().nullable(),
});
const Violation = z.object({
  expectation: z.string(),
  message: z.string(),
  at: z.string(),
  recipient: z.string().optional(),
  messageId: z.string().optional(),
  eventId: z.string().optional(),
  deliveryId: z.string().optional(),
});
const MsOrNull = z.number().nullable();
export const ScenarioReportSchema = z.object({
  version: z.literal(1),
  run: ScenarioRunSchema,
  verdict: z.enum(['pass', 'fail', 'inconclusive']),
  scenario: z.object({ name: z.string(), file: z.string().nullable(), clockSpeed: z.number(), seed: z.number().int() }),
  totals: z.object({
    sends: z.number(),
    recipients: z.number(),
    events: z.number(),
    deliveries: z.number(),
    attempts: z.number(),
    acknowledged: z.number(),
    retries: z.number(),
    gaveUp: z.number(),
    duplicates: z.number(),
    reordered: z.number(),
    outageRefusals: z.number(),
  }),
  expectations: z.array(
    z.object({
      id: z.string(),
      description: z.string(),
      result: z.enum(['passed', 'failed', 'not-judged']),
      passed: z.boolean(),
      observed: z.string(),
      violations: z.array(Violation),
    }),
  ),
  series: z.object({
    bucketMs: z.number(),
    eventsByKind: z.array(z.object({ t: z.number(), kind: z.string(), count: z.number() })),
    sends: z.array(z.object({ t: z.number(), count: z.number(), violations: z.number() })),
    attempts: z.array(z.object({ t: z.number(), ms: MsOrNull, status: MsOrNull, ok: z.boolean(), retry: z.boolean() })),
  }),
  responseTimes: z.object({ p50: MsOrNull, p95: MsOrNull, p99: MsOrNull, max: MsOrNull }),
  /** How far the run moved the emulator clock (shared by every account, never moved back): emulated and wall ms, and the gap it left. */
  clock: z.object({ movedMs: z.number(), wallMs: z.number(), aheadMs: z.number() }),
});

const RunIdParams = z.object({ id: z.string().min(1).max(64) });

/** One file of a scenarios folder: how to name it (`path`), what it is, whether it starts an app. */
export const ScenarioFileEntry = z.object({
  path: z.string(),
  name: z.string().nullable(),
  valid: z.boolean(),
  starts_app: z.boolean(),
  size: z.number().int(),
  modified_at: z.string(),
});
export const ScenarioFolder = z.object({
  /** The folder's name in a file's `path` (`examples/` in `examples/hard-bounce.yaml`). */
  id: z.string(),
  dir: z.string(),
  files: z.array(ScenarioFileEntry),
  /** More files than are listed (SCENARIO_FOLDER_LIMITS.maxFiles). */
  truncated: z.boolean(),
  /** Why the folder could not be read now, if it could not. */
  problem: z.string().nullable(),
});
export type ScenarioFolder = z.infer<typeof ScenarioFolder>;
export const ScenarioFileQuery = z.object({ path: z.string().min(1).max(4096) });

/** One line of a run's log: the runner's own steps, the app's stdout and stderr. */
export const ScenarioLogLine = z.object({
  n: z.number().int(),
  at: z.string(),
  source: z.enum(['runner', 'stdout', 'stderr']),
  text: z.string(),
});
export const ScenarioLogQuery = z.object({
  /** Lines after this number only (the `next` of the last answer). */
  after: z.coerce.number().int().min(0).optional(),
});

/**
 * The control API's QA scenarios (`/emulator/scenarios`): validate a file, start a run (one
 * at a time), follow it, stop it, read its report. A bad file answers 400 with `errors`: every
 * problem with its path, line and column.
 */
export const scenarioOperations = defineOperations({
  listScenarioFiles: {
    method: 'GET',
    path: '/emulator/scenarios/files',
    summary: 'The scenario files in the folders Mailyard was started with (--scenarios DIR): only these may start an app',
    tag: 'Scenarios',
    auth: 'none',
    response: dataResponse(z.object({ folders: z.array(ScenarioFolder) })),
  },
  getScenarioFile: {
    method: 'GET',
    path: '/emulator/scenarios/files/content',
    summary: "One scenario file's text, by its path as listed (404 outside the scenarios folders)",
    tag: 'Scenarios',
    auth: 'none',
    query: ScenarioFileQuery,
    response: dataResponse(z.object({ path: z.string(), file: z.string(), source: z.string() })),
    errors: [403, 404],
  },
  validateScenario: {
    method: 'POST',
    path: '/emulator/scenarios/validate',
    summary: 'Check a scenario file (YAML or JSON): the parsed scenario, or every problem with its line, column and field (400, errors)',
    tag: 'Scenarios',
    auth: 'none',
    body: ScenarioSourceBody,
    response: dataResponse(z.object({ scenario: z.record(z.string(), z.unknown()) })),
    errors: [403, 404, 415],
  },
  startScenarioRun: {
    method: 'POST',
    path: '/emulator/scenarios/runs',
    summary:
      "Start a scenario run (202), on a new account or an existing one (account_id); 409 while another runs, or when the scenario would replace the account's own webhook; a bad file answers 400 naming each problem; 403 for posted text that starts an app (run a file of a scenarios folder instead); 404 for an unknown account_id",
    tag: 'Scenarios',
    auth: 'none',
    body: ScenarioSourceBody,
    status: 202,
    response: dataResponse(ScenarioRunSchema),
    errors: [403, 404, 409, 415],
  },
  listScenarioRuns: {
    method: 'GET',
    path: '/emulator/scenarios/runs',
    summary: 'The scenario runs since the emulator started, newest first',
    tag: 'Scenarios',
    auth: 'none',
    response: dataResponse(z.array(ScenarioRunSchema)),
  },
  getScenarioRun: {
    method: 'GET',
    path: '/emulator/scenarios/runs/{id}',
    summary: 'One scenario run with its live progress',
    tag: 'Scenarios',
    auth: 'none',
    params: RunIdParams,
    response: dataResponse(ScenarioRunSchema),
    errors: [404],
  },
  stopScenarioRun: {
    method: 'POST',
    path: '/emulator/scenarios/runs/{id}/stop',
    summary: 'Stop a scenario run: traffic and the app under test stop, the report is written with status stopped',
    tag: 'Scenarios',
    auth: 'none',
    params: RunIdParams,
    response: dataResponse(ScenarioRunSchema),
    errors: [404, 415],
  },
  getScenarioRunLog: {
    method: 'GET',
    path: '/emulator/scenarios/runs/{id}/log',
    summary: "A run's log (the runner's steps, the app's stdout and stderr), while it runs and after; `after` for the lines since the last read",
    tag: 'Scenarios',
    auth: 'none',
    params: RunIdParams,
    query: ScenarioLogQuery,
    response: dataResponse(z.object({ lines: z.array(ScenarioLogLine), next: z.number().int(), dropped: z.number().int() })),
    errors: [404],
  },
  getScenarioReport: {
    method: 'GET',
    path: '/emulator/scenarios/runs/{id}/report',
    summary: "A finished run's JSON report (404 until it has finished)",
    tag: 'Scenarios',
    auth: 'none',
    params: RunIdParams,
    response: dataResponse(ScenarioReportSchema),
    errors: [404],
  },
});

/** The report as one self-contained HTML file. */
export const scenarioFileRoutes = defineRoutes({
  getScenarioReportHtml: {
    method: 'GET',
    path: '/emulator/scenarios/runs/{id}/report.html',
    summary: "A finished run's report as one self-contained HTML page (charts inline)",
    tag: 'Scenarios',
    auth: 'none',
    params: RunIdParams,
    errors: [404],
    answer: { mediaType: 'text/html', description: 'The report page', schema: { type: 'string' } },
  },
  getScenarioRunLogText: {
    method: 'GET',
    path: '/emulator/scenarios/runs/{id}/log.txt',
    summary: "A run's log as a text file (what `mailyard scenario run` writes beside the report as run.log)",
    tag: 'Scenarios',
    auth: 'none',
    params: RunIdParams,
    errors: [404],
    answer: { mediaType: 'text/plain', description: 'One line each: time, [runner|stdout|stderr], text', schema: { type: 'string' } },
  },
});
