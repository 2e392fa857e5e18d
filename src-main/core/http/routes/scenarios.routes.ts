import type { FastifyInstance } from 'fastify';
import { controlOperations as ops, documentedRoutes } from '../../../../src-shared/operations';
import { REPORT_HTML_CSP } from '../../scenario/report-html';
import type { ScenarioService } from '../../scenario/scenario.service';
import { registerOperation, toRoutePath } from '../operation-route';
import { ok } from '../respond';

/** The QA scenarios (`/emulator/scenarios`): validate, run (one at a time), follow, stop, report. */
export function scenarioRoutes(app: FastifyInstance, scenarios: ScenarioService): void {
  registerOperation(app, ops.validateScenario, ({ body }) => ok('The scenario is valid', { scenario: scenarios.parse(body.source) as Record<string, unknown> }));
  registerOperation(app, ops.startScenarioRun, ({ body }) => {
    const { run, done } = scenarios.start(body.source, body.file ?? null);
    // The run goes on after the answer; its end is on the live bus and in its report.
    done.catch(() => undefined);
    return ok('Scenario run started', run);
  });
  registerOperation(app, ops.listScenarioRuns, () => ok('Scenario runs retrieved', scenarios.list()));
  registerOperation(app, ops.getScenarioRun, ({ params }) => ok('Scenario run retrieved', scenarios.get(params.id).run));
  registerOperation(app, ops.stopScenarioRun, ({ params }) => ok('Scenario run stopping', scenarios.stop(params.id)));
  registerOperation(app, ops.getScenarioReport, ({ params }) => ok('Scenario report retrieved', scenarios.report(params.id)));
  const html = documentedRoutes.getScenarioReportHtml!;
  app.get<{ Params: { id: string } }>(toRoutePath(html.path), async (request, reply) => {
    const page = scenarios.reportHtml(request.params.id);
    return reply.type('text/html; charset=utf-8').header('content-security-policy', REPORT_HTML_CSP).send(page);
  });
}
