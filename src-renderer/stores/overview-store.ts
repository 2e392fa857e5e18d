import { create } from 'zustand';
import type { AccountDeleted, AccountRecord, Health } from '../../src-shared/schemas/emulator';
import { control } from '../api/clients';
import { live } from '../api/live';

interface OverviewState {
  health: Health | null;
  accounts: AccountRecord[];
  error: string | null;
  loading: boolean;
  load: () => Promise<void>;
  /** Drops a deleted account from the list (every screen and the header's switcher read it). */
  forget: (accountId: string) => void;
  /** Deletes the accounts one by one with all their data; answers what each removed, and stops at the first failure (thrown). */
  deleteAccounts: (accountIds: readonly string[], done?: (deleted: AccountDeleted) => void) => Promise<AccountDeleted[]>;
  /** Follows deletions announced on the live stream (another window, the API, a script); answers the unsubscribe. */
  follow: () => () => void;
}

export const useOverview = create<OverviewState>((set, get) => ({
  health: null,
  accounts: [],
  error: null,
  loading: true,
  load: async () => {
    try {
      const [health, accounts] = await Promise.all([control.getHealth(), control.listAccounts()]);
      set({ health: health.data, accounts: accounts.data, error: null, loading: false });
    } catch (err) {
      set({ error: `Cannot reach the emulator: ${(err as Error).message}`, loading: false });
    }
  },
  forget: (accountId) => set((s) => ({ accounts: s.accounts.filter((a) => a.id !== accountId) })),
  deleteAccounts: async (accountIds, done) => {
    const deleted: AccountDeleted[] = [];
    // One at a time: the emulator deletes one account at a time anyway.
    for (const id of accountIds) {
      const res = await control.deleteAccount(id);
      get().forget(id);
      deleted.push(res.data);
      done?.(res.data);
    }
    return deleted;
  },
  follow: () => {
    const offs = [
      live.on('account.created', (account) => {
        if (!get().accounts.some((a) => a.id === account.id)) set({ accounts: [...get().accounts, account] });
      }),
      live.on('account.deleted', ({ account_id }) => get().forget(account_id)),
    ];
    return () => {
      for (const off of offs) off();
    };
  },
}));
