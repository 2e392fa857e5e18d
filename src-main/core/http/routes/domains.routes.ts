import type { FastifyInstance } from 'fastify';
import { controlOperations as control, serviceOperations as ops } from '../../../../src-shared/operations';
import type { DomainsService } from '../../services/domains/domains.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

/** The service's domain operations (`/v1/domain`). */
export function domainRoutes(app: FastifyInstance, domains: DomainsService): void {
  registerOperation(app, ops.addDomain, async ({ body, request }) => ok('Domain added successfully', await domains.add(request.account!.id, body)));
  registerOperation(app, ops.listDomains, ({ request }) => ok('Domains retrieved successfully', domains.list(request.account!.id)));
  registerOperation(app, ops.getDomain, ({ params, request }) => ok('Domain retrieved successfully', domains.get(request.account!.id, params.domain)));
  registerOperation(app, ops.verifyDomain, async ({ params, request }) => {
    const domain = await domains.verify(request.account!.id, params.domain);
    return ok(domain.status === 'verified' ? 'Domain verified successfully' : `Domain verification failed: ${domain.reason}`, domain);
  });
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
