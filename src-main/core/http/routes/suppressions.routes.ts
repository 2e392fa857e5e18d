import type { suppressionOperations } from '../../../../src-shared/operations/control/suppressions';
import type { AccountsService } from '../../services/accounts.service';
import type { SuppressionsService } from '../../services/events/suppressions.service';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** `/emulator/suppressions`: list and lift an account's suppressions (the default account unless one is named). */
export function suppressionHandlers(suppressions: SuppressionsService, accounts: AccountsService): Handlers<typeof suppressionOperations> {
  return {
    listSuppressions: ({ query }) =>
      ok('Suppressions retrieved successfully', suppressions.list(accounts.accountIdOr404(query.account_id), query.email?.split(','))),
    removeSuppression: ({ params, query }) => ok('Suppression removed', suppressions.remove(accounts.accountIdOr404(query.account_id), params.email)),
  };
}
