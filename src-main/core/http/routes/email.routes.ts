import type { FastifyInstance } from 'fastify';
import { serviceOperations as ops } from '../../../../src-shared/operations';
import type { EmailService } from '../../services/email/email.service';
import type { TemplatesService } from '../../services/email/templates.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export function emailRoutes(app: FastifyInstance, deps: { email: EmailService; templates: TemplatesService }): void {
  const { email, templates } = deps;
  registerOperation(app, ops.sendEmail, async ({ body, request }) => ({ success: true as const, ...(await email.send(request.account!.id, body)) }));
  registerOperation(app, ops.getEmailLogs, ({ query, request }) => email.logs(request.account!.id, query));
  registerOperation(app, ops.subscribeEmail, ({ body, request }) => {
    email.subscribe(request.account!.id, body.email);
    return ok('Email subscribed successfully');
  });
  registerOperation(app, ops.unsubscribeEmail, ({ body, request }) => {
    email.unsubscribe(request.account!.id, body.email);
    return ok('Email unsubscribed successfully');
  });
  registerOperation(app, ops.createTemplate, ({ body, request }) => {
    const created = templates.create(request.account!.id, body);
    return { success: true as const, message: 'Template created successfully', template_id: created.template_id };
  });
  registerOperation(app, ops.listTemplates, ({ request }) => ok('Templates retrieved successfully', templates.list(request.account!.id)));
  registerOperation(app, ops.getTemplate, ({ params, request }) => ok('Template retrieved successfully', templates.get(request.account!.id, params.template_id)));
  registerOperation(app, ops.deleteTemplate, ({ params, request }) => {
    templates.delete(request.account!.id, params.template_id);
    return ok('Template deleted successfully');
  });
}
