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
 * "12 s ago", "in 5 min", relative to `now` (the emulator's). A time that has happened (`future`
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
 * A timestamp of the emulator, the one way the UI shows a time. Relative to the emulator's now (its
 * clock may run ahead of real time, or faster), or with `exact` in the one absolute format; on hover,
 * the absolute local time and the ISO timestamp either way. `future` marks a scheduled time (a next
 * attempt), which may read "in 5 min"; anything else that happened never does.
 */
export function Time({ iso, exact = false, future = false }: { iso: string; exact?: boolean; future?: boolean }) {
  const rel = relative(iso, useEmulatedNow(), future);
  const abs = formatAbsolute(iso);
  return (
    <time dateTime={iso} title={`${abs} (local time; ${rel} on the emulator clock) · ${iso}`}>
      {exact ? abs : rel}
    </time>
  );
}
