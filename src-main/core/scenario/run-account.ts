import type { Account, AccountsService } from '../services/accounts.service';

/** The account a run sends as: an existing one (chosen, or the default), or null for a new one of its own. */
export type RunAccountChoice = { accountId: string } | null;

/** The most characters an account's name may have (the accounts API's limit). */
const ACCOUNT_NAME_MAX = 100;

/**
 * A run's own account's name: the scenario's and the run's start (wall clock, UTC, to the second), so
 * the runs of one scenario can be told apart in the account switcher. A long scenario name is cut, never the time.
 */
export function runAccountName(scenarioName: string, startWallMs: number): string {
  const when = ` · ${new Date(startWallMs).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return `scenario: ${scenarioName}`.slice(0, ACCOUNT_NAME_MAX - when.length) + when;
}

/** The run's account: the existing one chosen (throws if it is gone since the run was asked for), or a new one named for the run. */
export function openRunAccount(
  accounts: Pick<AccountsService, 'create' | 'get'>,
  choice: RunAccountChoice,
  scenarioName: string,
  startWallMs: number,
): Account {
  if (choice === null) return accounts.create({ name: runAccountName(scenarioName, startWallMs) });
  const found = accounts.get(choice.accountId);
  if (!found) throw new Error(`the account ${choice.accountId} is gone`);
  return found;
}
