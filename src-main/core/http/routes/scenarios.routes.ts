import type { scenarioFileRoutes, scenarioOperations } from '../../../../src-shared/operations/control/scenarios';
import { REPORT_HTML_CSP } from '../../scenario/report-html';
import type { ScenarioService } from '../../scenario/scenario.service';
import type { Handlers, RouteHandlers } from '../operation-route';
import { ok } from '../respond';

/**
 * The QA scenarios (`/emulator/scenarios`): the scenarios folders' files, validate, run (one at a time),
 * follow (progress and log), stop, report. Text posted here never starts an app; a folder's file may.
 */
export function scenarioHandlers(scenarios: ScenarioService): Handlers<typeof scenarioOperations> {
  return {
    listScenarioFiles: async () => ok('Scenario files retrieved', { folders: await scenarios.folders.list() }),
    getScenarioFile: async ({ query }) => {
      const { path, file, source } = await scenarios.folders.read(query.path);
      return ok('Scenario file retrieved', { path, file, source });
    },
    validateScenario: async ({ body }) => {
      const source = body.path === undefined ? body.source! : (await scenarios.folders.read(body.path)).source;
      return ok('The scenario is valid', { scenario: scenarios.parse(source) as Record<string, unknown> });
    },
    startScenarioRun: async ({ body }) => {
      const opts = body.account_id === undefined ? {} : { accountId: body.account_id };
      const { run, done } =
        body.path === undefined ? scenarios.startPosted(body.source!, body.file ?? null, opts) : await scenarios.startListed(body.path, opts);
      // The run goes on after the answer; its end is on the live bus and in its report.
      done.catch(() => undefined);
      return ok('Scenario run started', run);
    },
    listScenarioRuns: () => ok('Scenario runs retrieved', scenarios.list()),
    getScenarioRun: ({ params }) => ok('Scenario run retrieved', scenarios.get(params.id).run),
    getScenarioRunLog: ({ params, query }) => ok('Scenario run log retrieved', scenarios.log(params.id, query.after)),
    stopScenarioRun: ({ params }) => ok('Scenario run stopping', scenarios.stop(params.id)),
    getScenarioReport: ({ params }) => ok('Scenario report retrieved', scenarios.report(params.id)),
  };
}

/** A run's report page and its log as a file. */
export function scenarioFileHandlers(scenarios: ScenarioService): RouteHandlers<typeof scenarioFileRoutes> {
  return {
    getScenarioReportHtml: ({ params, reply }) =>
      reply.type('text/html; charset=utf-8').header('content-security-policy', REPORT_HTML_CSP).send(scenarios.reportHtml(params.id)),
    getScenarioRunLogText: ({ params, reply }) =>
      reply
        .type('text/plain; charset=utf-8')
        .header('content-disposition', `attachment; filename="scenario-${params.id.replace(/[^\w-]/g, '')}.log"`)
        .send(scenarios.get(params.id).log.text()),
  };
}
