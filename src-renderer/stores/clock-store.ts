import { create } from 'zustand';
import { control } from '../api/clients';
import { live } from '../api/live';

interface ClockOffsetState {
  /** Emulated time minus wall time (ms): relative times ("2 min ago") read the emulator clock. */
  offsetMs: number;
  sync: () => Promise<void>;
  follow: () => () => void;
}

export const useClockOffset = create<ClockOffsetState>((set, get) => ({
  offsetMs: 0,
  sync: async () => {
    try {
      const c = (await control.getClock()).data;
      set({ offsetMs: c.now_ms - Date.now() });
    } catch {
      // The header's status shows an unreachable emulator.
    }
  },
  follow: () => {
    const off = live.on('clock.changed', (c) => set({ offsetMs: Date.parse(c.now) - Date.now() }));
    // A clock running faster than real time drifts: re-read it now and then.
    const t = window.setInterval(() => void get().sync(), 15_000);
    return () => {
      off();
      window.clearInterval(t);
    };
  },
}));
