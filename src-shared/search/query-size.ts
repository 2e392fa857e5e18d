/** A size as Mailpit's `larger:` and `smaller:` read it: a number, a fraction allowed, and a unit. */
const SIZE = /^(\d+(?:\.\d+)?)\s*(k|kb|m|mb|g|gb)?$/i;
const UNIT: Record<string, number> = { '': 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 };

/**
 * The bytes a search's `larger:` / `smaller:` names, or null when it is not a size: `2048`, `2k`, `1.5MB`
 * (units case-insensitive, k = 1024 bytes as in Mailpit; a fraction of a byte is dropped).
 */
export function querySize(value: string): number | null {
  const m = SIZE.exec(value.trim());
  if (!m) return null;
  const bytes = Math.floor(Number(m[1]) * UNIT[(m[2] ?? '').toLowerCase()]!);
  return Number.isSafeInteger(bytes) ? bytes : null;
}
