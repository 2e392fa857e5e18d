import { create } from 'zustand';
import type { EmulatorStats } from '../../src-shared/schemas/stats';
import { control, describeError } from '../api/clients';
import { live } from '../api/live';

interface StatsState {
  /** The figures of `accountId` (the Overview's account), or null until read. */
  stats: EmulatorStats | null;
  /** The account they are read for: the header's choice, as Overview follows it. */
  accountId: string | null;
  /** That account's deliveries with an attempt in flight (the API's `sending`), read with the stats. */
  inFlight: number;
  error: string | null;
  /** Reads the figures of this account (one account's, as every screen works as one). */
  load: (accountId: string) => Promise<void>;
  /** Reloads (at most every 2 s) while anything happens; returns the unsubscribe. */
  follow: () => () => void;
}

export const useStats = create<StatsState>((set, get) => ({
  stats: null,
  accountId: null,
  inFlight: 0,
  error: null,
  load: async (accountId) => {
    // Another account's figures are not shown meanwhile.
    if (get().accountId !== accountId) set({ stats: null, accountId, inFlight: 0 });
    try {
      const [stats, sending] = await Promise.all([
        control.getStats({ account_id: accountId }),
        control.countDeliveries({ status: 'sending', account_id: accountId }),
      ]);
      // A switch while reading: the answer is of the account left.
      if (get().accountId === accountId) set({ stats: stats.data, inFlight: sending.data.count, error: null });
    } catch (err) {
      set({ error: describeError(err) });
    }
  },
  follow: () => {
    let timer: number | undefined;
    const reload = () => {
      const id = get().accountId;
      if (id) void get().load(id);
    };
    const soon = () => {
      timer ??= window.setTimeout(() => {
        timer = undefined;
        reload();
      }, 2000);
    };
    // What was announced before the live stream was up (or while it was down) is read on its (re)connection.
    const offs = [
      live.on('message.created', soon),
      live.on('message.updated', soon),
      live.on('delivery.updated', soon),
      live.on('clock.changed', soon),
      live.onReconnect(reload),
    ];
    // The chart's minutes move on even when nothing happens.
    const minute = window.setInterval(reload, 30_000);
    return () => {
      for (const off of offs) off();
      window.clearInterval(minute);
      window.clearTimeout(timer);
    };
  },
}));
