import { z } from 'zod';
import { dataResponse, MessageResponse } from '../../schemas/common';
import { DeleteWebhookBody, RegisterWebhookBody, UpdateWebhookBody, WebhookRecord } from '../../schemas/webhooks';
import { defineOperations } from '../operation';

/** Webhooks of the service API (`/v1/webhook`): one per event type. */
export const webhookOperations = defineOperations({
  registerWebhook: {
    method: 'POST',
    path: '/v1/webhook/register',
    summary: 'Register the webhook of one event type (EMAIL_EVENT or DOMAIN_VERIFICATION)',
    tag: 'Webhooks',
    auth: 'bearer',
    body: RegisterWebhookBody,
    response: MessageResponse,
    errors: [409, 413, 415, 422],
    errorShape: 'details',
  },
  updateWebhook: {
    method: 'PUT',
    path: '/v1/webhook/update',
    summary: 'Update the webhook of one event type; headers and webhook_options are replaced wholesale',
    tag: 'Webhooks',
    auth: 'bearer',
    body: UpdateWebhookBody,
    response: MessageResponse,
    errors: [404, 413, 415, 422],
    errorShape: 'details',
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/v1/webhook/delete',
    summary: 'Delete the webhook of one event type',
    tag: 'Webhooks',
    auth: 'bearer',
    body: DeleteWebhookBody,
    response: MessageResponse,
    errors: [404, 413, 415],
    errorShape: 'details',
  },
  listWebhooks: {
    method: 'GET',
    path: '/v1/webhook',
    summary: "List the account's webhooks (extension)",
    tag: 'Webhooks',
    auth: 'bearer',
    response: dataResponse(z.array(WebhookRecord)),
    errorShape: 'details',
  },
});
