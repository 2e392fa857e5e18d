import { HttpClient, type CallInput, type CallOutput, type HttpClientOptions } from './http-client';
import { controlOperations as control, serviceOperations as service } from './operations';

type Svc = typeof service;
type Ctl = typeof control;

/** Typed client of the emulated service (`/v1`); method names are the spec's operation names. */
export class ServiceClient {
  private readonly http: HttpClient;

  constructor(options: Omit<HttpClientOptions, 'headers'> & { apiKey: string }) {
    this.http = new HttpClient({ ...options, headers: { authorization: `Bearer ${options.apiKey}` } });
  }

  registerWebhook(body: CallInput<Svc['registerWebhook']>['body']): Promise<CallOutput<Svc['registerWebhook']>> {
    return this.http.call(service.registerWebhook, { body });
  }

  updateWebhook(body: CallInput<Svc['updateWebhook']>['body']): Promise<CallOutput<Svc['updateWebhook']>> {
    return this.http.call(service.updateWebhook, { body });
  }

  deleteWebhook(body: CallInput<Svc['deleteWebhook']>['body']): Promise<CallOutput<Svc['deleteWebhook']>> {
    return this.http.call(service.deleteWebhook, { body });
  }

  listWebhooks(): Promise<CallOutput<Svc['listWebhooks']>> {
    return this.http.call(service.listWebhooks, {});
  }

  sendEmail(body: CallInput<Svc['sendEmail']>['body']): Promise<CallOutput<Svc['sendEmail']>> {
    return this.http.call(service.sendEmail, { body });
  }

  getEmailLogs(query: CallInput<Svc['getEmailLogs']>['query'] = {}): Promise<CallOutput<Svc['getEmailLogs']>> {
    return this.http.call(service.getEmailLogs, { query });
  }

  createTemplate(body: CallInput<Svc['createTemplate']>['body']): Promise<CallOutput<Svc['createTemplate']>> {
    return this.http.call(service.createTemplate, { body });
  }

  listTemplates(): Promise<CallOutput<Svc['listTemplates']>> {
    return this.http.call(service.listTemplates, {});
  }

  getTemplate(templateId: string): Promise<CallOutput<Svc['getTemplate']>> {
    return this.http.call(service.getTemplate, { params: { template_id: templateId } });
  }

  deleteTemplate(templateId: string): Promise<CallOutput<Svc['deleteTemplate']>> {
    return this.http.call(service.deleteTemplate, { params: { template_id: templateId } });
  }

  subscribeEmail(email: string): Promise<CallOutput<Svc['subscribeEmail']>> {
    return this.http.call(service.subscribeEmail, { body: { email } });
  }

  unsubscribeEmail(email: string): Promise<CallOutput<Svc['unsubscribeEmail']>> {
    return this.http.call(service.unsubscribeEmail, { body: { email } });
  }

  addDomain(body: CallInput<Svc['addDomain']>['body']): Promise<CallOutput<Svc['addDomain']>> {
    return this.http.call(service.addDomain, { body });
  }

  getDomain(domain: string): Promise<CallOutput<Svc['getDomain']>> {
    return this.http.call(service.getDomain, { params: { domain } });
  }

  verifyDomain(domain: string): Promise<CallOutput<Svc['verifyDomain']>> {
    return this.http.call(service.verifyDomain, { params: { domain } });
  }

  deleteDomain(domain: string): Promise<CallOutput<Svc['deleteDomain']>> {
    return this.http.call(service.deleteDomain, { params: { domain } });
  }

  listDomains(): Promise<CallOutput<Svc['listDomains']>> {
    return this.http.call(service.listDomains, {});
  }

  configureInboundRouting(body: CallInput<Svc['configureInboundRouting']>['body']): Promise<CallOutput<Svc['configureInboundRouting']>> {
    return this.http.call(service.configureInboundRouting, { body });
  }

  updateInboundDomain(domain: string, body: CallInput<Svc['updateInboundDomain']>['body']): Promise<CallOutput<Svc['updateInboundDomain']>> {
    return this.http.call(service.updateInboundDomain, { params: { domain }, body });
  }

  getInboundDomain(domain: string): Promise<CallOutput<Svc['getInboundDomain']>> {
    return this.http.call(service.getInboundDomain, { params: { domain } });
  }

  deleteInboundDomain(domain: string): Promise<CallOutput<Svc['deleteInboundDomain']>> {
    return this.http.call(service.deleteInboundDomain, { params: { domain } });
  }

  createInboundUsername(body: CallInput<Svc['createInboundUsername']>['body']): Promise<CallOutput<Svc['createInboundUsername']>> {
    return this.http.call(service.createInboundUsername, { body });
  }

  updateInboundUsername(
    domain: string,
    username: string,
    body: CallInput<Svc['updateInboundUsername']>['body'],
  ): Promise<CallOutput<Svc['updateInboundUsername']>> {
    return this.http.call(service.updateInboundUsername, { params: { domain, username }, body });
  }

  getInboundUsername(domain: string, username: string): Promise<CallOutput<Svc['getInboundUsername']>> {
    return this.http.call(service.getInboundUsername, { params: { domain, username } });
  }

  configureSMTP(body: CallInput<Svc['configureSMTP']>['body']): Promise<CallOutput<Svc['configureSMTP']>> {
    return this.http.call(service.configureSMTP, { body });
  }

  updateSMTP(body: CallInput<Svc['updateSMTP']>['body']): Promise<CallOutput<Svc['updateSMTP']>> {
    return this.http.call(service.updateSMTP, { body });
  }

  getSMTPConfig(mailerId: string): Promise<CallOutput<Svc['getSMTPConfig']>> {
    return this.http.call(service.getSMTPConfig, { params: { mailer_id: mailerId } });
  }

  deleteSMTPConfig(mailerId: string): Promise<CallOutput<Svc['deleteSMTPConfig']>> {
    return this.http.call(service.deleteSMTPConfig, { params: { mailer_id: mailerId } });
  }

  listSMTPConfigs(): Promise<CallOutput<Svc['listSMTPConfigs']>> {
    return this.http.call(service.listSMTPConfigs, {});
  }

  configureIMAP(body: CallInput<Svc['configureIMAP']>['body']): Promise<CallOutput<Svc['configureIMAP']>> {
    return this.http.call(service.configureIMAP, { body });
  }

  updateIMAP(body: CallInput<Svc['updateIMAP']>['body']): Promise<CallOutput<Svc['updateIMAP']>> {
    return this.http.call(service.updateIMAP, { body });
  }

  getIMAPConfig(mailerId: string): Promise<CallOutput<Svc['getIMAPConfig']>> {
    return this.http.call(service.getIMAPConfig, { params: { mailer_id: mailerId } });
  }

  deleteIMAPConfig(mailerId: string): Promise<CallOutput<Svc['deleteIMAPConfig']>> {
    return this.http.call(service.deleteIMAPConfig, { params: { mailer_id: mailerId } });
  }

  listIMAPConfigs(): Promise<CallOutput<Svc['listIMAPConfigs']>> {
    return this.http.call(service.listIMAPConfigs, {});
  }

  setOAuthActive(body: CallInput<Svc['setOAuthActive']>['body']): Promise<CallOutput<Svc['setOAuthActive']>> {
    return this.http.call(service.setOAuthActive, { body });
  }

  oauthLogin(body: CallInput<Svc['oauthLogin']>['body']): Promise<CallOutput<Svc['oauthLogin']>> {
    return this.http.call(service.oauthLogin, { body });
  }
}

/** Typed client of the emulator's control API (`/emulator`). */
export class ControlClient {
  private readonly http: HttpClient;

  constructor(options: HttpClientOptions) {
    this.http = new HttpClient(options);
  }

  getHealth(): Promise<CallOutput<Ctl['getHealth']>> {
    return this.http.call(control.getHealth, {});
  }

  listAccounts(): Promise<CallOutput<Ctl['listAccounts']>> {
    return this.http.call(control.listAccounts, {});
  }

  createAccount(body: CallInput<Ctl['createAccount']>['body'] = {}): Promise<CallOutput<Ctl['createAccount']>> {
    return this.http.call(control.createAccount, { body });
  }

  setSigningSecret(accountId: string, secret?: string): Promise<CallOutput<Ctl['setSigningSecret']>> {
    return this.http.call(control.setSigningSecret, { params: { id: accountId }, body: secret === undefined ? {} : { secret } });
  }

  deleteSigningSecret(accountId: string): Promise<CallOutput<Ctl['deleteSigningSecret']>> {
    return this.http.call(control.deleteSigningSecret, { params: { id: accountId } });
  }

  /** Wipes all data (keeps the default and `--api-key` accounts); answers what was removed. */
  reset(): Promise<CallOutput<Ctl['resetEmulator']>> {
    return this.http.call(control.resetEmulator, {});
  }

  listMessages(query: CallInput<Ctl['listMessages']>['query'] = {}): Promise<CallOutput<Ctl['listMessages']>> {
    return this.http.call(control.listMessages, { query });
  }

  countMessages(query: CallInput<Ctl['countMessages']>['query'] = {}): Promise<CallOutput<Ctl['countMessages']>> {
    return this.http.call(control.countMessages, { query });
  }

  getStats(): Promise<CallOutput<Ctl['getStats']>> {
    return this.http.call(control.getStats, {});
  }

  /** One recipient's copy of a send, by its `id` (a send's copies: `listMessages({q: ref_id})`). */
  getMessage(id: string): Promise<CallOutput<Ctl['getMessage']>> {
    return this.http.call(control.getMessage, { params: { id } });
  }

  deleteMessage(id: string): Promise<CallOutput<Ctl['deleteMessage']>> {
    return this.http.call(control.deleteMessage, { params: { id } });
  }

  /** Every captured message, or (with filters: the list's q, status, campaign_id, account_id) those they find. */
  deleteMessages(query: CallInput<Ctl['deleteMessages']>['query'] = {}): Promise<CallOutput<Ctl['deleteMessages']>> {
    return this.http.call(control.deleteMessages, { query });
  }

  getRules(): Promise<CallOutput<Ctl['getRules']>> {
    return this.http.call(control.getRules, {});
  }

  setRules(body: CallInput<Ctl['setRules']>['body']): Promise<CallOutput<Ctl['setRules']>> {
    return this.http.call(control.setRules, { body });
  }

  /** An account's suppressed addresses (the default account unless account_id names one). */
  listSuppressions(query: CallInput<Ctl['listSuppressions']>['query'] = {}): Promise<CallOutput<Ctl['listSuppressions']>> {
    return this.http.call(control.listSuppressions, { query });
  }

  /** Lifts an address's suppression for an account (the default account unless account_id names one). */
  removeSuppression(email: string, query: CallInput<Ctl['removeSuppression']>['query'] = {}): Promise<CallOutput<Ctl['removeSuppression']>> {
    return this.http.call(control.removeSuppression, { params: { email }, query });
  }

  getClock(): Promise<CallOutput<Ctl['getClock']>> {
    return this.http.call(control.getClock, {});
  }

  setClock(body: CallInput<Ctl['setClock']>['body']): Promise<CallOutput<Ctl['setClock']>> {
    return this.http.call(control.setClock, { body });
  }

  listDeliveries(query: CallInput<Ctl['listDeliveries']>['query'] = {}): Promise<CallOutput<Ctl['listDeliveries']>> {
    return this.http.call(control.listDeliveries, { query });
  }

  countDeliveries(query: CallInput<Ctl['countDeliveries']>['query'] = {}): Promise<CallOutput<Ctl['countDeliveries']>> {
    return this.http.call(control.countDeliveries, { query });
  }

  /** The targets deliveries go to, each with its counts by status and its failure rate. */
  listEndpoints(query: CallInput<Ctl['listEndpoints']>['query'] = {}): Promise<CallOutput<Ctl['listEndpoints']>> {
    return this.http.call(control.listEndpoints, { query });
  }

  getDelivery(id: string): Promise<CallOutput<Ctl['getDelivery']>> {
    return this.http.call(control.getDelivery, { params: { id } });
  }

  /** A delivery's whole payload (the detail answers one over 256 KiB in part). */
  getDeliveryPayload(id: string): Promise<unknown> {
    return this.http.call(control.getDeliveryPayload, { params: { id } });
  }

  retryDelivery(id: string): Promise<CallOutput<Ctl['retryDelivery']>> {
    return this.http.call(control.retryDelivery, { params: { id } });
  }

  fireEvent(body: CallInput<Ctl['fireEvent']>['body']): Promise<CallOutput<Ctl['fireEvent']>> {
    return this.http.call(control.fireEvent, { body });
  }

  listEmulatorDomains(): Promise<CallOutput<Ctl['listEmulatorDomains']>> {
    return this.http.call(control.listEmulatorDomains, {});
  }

  setDomainVerification(domain: string, body: CallInput<Ctl['setDomainVerification']>['body']): Promise<CallOutput<Ctl['setDomainVerification']>> {
    return this.http.call(control.setDomainVerification, { params: { domain }, body });
  }

  simulateInbound(body: CallInput<Ctl['simulateInbound']>['body']): Promise<CallOutput<Ctl['simulateInbound']>> {
    return this.http.call(control.simulateInbound, { body });
  }

  listEmulatorMailers(): Promise<CallOutput<Ctl['listEmulatorMailers']>> {
    return this.http.call(control.listEmulatorMailers, {});
  }

  testMailer(mailerId: string): Promise<CallOutput<Ctl['testMailer']>> {
    return this.http.call(control.testMailer, { params: { mailer_id: mailerId } });
  }

  releaseMessage(id: string, body: CallInput<Ctl['releaseMessage']>['body']): Promise<CallOutput<Ctl['releaseMessage']>> {
    return this.http.call(control.releaseMessage, { params: { id }, body });
  }

  listImapMessages(mailerId: string, query: CallInput<Ctl['listImapMessages']>['query'] = {}): Promise<CallOutput<Ctl['listImapMessages']>> {
    return this.http.call(control.listImapMessages, { params: { mailer_id: mailerId }, query });
  }
}

export { ApiError } from './http-client';
