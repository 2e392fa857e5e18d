import type { FastifyInstance } from 'fastify';
import { controlOperations as ops } from '../../../../src-shared/operations';
import type { Health } from '../../../../src-shared/schemas/emulator';
import { toAccountRecord, type AccountsService } from '../../services/accounts.service';
import type { ResetService } from '../../services/reset.service';
import type { StatsService } from '../../services/stats.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export function controlRoutes(
  app: FastifyInstance,
  deps: { accounts: AccountsService; health: () => Health; stats: StatsService; reset: ResetService },
): void {
  const { accounts } = deps;
  registerOperation(app, ops.getHealth, () => ok('Mailyard is running', deps.health()));
  registerOperation(app, ops.getStats, () => ok('Stats retrieved successfully', deps.stats.stats()));
  registerOperation(app, ops.listAccounts, () => ok('Accounts retrieved successfully', accounts.list().map(toAccountRecord)));
  registerOperation(app, ops.createAccount, ({ body }) =>
    ok('Account created successfully', toAccountRecord(accounts.create({ name: body.name, apiKey: body.api_key }))),
  );
  registerOperation(app, ops.setSigningSecret, ({ params, body }) =>
    ok('Signing secret set: webhook requests of this account are signed', toAccountRecord(accounts.setSigningSecret(params.id, body?.secret))),
  );
  registerOperation(app, ops.resetEmulator, async () =>
    ok('Emulator reset: all data wiped; the default and --api-key accounts and their API keys kept', await deps.reset.reset()),
  );
  registerOperation(app, ops.setPayloadFormat, ({ params, body }) =>
    ok(`Payload format set: email events of this account are sent in the ${body.payload_format} shape`, toAccountRecord(accounts.setPayloadFormat(params.id, body.payload_format))),
  );
  registerOperation(app, ops.deleteSigningSecret, ({ params }) =>
    ok('Signing secret removed: webhook requests of this account are not signed', toAccountRecord(accounts.setSigningSecret(params.id, null))),
  );
}
