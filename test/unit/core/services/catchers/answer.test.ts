import { describe, expect, it } from 'vitest';
import { decideAnswer, failsAt } from '../../../../../src-main/core/services/catchers/answer';
import { CatcherMode } from '../../../../../src-shared/schemas/catchers';

describe('failsAt', () => {
  it.each([1, 7, 30, 50, 99, 100])('fails exactly %i of every 100 requests in a row, wherever the run starts', (percent) => {
    for (const start of [1, 38]) {
      let failures = 0;
      for (let n = start; n < start + 100; n++) if (failsAt(n, percent)) failures++;
      expect(failures).toBe(percent);
    }
  });

  it('never fails at 0 %', () => {
    expect(Array.from({ length: 50 }, (_, i) => failsAt(i + 1, 0)).some(Boolean)).toBe(false);
  });
});

describe('decideAnswer', () => {
  const mode = (input: object) => CatcherMode.parse(input);
  it('checks the required header before anything else, hang included', () => {
    const m = mode({ hang: true, require_header: { name: 'X-Secret', value: 'v' } });
    expect(decideAnswer(m, 1, {})).toMatchObject({ status: 401, because: 'missing_header' });
    expect(decideAnswer(m, 1, { 'x-secret': 'v' })).toMatchObject({ status: 0, because: 'hang' });
  });

  it('answers the failure share with fail_status after the delay, else the status', () => {
    const m = mode({ fail_percent: 50, fail_status: 502, status: 201, delay_ms: 10 });
    expect(decideAnswer(m, 1, {})).toEqual({ status: 201, because: 'delay', delayMs: 10 });
    expect(decideAnswer(m, 2, {})).toEqual({ status: 502, because: 'fail_share', delayMs: 10 });
  });
});
