import { create } from 'zustand';
import type { EmulatorStats } from '../../src-shared/schemas/stats';
import { control, describeError } from '../api/clients';
import { live } from '../api/live';

interface StatsState {
  stats: EmulatorStats | null;
  /** Deliveries with an attempt in flight (the API's `sending`), read with the stats. */
  inFlight: number;
  error: string | null;
  load: () => Promise<void>;
  /** Reloads (at most every 2 s) while anything happens; returns the unsubscribe. */
  follow: () => () => void;
}

export const useStats = create<StatsState>((set, get) => ({
  stats: null,
  inFlight: 0,
  error: null,
  load: async () => {
    try {
      const [stats, sending] = await Promise.all([control.getStats(), control.countDeliveries({ status: 'sending' })]);
      set({ stats: stats.data, inFlight: sending.data.count, error: null });
    } catch (err) {
      set({ error: describeError(err) });
    }
  },
  follow: () => {
    let timer: number | undefined;
    const soon = () => {
      timer ??= window.setTimeout(() => {
        timer = undefined;
        void get().load();
      }, 2000);
    };
    const offs = [live.on('message.created', soon), live.on('message.updated', soon), live.on('delivery.updated', soon), live.on('clock.changed', soon)];
    // The chart's minutes move on even when nothing happens.
    const minute = window.setInterval(() => void get().load(), 30_000);
    return () => {
      for (const off of offs) off();
      window.clearInterval(minute);
      window.clearTimeout(timer);
    };
  },
}));
