import type { FastifyInstance } from 'fastify';
import { controlOperations as ops, documentedRoutes } from '../../../../src-shared/operations';
import { REPORT_HTML_CSP } from '../../scenario/report-html';
import type { ScenarioService } from '../../scenario/scenario.service';
import { registerOperation, toRoutePath } from '../operation-route';
import { ok } from '../respond';

/**
 * The QA scenarios (`/emulator/scenarios`): the scenarios folders' files, validate, run (one at a time),
 * follow (progress and log), stop, report. Text posted here never starts an app; a folder's file may.
 */
export function scenarioRoutes(app: FastifyInstance, scenarios: ScenarioService): void {
  registerOperation(app, ops.listScenarioFiles, async () => ok('Scenario files retrieved', { folders: await scenarios.folders.list() }));
  registerOperation(app, ops.getScenarioFile, async ({ query }) => {
    const { path, file, source } = await scenarios.folders.read(query.path);
    return ok('Scenario file retrieved', { path, file, source });
  });
  registerOperation(app, ops.validateScenario, async ({ body }) => {
    const source = body.path === undefined ? body.source! : (await scenarios.folders.read(body.path)).source;
    return ok('The scenario is valid', { scenario: scenarios.parse(source) as Record<string, unknown> });
  });
  registerOperation(app, ops.startScenarioRun, async ({ body }) => {
    const { run, done } = body.path === undefined ? scenarios.startPosted(body.source!, body.file ?? null) : await scenarios.startListed(body.path);
    // The run goes on after the answer; its end is on the live bus and in its report.
    done.catch(() => undefined);
    return ok('Scenario run started', run);
  });
  registerOperation(app, ops.listScenarioRuns, () => ok('Scenario runs retrieved', scenarios.list()));
  registerOperation(app, ops.getScenarioRun, ({ params }) => ok('Scenario run retrieved', scenarios.get(params.id).run));
  registerOperation(app, ops.getScenarioRunLog, ({ params, query }) => ok('Scenario run log retrieved', scenarios.log(params.id, query.after)));
  registerOperation(app, ops.stopScenarioRun, ({ params }) => ok('Scenario run stopping', scenarios.stop(params.id)));
  registerOperation(app, ops.getScenarioReport, ({ params }) => ok('Scenario report retrieved', scenarios.report(params.id)));
  const html = documentedRoutes.getScenarioReportHtml!;
  app.get<{ Params: { id: string } }>(toRoutePath(html.path), async (request, reply) => {
    const page = scenarios.reportHtml(request.params.id);
    return reply.type('text/html; charset=utf-8').header('content-security-policy', REPORT_HTML_CSP).send(page);
  });
  const log = documentedRoutes.getScenarioRunLogText!;
  app.get<{ Params: { id: string } }>(toRoutePath(log.path), async (request, reply) => {
    const text = scenarios.get(request.params.id).log.text();
    return reply
      .type('text/plain; charset=utf-8')
      .header('content-disposition', `attachment; filename="scenario-${request.params.id.replace(/[^\w-]/g, '')}.log"`)
      .send(text);
  });
}
