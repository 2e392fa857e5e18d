import { create } from 'zustand';
import type { AccountRecord, Health } from '../../src-shared/schemas/emulator';
import { control } from '../api/clients';

interface OverviewState {
  health: Health | null;
  accounts: AccountRecord[];
  error: string | null;
  loading: boolean;
  load: () => Promise<void>;
}

export const useOverview = create<OverviewState>((set) => ({
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
}));
