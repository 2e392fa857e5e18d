import type { emulatorOperations } from '../../../../src-shared/operations/control/emulator';
import type { Health } from '../../../../src-shared/schemas/emulator';
import { type AccountsService, toAccountRecord } from '../../services/accounts.service';
import type { ResetService } from '../../services/reset.service';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** The emulator itself: health, accounts and their signing secrets. */
export function emulatorHandlers(deps: { accounts: AccountsService; health: () => Health; reset: ResetService }): Handlers<typeof emulatorOperations> {
  const { accounts } = deps;
  return {
    getHealth: () => ok('Mailyard is running', deps.health()),
    listAccounts: () => ok('Accounts retrieved successfully', accounts.list().map(toAccountRecord)),
    createAccount: ({ body }) => ok('Account created successfully', toAccountRecord(accounts.create({ name: body.name, apiKey: body.api_key }))),
    deleteAccount: async ({ params }) => ok('Account deleted with everything it owned', await deps.reset.deleteAccount(params.id)),
    setSigningSecret: ({ params, body }) =>
      ok(
        'Signing secret set: webhook requests of this account are signed',
        toAccountRecord(accounts.setSigningSecret(params.id, body?.secret, body?.grace_period_ms)),
      ),
    deleteSigningSecret: ({ params }) =>
      ok('Signing secret removed: webhook requests of this account are not signed', toAccountRecord(accounts.setSigningSecret(params.id, null))),
    setPayloadFormat: ({ params, body }) =>
      ok(
        `Payload format set: email events of this account are sent in the ${body.payload_format} shape`,
        toAccountRecord(accounts.setPayloadFormat(params.id, body.payload_format)),
      ),
  };
}
