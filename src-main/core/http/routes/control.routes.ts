import type { FastifyInstance } from 'fastify';
import { controlOperations as ops } from '../../../../src-shared/operations';
import type { Health } from '../../../../src-shared/schemas/emulator';
import { toAccountRecord, type AccountsService } from '../../services/accounts.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export function controlRoutes(app: FastifyInstance, deps: { accounts: AccountsService; health: () => Health }): void {
  registerOperation(app, ops.getHealth, () => ok('Mailyard is running', deps.health()));
  registerOperation(app, ops.listAccounts, () => ok('Accounts retrieved successfully', deps.accounts.list().map(toAccountRecord)));
  registerOperation(app, ops.createAccount, ({ body }) =>
    ok('Account created successfully', toAccountRecord(deps.accounts.create({ name: body.name, apiKey: body.api_key }))),
  );
}
