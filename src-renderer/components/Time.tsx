import { useEffect, useState } from 'react';
import { useClockOffset } from '../stores/clock-store';

/** "12 s ago", "in 5 min": relative to now, refreshed every few seconds; the exact time in the tooltip. */
export function relative(iso: string, now = Date.now()): string {
  const diff = Date.parse(iso) - now;
  const abs = Math.abs(diff);
  const [n, unit] =
    abs < 45_000 ? [Math.round(abs / 1000), 's'] : abs < 2_700_000 ? [Math.round(abs / 60_000), 'min'] : abs < 86_400_000 ? [Math.round(abs / 3_600_000), 'h'] : [Math.round(abs / 86_400_000), 'd'];
  if (abs < 1500) return 'just now';
  return diff < 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

let tick = Date.now();
const subscribers = new Set<(t: number) => void>();
let timer: number | undefined;

function useNow(): number {
  const [now, setNow] = useState(tick);
  useEffect(() => {
    subscribers.add(setNow);
    timer ??= window.setInterval(() => {
      tick = Date.now();
      for (const s of subscribers) s(tick);
    }, 5000);
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

/** A timestamp of the emulator (its clock may run ahead of real time): relative to the emulator's now. */
export function Time({ iso, exact = false }: { iso: string; exact?: boolean }) {
  const now = useNow() + useClockOffset((s) => s.offsetMs);
  const date = new Date(iso);
  const clock = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return (
    <time dateTime={iso} title={iso}>
      {exact ? `${date.toLocaleDateString()} ${clock}` : relative(iso, Math.max(now, Date.now() + useClockOffset.getState().offsetMs - 5000))}
    </time>
  );
}
