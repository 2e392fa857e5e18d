import { create } from 'zustand';
import type { ClockState } from '../../src-shared/schemas/dispatch';
import { control, describeError } from '../api/clients';
import { live } from '../api/live';

interface ClockOffsetState {
  /** The emulated time (ms) last heard from the emulator, and the wall time (ms) it was heard at. */
  anchorMs: number;
  wallAt: number;
  /** How fast the emulator clock runs (1 = real time, 0 = paused). */
  speed: number;
  /** Emulated time minus wall time (ms) when last heard: relative times ("2 min ago") read the emulator clock. */
  offsetMs: number;
  /** The clock as last read whole (next event, next retry, pending deliveries): the header's controls show it. */
  clock: ClockState | null;
  /** Why the last move was refused, until the next one. */
  error: string | null;
  /** Takes the emulator's now and speed as heard. */
  adopt: (nowMs: number, speed: number) => void;
  sync: () => Promise<void>;
  /** Moves the clock (a speed, a jump or both); answers the clock after the move settled, null when refused (`error` says why). */
  move: (body: { speed?: number; advance_ms?: number }) => Promise<ClockState | null>;
  follow: () => () => void;
}

/** How often, at most, news of the emulator (a send, an attempt) reads the clock again: what is due next changes with them. */
const REREAD_MS = 1000;

export const useClockOffset = create<ClockOffsetState>((set, get) => ({
  anchorMs: Date.now(),
  wallAt: Date.now(),
  speed: 1,
  offsetMs: 0,
  clock: null,
  error: null,
  adopt: (nowMs, speed) => {
    const wall = Date.now();
    set({ anchorMs: nowMs, wallAt: wall, speed, offsetMs: nowMs - wall });
  },
  sync: async () => {
    try {
      const c = (await control.getClock()).data;
      set({ clock: c });
      get().adopt(c.now_ms, c.speed);
    } catch {
      // The header's status shows an unreachable emulator.
    }
  },
  move: async (body) => {
    set({ error: null });
    try {
      const c = (await control.setClock(body)).data;
      set({ clock: c });
      get().adopt(c.now_ms, c.speed);
      return c;
    } catch (err) {
      set({ error: describeError(err) });
      return null;
    }
  },
  follow: () => {
    let timer: number | undefined;
    const soon = () => {
      timer ??= window.setTimeout(() => {
        timer = undefined;
        void get().sync();
      }, REREAD_MS);
    };
    const offs = [
      live.on('clock.changed', (c) => {
        get().adopt(Date.parse(c.now), c.speed);
        soon();
      }),
      live.on('message.created', soon),
      live.on('message.updated', soon),
      live.on('delivery.updated', soon),
      live.onReconnect(soon),
    ];
    // Re-read now and then (a sleeping laptop, a missed live event, a scheduled time that has come).
    const t = window.setInterval(() => void get().sync(), 15_000);
    return () => {
      for (const off of offs) off();
      window.clearInterval(t);
      window.clearTimeout(timer);
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
