import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, formatDuration, nextRetryDelay, parseDuration, parseRetrySchedule } from '../../../../src-main/core/dispatch/retry-policy';

describe('retry policy', () => {
  it('defaults to the contract: 5s, 5m, 30m, 2h, 5h, 10h, 10h', () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS.map(formatDuration)).toEqual(['5s', '5m', '30m', '2h', '5h', '10h', '10h']);
    expect(parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h')).toEqual(DEFAULT_RETRY_SCHEDULE_MS);
  });

  it('gives the delay after each failed scheduled attempt, then null', () => {
    const delays = Array.from({ length: 8 }, (_, i) => nextRetryDelay(DEFAULT_RETRY_SCHEDULE_MS, i + 1));
    expect(delays).toEqual([...DEFAULT_RETRY_SCHEDULE_MS, null]);
    expect(nextRetryDelay([], 1)).toBeNull();
  });

  it('parses durations and refuses what is not one', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration(' 1.5s ')).toBe(1500);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseRetrySchedule('none')).toEqual([]);
    expect(() => parseDuration('5')).toThrow('"5" is not a duration');
    expect(() => parseDuration('0s')).toThrow('must be longer than 0');
    expect(() => parseDuration('8d')).toThrow('longer than 7 days');
    expect(() => parseRetrySchedule('5s,,5m')).toThrow('"" is not a duration');
    expect(() => parseRetrySchedule(Array(21).fill('1s').join(','))).toThrow('at most 20 retries');
  });
});
