import type { FastifyInstance } from 'fastify';
import { serviceOperations as ops } from '../../../../src-shared/operations';
import type { WebhooksService } from '../../services/webhooks.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export function webhookRoutes(app: FastifyInstance, webhooks: WebhooksService): void {
  registerOperation(app, ops.registerWebhook, async ({ body, request }) => {
    await webhooks.register(request.account!.id, body);
    return ok('Webhook created successfully');
  });
  registerOperation(app, ops.updateWebhook, async ({ body, request }) => {
    await webhooks.update(request.account!.id, body);
    return ok('Webhook updated successfully');
  });
  registerOperation(app, ops.deleteWebhook, ({ body, request }) => {
    webhooks.delete(request.account!.id, body);
    return ok('Webhook deleted successfully');
  });
  registerOperation(app, ops.listWebhooks, ({ request }) => ok('Webhooks retrieved successfully', webhooks.list(request.account!.id)));
}
