import type { controlInboundOperations } from '../../../../src-shared/operations/control/inbound';
import type { inboundOperations } from '../../../../src-shared/operations/service/inbound';
import type { AccountsService } from '../../services/accounts.service';
import type { InboundService } from '../../services/inbound/inbound.service';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** Inbound routing: domains and usernames (`/v1/inbound`). */
export function inboundHandlers(inbound: InboundService): Handlers<typeof inboundOperations> {
  return {
    configureInboundRouting: async ({ body, account }) => ok('Inbound routing configured successfully', await inbound.configureDomain(account.id, body)),
    updateInboundDomain: async ({ params, body, account }) =>
      ok('Inbound domain updated successfully', await inbound.updateDomain(account.id, params.domain, body)),
    getInboundDomain: ({ params, account }) => ok('Inbound domain retrieved successfully', inbound.getDomain(account.id, params.domain)),
    deleteInboundDomain: ({ params, account }) => {
      inbound.deleteDomain(account.id, params.domain);
      return ok('Inbound domain deleted successfully');
    },
    createInboundUsername: async ({ body, account }) => ok('Inbound username created successfully', await inbound.createUsername(account.id, body)),
    updateInboundUsername: async ({ params, body, account }) =>
      ok('Inbound username updated successfully', await inbound.updateUsername(account.id, params.domain, params.username, body)),
    getInboundUsername: ({ params, account }) => ok('Inbound username retrieved successfully', inbound.getUsername(account.id, params.domain, params.username)),
  };
}

/** `POST /emulator/inbound`: an inbound email without SMTP, for the default account unless one is named. */
export function inboundControlHandlers(inbound: InboundService, accounts: AccountsService): Handlers<typeof controlInboundOperations> {
  return {
    simulateInbound: async ({ body }) => ok('Inbound email routed', await inbound.simulate(accounts.accountIdOr404(body.account_id), body)),
    listInboundMessages: ({ query }) =>
      ok('Inbound messages retrieved successfully', { messages: inbound.messages({ refId: query.ref_id, accountId: query.account_id, limit: query.limit }) }),
  };
}
