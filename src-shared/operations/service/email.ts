import { z } from 'zod';
import { dataResponse, MessageResponse } from '../../schemas/common';
import { EmailLogsQuery, EmailLogsResponse, SendEmailBody, SendEmailResponse, SubscriptionBody } from '../../schemas/email';
import { CreateTemplateResponse, TemplateBody, TemplateIdParams, TemplateRecord } from '../../schemas/templates';
import { defineOperations } from '../operation';

/** Sending, logs, templates and the suppression list of the service API (`/v1/email`). */
export const emailOperations = defineOperations({
  sendEmail: {
    method: 'POST',
    path: '/v1/email/send',
    summary: 'Send an email: one ref_id for the request; each recipient (to, cc, bcc) gets its copy, its log entry and its simulated events',
    tag: 'Email',
    auth: 'bearer',
    body: SendEmailBody,
    response: SendEmailResponse,
    errors: [403, 413, 415],
  },
  getEmailLogs: {
    method: 'GET',
    path: '/v1/email/logs',
    summary: 'Email logs, one entry per recipient, newest first; exact-match filters, the last 7 days by default, with page tokens',
    tag: 'Email',
    auth: 'bearer',
    query: EmailLogsQuery,
    response: EmailLogsResponse,
  },
  createTemplate: {
    method: 'POST',
    path: '/v1/email/template',
    summary: 'Store a template (name, subject, content) whose {{variable}} placeholders a send fills from its substitutions',
    tag: 'Email',
    auth: 'bearer',
    body: TemplateBody,
    response: CreateTemplateResponse,
    errors: [413, 415],
  },
  listTemplates: {
    method: 'GET',
    path: '/v1/email/templates',
    summary: "List the account's templates (extension)",
    tag: 'Email',
    auth: 'bearer',
    response: dataResponse(z.array(TemplateRecord)),
  },
  getTemplate: {
    method: 'GET',
    path: '/v1/email/template/{template_id}',
    summary: 'A template with the names of its placeholders (extension)',
    tag: 'Email',
    auth: 'bearer',
    params: TemplateIdParams,
    response: dataResponse(TemplateRecord),
    errors: [404],
  },
  deleteTemplate: {
    method: 'DELETE',
    path: '/v1/email/template/{template_id}',
    summary: 'Delete a template; sends already accepted keep what it gave them (extension)',
    tag: 'Email',
    auth: 'bearer',
    params: TemplateIdParams,
    response: MessageResponse,
    errors: [404, 415],
  },
  subscribeEmail: {
    method: 'POST',
    path: '/v1/email/subscribe',
    summary: "Remove an address from the account's suppression list",
    tag: 'Email',
    auth: 'bearer',
    body: SubscriptionBody,
    response: MessageResponse,
    errors: [415],
  },
  unsubscribeEmail: {
    method: 'POST',
    path: '/v1/email/unsubscribe',
    summary: "Add an address to the account's suppression list (its later messages get status failed, as suppressed, and no events)",
    tag: 'Email',
    auth: 'bearer',
    body: SubscriptionBody,
    response: MessageResponse,
    errors: [415],
  },
});
