import { z } from 'zod';
import { dataResponse } from '../../schemas/common';
import { defineOperations, type DocumentedRoute } from '../operation';

/** A scenario file's text (YAML or JSON) and, optionally, its file name (for the report and error messages). */
export const ScenarioSourceBody = z.strictObject({
  source: z.string().min(1).max(1_000_000),
  file: z.string().max(1024).optional(),
});

/** One problem of a scenario file: the field's path, and its line and column (1-based) where the text says. */
export const ScenarioFileError = z.object({
  path: z.string(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  message: z.string(),
});

export const ScenarioRunStatusSchema = z.enum(['starting', 'running', 'passed', 'failed', 'stopped', 'error']);
export const ScenarioProgressSchema = z.object({
  fraction: z.number(),
  sends: z.number().int(),
  plannedSends: z.number().int().nullable(),
  events: z.number().int(),
  deliveries: z.number().int(),
  acknowledged: z.number().int(),
  failedAttempts: z.number().int(),
  violations: z.number().int(),
  elapsedMs: z.number(),
  emulatedMs: z.number(),
});
export const ScenarioRunSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: ScenarioRunStatusSchema,
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  accountId: z.string(),
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
  verdict: z.enum(['pass', 'fail']),
  scenario: z.object({ name: z.string(), file: z.string().nullable(), clockSpeed: z.number() }),
  totals: z.object({
    sends: z.number(), recipients: z.number(), events: z.number(), deliveries: z.number(), acknowledged: z.number(),
    retries: z.number(), gaveUp: z.number(), duplicates: z.number(), reordered: z.number(), outageRefusals: z.number(),
  }),
  expectations: z.array(z.object({
    id: z.string(), description: z.string(), passed: z.boolean(), observed: z.string(), violations: z.array(Violation),
  })),
  series: z.object({
    bucketMs: z.number(),
    eventsByKind: z.array(z.object({ t: z.number(), kind: z.string(), count: z.number() })),
    sends: z.array(z.object({ t: z.number(), count: z.number(), violations: z.number() })),
    attempts: z.array(z.object({ t: z.number(), ms: MsOrNull, status: MsOrNull, ok: z.boolean(), retry: z.boolean() })),
  }),
  responseTimes: z.object({ p50: MsOrNull, p95: MsOrNull, p99: MsOrNull, max: MsOrNull }),
});

const RunIdParams = z.object({ id: z.string().min(1).max(64) });

/**
 * The control API's QA scenarios (`/emulator/scenarios`, issue 29): validate a file, start a run (one
 * at a time), follow it, stop it, read its report. A bad file answers 400 with `details.errors`: every
 * problem with its path, line and column.
 */
export const scenarioOperations = defineOperations({
  validateScenario: {
    method: 'POST',
    path: '/emulator/scenarios/validate',
    summary: 'Check a scenario file (YAML or JSON): the parsed scenario, or every problem with its line, column and field (400, details.errors)',
    tag: 'Scenarios',
    auth: 'none',
    body: ScenarioSourceBody,
    response: dataResponse(z.object({ scenario: z.record(z.string(), z.unknown()) })),
    errors: [415],
  },
  startScenarioRun: {
    method: 'POST',
    path: '/emulator/scenarios/runs',
    summary: 'Start a scenario run (202); 409 while another runs; a bad file answers 400 naming each problem',
    tag: 'Scenarios',
    auth: 'none',
    body: ScenarioSourceBody,
    status: 202,
    response: dataResponse(ScenarioRunSchema),
    errors: [409, 415],
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
export const scenarioFileRoutes: Record<string, DocumentedRoute> = {
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
};
