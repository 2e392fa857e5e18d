import type { emailOperations } from '../../../../src-shared/operations/service/email';
import type { EmailService } from '../../services/email/email.service';
import type { TemplatesService } from '../../services/email/templates.service';
import type { SuppressionsService } from '../../services/events/suppressions.service';
import { logsQueryWouldRefuse, sendWouldRefuse } from '../../would-refuse';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/**
 * Sending, the email logs, subscriptions and templates (`/v1/email`, `/v1/template`). A send answers
 * once Mailpit's tag rules, if any, have tagged its copies (`ruleTagsApplied`).
 */
export function emailHandlers(
  email: EmailService,
  templates: TemplatesService,
  suppressions: SuppressionsService,
  ruleTagsApplied: () => Promise<unknown>,
): Handlers<typeof emailOperations> {
  return {
    sendEmail: async ({ body, account, warn }) => {
      // Said in the answer's header, and stored with the send: each copy's detail shows them.
      const warnings = sendWouldRefuse(body, email.senderVerified(account.id, body.from.email)).map(warn);
      const sent = await email.send(account.id, body, warnings);
      await ruleTagsApplied();
      return { success: true as const, ...sent };
    },
    getEmailLogs: ({ query, account, request, warn }) => {
      // The query as sent: the parsed one has its dates completed.
      for (const found of logsQueryWouldRefuse(request.query as Record<string, unknown>)) warn(found);
      return email.logs(account.id, query);
    },
    subscribeEmail: ({ body, account }) => {
      suppressions.lift(account.id, body.email);
      return ok('Email subscribed successfully');
    },
    unsubscribeEmail: ({ body, account }) => {
      suppressions.add(account.id, body.email, 'api');
      return ok('Email unsubscribed successfully');
    },
    createTemplate: ({ body, account }) => {
      const created = templates.create(account.id, body);
      return { success: true as const, message: 'Template created successfully', template_id: created.template_id };
    },
    listTemplates: ({ account }) => ok('Templates retrieved successfully', templates.list(account.id)),
    getTemplate: ({ params, account }) => ok('Template retrieved successfully', templates.get(account.id, params.template_id)),
    deleteTemplate: ({ params, account }) => {
      templates.delete(account.id, params.template_id);
      return ok('Template deleted successfully');
    },
  };
}
