import { describe, expect, it } from 'vitest';
import { runAccountName } from '../../../../src-main/core/scenario/run-account';

describe('runAccountName', () => {
  it('names a run’s account with the scenario and the run’s start, to the second (UTC)', () => {
    expect(runAccountName('Checkout traffic', Date.UTC(2026, 10, 27, 9, 12, 5, 700))).toBe('scenario: Checkout traffic · 2026-11-27 09:12:05 UTC');
  });

  it('cuts a long scenario name, never the time, to the accounts API’s 100 characters', () => {
    const name = runAccountName('x'.repeat(200), Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(name).toHaveLength(100);
    expect(name.endsWith(' · 2026-01-02 03:04:05 UTC')).toBe(true);
  });
});
