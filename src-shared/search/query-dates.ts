import { z } from 'zod';

/** A date (`2026-11-24`) or an ISO time (`2026-11-24T10:00`, seconds, fraction and offset optional). */
const INSTANT = z.union([z.iso.date(), z.iso.datetime({ offset: true, local: true })]);

/**
 * The instant (ms) a search's `before:` / `after:` names, or null when it is not a date: a date is its
 * 00:00 UTC, a time without an offset is UTC (the emulator's clock and stored times are UTC).
 */
export function queryInstant(value: string): number | null {
  const v = value.toUpperCase();
  if (!INSTANT.safeParse(v).success) return null;
  const zoned = v.length === 10 || /(Z|[+-]\d\d(:?\d\d)?)$/.test(v.slice(10)) ? v : `${v}Z`;
  const ms = Date.parse(zoned);
  return Number.isFinite(ms) ? ms : null;
}
