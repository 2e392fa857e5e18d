import type { controlDomainOperations } from '../../../../src-shared/operations/control/domains';
import type { domainOperations } from '../../../../src-shared/operations/service/domains';
import type { DomainsService } from '../../services/domains/domains.service';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/**
 * The service's domain operations, answered flat as the real service's docs show them: addDomain and
 * getDomain the domain beside `success` and `message`; verifyDomain `{success, message, records}`.
 */
export function domainHandlers(domains: DomainsService): Handlers<typeof domainOperations> {
  return {
    addDomain: async ({ body, account }) => ({
      success: true as const,
      message: 'Domain added successfully',
      ...(await domains.add(account.id, body)),
    }),
    listDomains: ({ account }) => ({ success: true as const, domains: domains.list(account.id) }),
    getDomain: ({ params, account }) => ({
      success: true as const,
      message: 'Domain retrieved successfully',
      ...domains.get(account.id, params.domain),
    }),
    verifyDomain: async ({ params, account }) => ({
      success: true as const,
      message: 'Domain verified successfully',
      records: await domains.verify(account.id, params.domain),
    }),
    deleteDomain: ({ params, account }) => {
      domains.delete(account.id, params.domain);
      return ok('Domain deleted successfully');
    },
  };
}

/** The emulator's own domain controls (`/emulator/domains`). */
export function domainControlHandlers(domains: DomainsService): Handlers<typeof controlDomainOperations> {
  return {
    listEmulatorDomains: () => ok('Domains retrieved successfully', domains.listAll()),
    setDomainVerification: ({ params, body }) => {
      const setting = domains.setVerification(params.domain, body);
      return ok(`The next verifications of ${setting.domain} will be ${setting.outcome}`, setting);
    },
  };
}
