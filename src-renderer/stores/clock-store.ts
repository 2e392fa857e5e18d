import { create } from 'zustand';
import { control } from '../api/clients';
import { live } from '../api/live';

interface ClockOffsetState {
  /** The emulated time (ms) last heard from the emulator, and the wall time (ms) it was heard at. */
  anchorMs: number;
  wallAt: number;
  /** How fast the emulator clock runs (1 = real time, 0 = paused). */
  speed: number;
  /** Emulated time minus wall time (ms) when last heard: relative times ("2 min ago") read the emulator clock. */
  offsetMs: number;
  /** Takes the emulator's now and speed as heard. */
  adopt: (nowMs: number, speed: number) => void;
  sync: () => Promise<void>;
  follow: () => () => void;
}

export const useClockOffset = create<ClockOffsetState>((set, get) => ({
  anchorMs: Date.now(),
  wallAt: Date.now(),
  speed: 1,
  offsetMs: 0,
  adopt: (nowMs, speed) => {
    const wall = Date.now();
    set({ anchorMs: nowMs, wallAt: wall, speed, offsetMs: nowMs - wall });
  },
  sync: async () => {
    try {
      const c = (await control.getClock()).data;
      get().adopt(c.now_ms, c.speed);
    } catch {
      // The header's status shows an unreachable emulator.
    }
  },
  follow: () => {
    const off = live.on('clock.changed', (c) => get().adopt(Date.parse(c.now), c.speed));
    // Re-read now and then (a sleeping laptop, a missed live event).
    const t = window.setInterval(() => void get().sync(), 15_000);
    return () => {
      off();
      window.clearInterval(t);
    };
  },
}));

/**
 * The emulator's now (ms), as the UI estimates it between readings: the last reading plus the wall
 * time since, at the clock's speed (a clock at 60x has moved a minute for every real second).
 */
export function emulatedNow(s: Pick<ClockOffsetState, 'anchorMs' | 'wallAt' | 'speed'> = useClockOffset.getState()): number {
  return s.anchorMs + (Date.now() - s.wallAt) * s.speed;
}
