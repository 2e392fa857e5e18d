import type { FastifyInstance } from 'fastify';
import { controlOperations as control, serviceOperations as ops } from '../../../../src-shared/operations';
import type { DomainsService } from '../../services/domains/domains.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

/**
 * The service's domain operations, answered flat as the real service's docs show them: addDomain and
 * getDomain the domain beside `success` and `message`; verifyDomain `{success, message, records}`.
 */
export function domainRoutes(app: FastifyInstance, domains: DomainsService): void {
  registerOperation(app, ops.addDomain, async ({ body, request }) => ({
    success: true as const,
    message: 'Domain added successfully',
    ...(await domains.add(request.account!.id, body)),
  }));
  registerOperation(app, ops.listDomains, ({ request }) => ({ success: true as const, domains: domains.list(request.account!.id) }));
  registerOperation(app, ops.getDomain, ({ params, request }) => ({
    success: true as const,
    message: 'Domain retrieved successfully',
    ...domains.get(request.account!.id, params.domain),
  }));
  registerOperation(app, ops.verifyDomain, async ({ params, request }) => ({
    success: true as const,
    message: 'Domain verified successfully',
    records: await domains.verify(request.account!.id, params.domain),
  }));
  registerOperation(app, ops.deleteDomain, ({ params, request }) => {
    domains.delete(request.account!.id, params.domain);
    return ok('Domain deleted successfully');
  });
}

/** The emulator's own domain controls (`/emulator/domains`). */
export function domainControlRoutes(app: FastifyInstance, domains: DomainsService): void {
  registerOperation(app, control.listEmulatorDomains, () => ok('Domains retrieved successfully', domains.listAll()));
  registerOperation(app, control.setDomainVerification, ({ params, body }) => {
    const setting = domains.setVerification(params.domain, body);
    return ok(`The next verifications of ${setting.domain} will be ${setting.outcome}`, setting);
  });
}
