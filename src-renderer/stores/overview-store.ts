import { create } from 'zustand';
import type { AccountDeleted, AccountRecord, Health } from '../../src-shared/schemas/emulator';
import { control } from '../api/clients';
import { live } from '../api/live';

interface OverviewState {
  health: Health | null;
  accounts: AccountRecord[];
  error: string | null;
  loading: boolean;
  /**
   * Accounts deleted elsewhere while this page was open (another window, the API, a script), by id:
   * their names, so a screen working as one can say which it was rather than quietly act as another.
   */
  deletedElsewhere: Record<string, string>;
  /** Accounts this page deleted (the user asked for it here): a screen working as one goes on without asking. */
  deletedHere: ReadonlySet<string>;
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
  deletedElsewhere: {},
  deletedHere: new Set(),
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
      // Marked before the request: its announcement on the live stream can come before its answer.
      set((s) => ({ deletedHere: new Set([...s.deletedHere, id]) }));
      const res = await control.deleteAccount(id).catch((err: unknown) => {
        set((s) => ({ deletedHere: new Set([...s.deletedHere].filter((d) => d !== id)) }));
        throw err;
      });
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
      live.on('account.deleted', ({ account_id }) => {
        const { accounts, deletedHere, deletedElsewhere } = get();
        const name = accounts.find((a) => a.id === account_id)?.name;
        if (name !== undefined && !deletedHere.has(account_id)) set({ deletedElsewhere: { ...deletedElsewhere, [account_id]: name } });
        get().forget(account_id);
      }),
      // An account made or deleted before the live stream was up (or while it was down) is read on its (re)connection.
      live.onReconnect(() => void get().load()),
    ];
    return () => {
      for (const off of offs) off();
    };
  },
}));
