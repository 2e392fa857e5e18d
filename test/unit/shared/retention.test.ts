import { describe, expect, it } from 'vitest';
import { formatMaxAge, parseMaxAge } from '../../../src-shared/retention';

describe('max age', () => {
  it('reads an age in units from seconds to weeks, 0 as no limit, and refuses the rest in words', () => {
    expect(parseMaxAge('0')).toBe(0);
    expect(parseMaxAge('90m')).toBe(90 * 60_000);
    expect(parseMaxAge('12h')).toBe(12 * 3_600_000);
    expect(parseMaxAge('30d')).toBe(30 * 86_400_000);
    expect(parseMaxAge('2w')).toBe(14 * 86_400_000);
    expect(() => parseMaxAge('10')).toThrow('is not an age');
    expect(() => parseMaxAge('500ms')).toThrow('shorter than a second');
  });

  it('writes an age in its largest whole unit, which reads back the same', () => {
    for (const [ms, text] of [
      [0, '0'],
      [14 * 86_400_000, '2w'],
      [36 * 3_600_000, '36h'],
      [90 * 60_000, '90m'],
    ] as const) {
      expect(formatMaxAge(ms)).toBe(text);
      expect(parseMaxAge(text)).toBe(ms);
    }
  });
});
