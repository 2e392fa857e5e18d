/** The contract's default: after a failed attempt, wait 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; 8 attempts in all. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6];

export const MAX_RETRIES = 20;
export const MAX_RETRY_DELAY_MS = 7 * 24 * 3600 * 1000;

const UNITS: Record<string, number> = { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5 };

/** `500ms`, `5s`, `5m`, `2h`, `1d` to milliseconds; throws a RangeError in words. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) throw new RangeError(`"${text}" is not a duration (use a number and ms, s, m, h or d, as in 5s or 2h)`);
  const ms = Math.round(Number(match[1]) * UNITS[match[2]!]!);
  if (ms <= 0) throw new RangeError(`"${text}" must be longer than 0`);
  if (ms > MAX_RETRY_DELAY_MS) throw new RangeError(`"${text}" is longer than 7 days`);
  return ms;
}

/** `--retry-schedule`: comma-separated delays (`5s,5m,30m`), or `none` for a single attempt. */
export function parseRetrySchedule(text: string): number[] {
  if (text.trim().toLowerCase() === 'none') return [];
  const parts = text.split(',');
  if (parts.length > MAX_RETRIES) throw new RangeError(`at most ${MAX_RETRIES} retries`);
  return parts.map(parseDuration);
}

export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 864e5],
    ['h', 36e5],
    ['m', 6e4],
    ['s', 1e3],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * When the next scheduled attempt is due after `failedScheduledAttempts` scheduled attempts have
 * failed (1 after the first), or null when the schedule is spent and the delivery has failed.
 */
export function nextRetryDelay(schedule: readonly number[], failedScheduledAttempts: number): number | null {
  return schedule[failedScheduledAttempts - 1] ?? null;
}
