import { describe, expect, it } from 'vitest';
import { relative } from '../../../../src-renderer/components/Time';

describe('relative times', () => {
  const now = Date.parse('2026-11-22T10:00:00.000Z');
  it.each([
    ['2026-11-22T10:00:00.500Z', 'just now'],
    ['2026-11-22T09:59:30.000Z', '30 s ago'],
    ['2026-11-22T09:55:00.000Z', '5 min ago'],
    ['2026-11-22T07:00:00.000Z', '3 h ago'],
    ['2026-11-19T10:00:00.000Z', '3 d ago'],
    ['2026-11-22T10:05:00.000Z', 'in 5 min'],
  ])('%s is "%s"', (iso, text) => {
    expect(relative(iso, now)).toBe(text);
  });
  it('a time that has happened never reads "in ...", however far the estimate of now lags', () => {
    expect(relative('2026-11-22T10:00:05.000Z', now, false)).toBe('just now');
    expect(relative('2026-11-22T10:05:00.000Z', now, false)).toBe('just now');
    expect(relative('2026-11-22T09:55:00.000Z', now, false)).toBe('5 min ago');
  });
});
