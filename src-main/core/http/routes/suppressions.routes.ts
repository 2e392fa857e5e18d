import type { FastifyInstance } from 'fastify';
import { controlOperations as ops } from '../../../../src-shared/operations';
import type { AccountsService } from '../../services/accounts.service';
import type { SuppressionsService } from '../../services/events/suppressions.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

/** `/emulator/suppressions`: list and lift an account's suppressions (the default account unless one is named). */
export function suppressionRoutes(app: FastifyInstance, deps: { suppressions: SuppressionsService; accounts: AccountsService }): void {
  registerOperation(app, ops.listSuppressions, ({ query }) =>
    ok('Suppressions retrieved successfully', deps.suppressions.list(deps.accounts.accountIdOr404(query.account_id))),
  );
  registerOperation(app, ops.removeSuppression, ({ params, query }) =>
    ok('Suppression removed', deps.suppressions.remove(deps.accounts.accountIdOr404(query.account_id), params.email)),
  );
}
