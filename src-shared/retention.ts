/** Ages as `--max-age` and the Settings screen write them: one parser for the CLI, the config and the UI. */

const AGE_UNITS: ReadonlyArray<readonly [unit: string, ms: number]> = [
  ['w', 7 * 864e5],
  ['d', 864e5],
  ['h', 36e5],
  ['m', 6e4],
  ['s', 1e3],
  ['ms', 1],
];

/** `0` (no limit), or a number and a unit (`90m`, `12h`, `30d`, `2w`), to milliseconds; a RangeError in words. */
export function parseMaxAge(text: string): number {
  if (/^\s*0+\s*$/.test(text)) return 0;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(text);
  if (!match) throw new RangeError(`"${text}" is not an age (use 0, or a number and s, m, h, d or w, as in 12h or 30d)`);
  const ms = Math.round(Number(match[1]) * AGE_UNITS.find(([unit]) => unit === match[2])![1]);
  if (ms < 1000) throw new RangeError(`"${text}" is shorter than a second`);
  return ms;
}

/** An age in the largest unit that divides it (`30d`, `36h`); `0` for no limit. */
export function formatMaxAge(ms: number): string {
  if (ms === 0) return '0';
  const [unit, size] = AGE_UNITS.find(([, size]) => ms % size === 0)!;
  return `${ms / size}${unit}`;
}
