import { describe, expect, it } from 'vitest';
import { clockMoveSentence, clockNoteBefore, span } from '../../../../src-shared/scenario/clock-move';

describe('what a scenario run does to the shared emulator clock, in words', () => {
  it('spans read at a glance', () => {
    expect(span(45_000)).toBe('45 s');
    expect(span(15 * 60_000 + 2_000)).toBe('15 min 02 s');
    expect(span(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 05 min');
    expect(span(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 04 h');
  });

  it('before a run: how far it moves the clock every account shares, ahead of the wall clock, for good', () => {
    expect(clockNoteBefore(15 * 60_000, 60)).toBe(
      'Running it moves the emulator clock, which every account shares, 15 min 00 s forward in about 15 s (60×): it ends about 14 min 45 s ahead of the wall clock, further if retries are still due at its duration. The clock is never moved back.',
    );
    expect(clockNoteBefore(60_000, 1)).toMatch(
      /^This scenario runs at real time: the emulator clock, which every account shares, keeps pace with the wall clock, except/,
    );
  });

  it('after a run: how far it moved, in how much wall time, and that it stays (five such runs add five times that)', () => {
    expect(clockMoveSentence({ movedMs: 5 * 60_000 + 36_000, wallMs: 5_600, aheadMs: 5 * 60_000 + 36_000 - 5_600 })).toBe(
      'The emulator clock, which every account shares, moved 5 min 36 s during this run (6 s of wall time): 5 min 30 s further ahead of the wall clock than before. It is not moved back.',
    );
    expect(clockMoveSentence({ movedMs: 10_000, wallMs: 10_200, aheadMs: -200 })).toMatch(/: no further from the wall clock than before\./);
  });
});
