import type { webhookOperations } from '../../../../src-shared/operations/service/webhooks';
import type { WebhooksService } from '../../services/webhooks.service';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** Webhook registration (`/v1/webhook`). */
export function webhookHandlers(webhooks: WebhooksService): Handlers<typeof webhookOperations> {
  return {
    registerWebhook: async ({ body, account }) => {
      await webhooks.register(account.id, body);
      return ok('Webhook created successfully');
    },
    updateWebhook: async ({ body, account }) => {
      await webhooks.update(account.id, body);
      return ok('Webhook updated successfully');
    },
    deleteWebhook: ({ body, account }) => {
      webhooks.delete(account.id, body);
      return ok('Webhook deleted successfully');
    },
    listWebhooks: ({ account }) => ok('Webhooks retrieved successfully', webhooks.list(account.id)),
  };
}
