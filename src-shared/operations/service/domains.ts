import { MessageResponse } from '../../schemas/common';
import { AddDomainBody, DomainListResponse, DomainParams, DomainResponse, VerifyDomainResponse } from '../../schemas/domains';
import { defineOperations } from '../operation';

/** Sending domains of the service API (`/v1/domain`). */
export const domainOperations = defineOperations({
  addDomain: {
    method: 'POST',
    path: '/v1/domain/add',
    summary: 'Add a sending domain: pending, with its mailer_id and the DNS records to publish (a new RSA-2048 DKIM key)',
    tag: 'Domains',
    auth: 'bearer',
    body: AddDomainBody,
    response: DomainResponse,
    errors: [409, 413, 415],
  },
  getDomain: {
    method: 'GET',
    path: '/v1/domain/{domain}',
    summary: 'A sending domain with its mailer_id, DNS records and status',
    tag: 'Domains',
    auth: 'bearer',
    params: DomainParams,
    response: DomainResponse,
    errors: [404],
    errorShape: 'records',
  },
  verifyDomain: {
    method: 'PUT',
    path: '/v1/domain/verify/{domain}',
    summary: 'Verify a sending domain now (400 Invalid DNS records when a record does not check out); a status change sends a DOMAIN_VERIFICATION notification',
    tag: 'Domains',
    auth: 'bearer',
    params: DomainParams,
    response: VerifyDomainResponse,
    errors: [404, 415],
    errorShape: 'records',
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
    path: '/v1/domains',
    summary: "List the account's sending domains, each as getDomain shows it",
    tag: 'Domains',
    auth: 'bearer',
    response: DomainListResponse,
  },
});
