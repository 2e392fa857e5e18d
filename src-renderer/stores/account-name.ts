import { useOverview } from './overview-store';

/** An account's name by its id, for rows and pages that say whose they are (the id itself until the accounts are read). */
export function useAccountName(accountId: string): string {
  return useOverview((s) => s.accounts.find((a) => a.id === accountId)?.name ?? accountId);
}
