import type { FastifyInstance } from 'fastify';
import { controlOperations as ctl, serviceOperations as ops } from '../../../../src-shared/operations';
import type { AccountsService } from '../../services/accounts.service';
import type { InboundService } from '../../services/inbound/inbound.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export function inboundRoutes(app: FastifyInstance, inbound: InboundService): void {
  registerOperation(app, ops.configureInboundRouting, async ({ body, request }) =>
    ok('Inbound routing configured successfully', await inbound.configureDomain(request.account!.id, body)),
  );
  registerOperation(app, ops.updateInboundDomain, async ({ params, body, request }) =>
    ok('Inbound domain updated successfully', await inbound.updateDomain(request.account!.id, params.domain, body)),
  );
  registerOperation(app, ops.getInboundDomain, ({ params, request }) =>
    ok('Inbound domain retrieved successfully', inbound.getDomain(request.account!.id, params.domain)),
  );
  registerOperation(app, ops.deleteInboundDomain, ({ params, request }) => {
    inbound.deleteDomain(request.account!.id, params.domain);
    return ok('Inbound domain deleted successfully');
  });
  registerOperation(app, ops.createInboundUsername, async ({ body, request }) =>
    ok('Inbound username created successfully', await inbound.createUsername(request.account!.id, body)),
  );
  registerOperation(app, ops.updateInboundUsername, async ({ params, body, request }) =>
    ok('Inbound username updated successfully', await inbound.updateUsername(request.account!.id, params.domain, params.username, body)),
  );
  registerOperation(app, ops.getInboundUsername, ({ params, request }) =>
    ok('Inbound username retrieved successfully', inbound.getUsername(request.account!.id, params.domain, params.username)),
  );
}

/** `POST /emulator/inbound`: an inbound email without SMTP, for the default account unless one is named. */
export function inboundControlRoutes(app: FastifyInstance, deps: { inbound: InboundService; accounts: AccountsService }): void {
  registerOperation(app, ctl.simulateInbound, async ({ body }) => {
    return ok('Inbound email routed', await deps.inbound.simulate(deps.accounts.accountIdOr404(body.account_id), body));
  });
}
