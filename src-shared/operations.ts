import { z } from 'zod';
import { dataResponse, MessageResponse } from './schemas/common';
import {
  AccountIdParams,
  AttemptRecord,
  ClockBody,
  ClockState,
  DeliveryDetail,
  DeliveryIdParams,
  DeliveryPage,
  DeliverySummary,
  FireEventBody,
  FireEventResult,
  ListDeliveriesQuery,
  SetSigningSecretBody,
} from './schemas/dispatch';
import { EmailLogsPage, EmailLogsQuery, SendEmailBody, SendEmailResult, SimulationRules, SubscriptionBody } from './schemas/email';
import { AddDomainBody, DomainParams, DomainRecord, EmulatorDomain, SetVerificationBody, VerificationSetting } from './schemas/domains';
import { AccountRecord, CreateAccountBody, Health } from './schemas/emulator';
import { DeletedCount, ListMessagesQuery, MessageDetail, MessagePage, MessageRefParams } from './schemas/messages';
import { DeleteWebhookBody, RegisterWebhookBody, UpdateWebhookBody, WebhookRecord } from './schemas/webhooks';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/**
 * One HTTP operation: the single description from which the server registers its route, the typed
 * clients build their requests, and the OpenAPI document is generated.
 */
export interface Operation {
  method: HttpMethod;
  /** OpenAPI-style template, e.g. `/v1/domain/{domain}`. */
  path: string;
  summary: string;
  tag: string;
  /** `bearer`: needs an account API key (the `/v1` service API); `none`: the control API. */
  auth: 'bearer' | 'none';
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response: z.ZodType;
  /** Error statuses this operation may answer besides 400 (and 401 for bearer operations). */
  errors?: readonly number[];
}

function defineOperations<const T extends Record<string, Operation>>(ops: T): T {
  return ops;
}

/** The emulated service (`/v1`). Operation names are the spec's. */
export const serviceOperations = defineOperations({
  registerWebhook: {
    method: 'POST',
    path: '/v1/webhook/register',
    summary: 'Register the webhook of one event type (EMAIL_EVENT or DOMAIN_VERIFICATION)',
    tag: 'Webhooks',
    auth: 'bearer',
    body: RegisterWebhookBody,
    response: MessageResponse,
    errors: [409, 413, 415, 422],
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
  },
  listWebhooks: {
    method: 'GET',
    path: '/v1/webhook',
    summary: "List the account's webhooks (extension)",
    tag: 'Webhooks',
    auth: 'bearer',
    response: dataResponse(z.array(WebhookRecord)),
  },
  sendEmail: {
    method: 'POST',
    path: '/v1/email/send',
    summary: 'Send an email: one message per recipient (to, cc, bcc), each with its ref_id and simulated events',
    tag: 'Email',
    auth: 'bearer',
    body: SendEmailBody,
    response: dataResponse(SendEmailResult),
    errors: [413, 415],
  },
  getEmailLogs: {
    method: 'GET',
    path: '/v1/email/logs',
    summary: 'Email logs, newest first, filtered, with page tokens',
    tag: 'Email',
    auth: 'bearer',
    query: EmailLogsQuery,
    response: dataResponse(EmailLogsPage),
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
    summary: "Add an address to the account's suppression list (its messages get status suppressed and no events)",
    tag: 'Email',
    auth: 'bearer',
    body: SubscriptionBody,
    response: MessageResponse,
    errors: [415],
  },
  addDomain: {
    method: 'POST',
    path: '/v1/domain',
    summary: 'Add a sending domain: pending, with the DNS records to publish (a new RSA-2048 DKIM key)',
    tag: 'Domains',
    auth: 'bearer',
    body: AddDomainBody,
    response: dataResponse(DomainRecord),
    errors: [409, 413, 415],
  },
  getDomain: {
    method: 'GET',
    path: '/v1/domain/{domain}',
    summary: 'A sending domain with its DNS records and status',
    tag: 'Domains',
    auth: 'bearer',
    params: DomainParams,
    response: dataResponse(DomainRecord),
    errors: [404],
  },
  verifyDomain: {
    method: 'POST',
    path: '/v1/domain/{domain}/verify',
    summary: 'Verify a sending domain now; a status change sends a DOMAIN_VERIFICATION notification',
    tag: 'Domains',
    auth: 'bearer',
    params: DomainParams,
    response: dataResponse(DomainRecord),
    errors: [404, 415],
  },
  deleteDomain: {
    method: 'DELETE',
    path: '/v1/domain/{domain}',
    summary: 'Delete a sending domain and its DKIM key',
    tag: 'Domains',
    auth: 'bearer',
    params: DomainParams,
    response: MessageResponse,
    errors: [404, 415],
  },
  listDomains: {
    method: 'GET',
    path: '/v1/domain',
    summary: "List the account's sending domains (extension)",
    tag: 'Domains',
    auth: 'bearer',
    response: dataResponse(z.array(DomainRecord)),
  },
});

/** The emulator's own control API (`/emulator`): loopback only, no API key. */
export const controlOperations = defineOperations({
  getHealth: {
    method: 'GET',
    path: '/emulator/health',
    summary: 'Health, version, listening URLs and data directory',
    tag: 'Emulator',
    auth: 'none',
    response: dataResponse(Health),
  },
  listAccounts: {
    method: 'GET',
    path: '/emulator/accounts',
    summary: 'List accounts and their API keys',
    tag: 'Emulator',
    auth: 'none',
    response: dataResponse(z.array(AccountRecord)),
  },
  createAccount: {
    method: 'POST',
    path: '/emulator/accounts',
    summary: 'Create an account, with a generated API key unless one is given',
    tag: 'Emulator',
    auth: 'none',
    body: CreateAccountBody,
    response: dataResponse(AccountRecord),
    errors: [409, 415],
  },
  setSigningSecret: {
    method: 'PUT',
    path: '/emulator/accounts/{id}/signing-secret',
    summary: "Set or rotate the account's Standard Webhooks signing secret (generated when none is given)",
    tag: 'Emulator',
    auth: 'none',
    params: AccountIdParams,
    body: SetSigningSecretBody,
    response: dataResponse(AccountRecord),
    errors: [404, 415],
  },
  deleteSigningSecret: {
    method: 'DELETE',
    path: '/emulator/accounts/{id}/signing-secret',
    summary: 'Stop signing webhook requests of the account',
    tag: 'Emulator',
    auth: 'none',
    params: AccountIdParams,
    response: dataResponse(AccountRecord),
    errors: [404, 415],
  },
  listMessages: {
    method: 'GET',
    path: '/emulator/messages',
    summary: 'Captured messages (API and SMTP), newest first, searched (q) and filtered',
    tag: 'Messages',
    auth: 'none',
    query: ListMessagesQuery,
    response: dataResponse(MessagePage),
  },
  getMessage: {
    method: 'GET',
    path: '/emulator/messages/{ref_id}',
    summary: 'One message: headers, text, HTML, attachments and its events',
    tag: 'Messages',
    auth: 'none',
    params: MessageRefParams,
    response: dataResponse(MessageDetail),
    errors: [404],
  },
  deleteMessage: {
    method: 'DELETE',
    path: '/emulator/messages/{ref_id}',
    summary: 'Delete one message',
    tag: 'Messages',
    auth: 'none',
    params: MessageRefParams,
    response: dataResponse(DeletedCount),
    errors: [404, 415],
  },
  deleteMessages: {
    method: 'DELETE',
    path: '/emulator/messages',
    summary: 'Delete every captured message, with its events and scheduled events',
    tag: 'Messages',
    auth: 'none',
    response: dataResponse(DeletedCount),
    errors: [415],
  },
  getRules: {
    method: 'GET',
    path: '/emulator/rules',
    summary: 'Simulation rules: recipient patterns and the events they get',
    tag: 'Simulation',
    auth: 'none',
    response: dataResponse(SimulationRules),
  },
  setRules: {
    method: 'PUT',
    path: '/emulator/rules',
    summary: 'Replace the simulation rules (tried in order, before the simulator addresses)',
    tag: 'Simulation',
    auth: 'none',
    body: SimulationRules,
    response: dataResponse(SimulationRules),
    errors: [415],
  },
  getClock: {
    method: 'GET',
    path: '/emulator/clock',
    summary: 'The emulator clock: emulated now, speed, and when the next scheduled attempt is due',
    tag: 'Clock',
    auth: 'none',
    response: dataResponse(ClockState),
  },
  setClock: {
    method: 'POST',
    path: '/emulator/clock',
    summary: 'Change the clock speed (0 pauses) and/or jump ahead; due retries then fire at once',
    tag: 'Clock',
    auth: 'none',
    body: ClockBody,
    response: dataResponse(ClockState),
    errors: [415],
  },
  listDeliveries: {
    method: 'GET',
    path: '/emulator/deliveries',
    summary: 'Webhook deliveries, newest first, filtered, with cursor pagination',
    tag: 'Deliveries',
    auth: 'none',
    query: ListDeliveriesQuery,
    response: dataResponse(DeliveryPage),
  },
  getDelivery: {
    method: 'GET',
    path: '/emulator/deliveries/{id}',
    summary: 'One delivery with its payload and every attempt (request and response)',
    tag: 'Deliveries',
    auth: 'none',
    params: DeliveryIdParams,
    response: dataResponse(DeliveryDetail),
    errors: [404],
  },
  retryDelivery: {
    method: 'POST',
    path: '/emulator/deliveries/{id}/retry',
    summary: 'Send a delivery again now (any status); answers when the attempt is recorded',
    tag: 'Deliveries',
    auth: 'none',
    params: DeliveryIdParams,
    response: dataResponse(z.object({ delivery: DeliverySummary, attempt: AttemptRecord })),
    errors: [404, 409, 415],
  },
  fireEvent: {
    method: 'POST',
    path: '/emulator/events',
    summary: "Fire a synthetic email event of any kind through the account's webhook filter",
    tag: 'Deliveries',
    auth: 'none',
    body: FireEventBody,
    response: dataResponse(FireEventResult),
    errors: [404, 415],
  },
  listEmulatorDomains: {
    method: 'GET',
    path: '/emulator/domains',
    summary: "Every account's sending domains, with the verification outcome setting and recent checks",
    tag: 'Domains',
    auth: 'none',
    response: dataResponse(z.array(EmulatorDomain)),
  },
  setDomainVerification: {
    method: 'PUT',
    path: '/emulator/domains/{domain}/verification',
    summary: 'Set the outcome of the next verifications of a domain (verified, or failed with a reason); it stays until changed',
    tag: 'Domains',
    auth: 'none',
    params: DomainParams,
    body: SetVerificationBody,
    response: dataResponse(VerificationSetting),
    errors: [404, 415],
  },
});

export type ServiceOperations = typeof serviceOperations;
export type ControlOperations = typeof controlOperations;
