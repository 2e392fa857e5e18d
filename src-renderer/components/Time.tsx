import { useEffect, useState } from 'react';
import { emulatedNow, useClockOffset } from '../stores/clock-store';

const pad = (n: number) => String(n).padStart(2, '0');

/** The one absolute format of the UI: `2025-03-04 14:05:09`, in local time. */
export function formatAbsolute(time: string | number | Date): string {
  const d = time instanceof Date ? time : new Date(time);
  if (Number.isNaN(d.getTime())) return String(time);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The time of day in the same format (`14:05:09`), for a moment that is surely today's or soon. */
export function formatTimeOfDay(time: string | number | Date): string {
  return formatAbsolute(time).slice(11);
}

/** Hours and minutes in the same format (`14:05`), for axis labels and the like. */
export function formatHourMinute(time: string | number | Date): string {
  const d = time instanceof Date ? time : new Date(time);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * "12 s ago", "in 5 min", relative to `now` (on the timestamp's own clock). A time that has happened (`future`
 * false: a row's arrival, an attempt) never reads "in ...": a little ahead of the UI's estimate of
 * the emulator's now only means the estimate lags, so it reads "just now".
 */
export function relative(iso: string, now: number, future = true): string {
  const diff = Date.parse(iso) - now;
  if (Number.isNaN(diff)) return iso;
  if (diff > 0 && !future) return 'just now';
  const abs = Math.abs(diff);
  if (abs < 1500) return 'just now';
  const [n, unit] =
    abs < 45_000
      ? [Math.round(abs / 1000), 's']
      : abs < 2_700_000
        ? [Math.round(abs / 60_000), 'min']
        : abs < 86_400_000
          ? [Math.round(abs / 3_600_000), 'h']
          : [Math.round(abs / 86_400_000), 'd'];
  return diff < 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

let tick = Date.now();
const subscribers = new Set<(t: number) => void>();
let timer: number | undefined;

/** Re-renders every few seconds, so relative times move on. */
function useTick(): number {
  const [now, setNow] = useState(tick);
  useEffect(() => {
    subscribers.add(setNow);
    timer ??= window.setInterval(() => {
      tick = Date.now();
      for (const s of subscribers) s(tick);
    }, 2000);
    return () => {
      subscribers.delete(setNow);
      if (subscribers.size === 0) {
        window.clearInterval(timer);
        timer = undefined;
      }
    };
  }, []);
  return now;
}

/** The UI's estimate of the emulator's now (ms), moving on every few seconds (a re-render each time). */
export function useEmulatedNow(): number {
  useTick();
  const anchorMs = useClockOffset((s) => s.anchorMs);
  const wallAt = useClockOffset((s) => s.wallAt);
  const speed = useClockOffset((s) => s.speed);
  return emulatedNow({ anchorMs, wallAt, speed });
}

/**
 * The two clocks a timestamp can be on. The emulator's: every email event, delivery attempt, copy,
 * suppression and account is stamped on it, and it may run ahead of real time or faster once moved.
 * The wall clock (this computer's real time): a catcher's `received_at`, a request's signature time,
 * a scenario log line. A relative time is measured from the now of its own clock: a catcher's request
 * stamped in wall time read against the emulator's now would be "1 d ago" seconds after it came.
 */
export type ClockName = 'emulator' | 'wall';

/** What each clock is called where a screen shows both. */
export const CLOCK_WORDS: Record<ClockName, string> = { emulator: 'emulator clock', wall: 'real time' };

/** A timestamp and its clock, named at the call site: `<Time emulator={m.created_at} />` or `<Time wall={r.received_at} />`. */
export type Stamp = { emulator: string; wall?: never } | { wall: string; emulator?: never };

/**
 * A timestamp, the one way the UI shows a time. Relative to the now of the clock it is on (see
 * ClockName: the prop's name says which), or with `exact` in the one absolute format; on hover, the
 * absolute local time, its clock and the ISO timestamp either way. `future` marks a scheduled time (a
 * next attempt), which may read "in 5 min"; anything else that happened never does.
 */
export function Time(props: Stamp & { exact?: boolean; future?: boolean }) {
  const clock: ClockName = props.wall === undefined ? 'emulator' : 'wall';
  const iso = (props.wall ?? props.emulator)!;
  // Re-renders both ways every few seconds (useEmulatedNow ticks).
  const emulatorNow = useEmulatedNow();
  const rel = relative(iso, clock === 'wall' ? Date.now() : emulatorNow, props.future ?? false);
  const abs = formatAbsolute(iso);
  return (
    <time dateTime={iso} data-clock={clock} title={`${abs} (local time, ${CLOCK_WORDS[clock]}; ${rel}) · ${iso}`}>
      {props.exact ? abs : rel}
    </time>
  );
}
