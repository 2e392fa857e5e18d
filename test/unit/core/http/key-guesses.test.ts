import { describe, expect, it, vi } from 'vitest';
import { KeyGuesses } from '../../../../src-main/core/http/key-guesses';
import { logCapture } from '../../../helpers/log-capture';

const limits = { perAddress: 3, inAll: 5, windowMs: 60_000 };

describe('KeyGuesses', () => {
  it('throttles every address once all of them together sent the bound of wrong keys, until the oldest leaves the window', () => {
    let now = 0;
    const log = logCapture();
    const guesses = new KeyGuesses(() => now, log.logger, limits);
    // Five addresses, one wrong key each a second apart: none reaches its own bound, all together do.
    for (let i = 1; i <= 5; i++) {
      expect(guesses.throttled(`10.0.0.${i}`)).toBeUndefined();
      guesses.wrong(`10.0.0.${i}`);
      now += 1000;
    }
    // A sixth, new address is refused too, until the first wrong key is a window old.
    expect(guesses.throttled('10.0.0.6')).toEqual({ retryAfterMs: 55_000, by: 'all', limits });
    now = 60_000;
    expect(guesses.throttled('10.0.0.6')).toBeUndefined();
    guesses.close();
  });

  it('logs the first wrong key, the throttling, and a summary a window later, never a line per attempt', () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const log = logCapture();
      const guesses = new KeyGuesses(() => now, log.logger, limits);
      guesses.wrong('10.0.0.1');
      guesses.wrong('10.0.0.2');
      guesses.wrong('10.0.0.1');
      guesses.wrong('10.0.0.1');
      for (let i = 0; i < 40; i++) expect(guesses.throttled('10.0.0.1')?.by).toBe('address');
      now = 60_000;
      vi.advanceTimersByTime(60_000);
      expect(log.lines.map((l) => l.msg)).toEqual([
        'wrong control key from 10.0.0.1 (those that follow are summed up every 60 s)',
        '3 wrong control keys from 10.0.0.1 within 60 s: keys are answered 429 for up to 60 s',
        '4 wrong control keys and 40 more answered 429 unchecked in 60 s, from 10.0.0.1, 10.0.0.2',
      ]);
      // A quiet window later, the next wrong key is logged by itself again.
      guesses.wrong('10.0.0.3');
      expect(log.lines.at(-1)!.msg).toBe('wrong control key from 10.0.0.3 (those that follow are summed up every 60 s)');
      guesses.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
