import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_MESSAGES, startLimits } from '../../../../../src-main/core/services/retention/limits';

describe('retention limits', () => {
  it('starts with the given limits, else those saved from Settings, else the default of a data directory (none in memory)', () => {
    expect(startLimits({}, undefined, true)).toEqual({ maxMessages: DEFAULT_MAX_MESSAGES, maxAgeMs: 0 });
    expect(startLimits({}, undefined, false)).toEqual({ maxMessages: 0, maxAgeMs: 0 });
    expect(startLimits({}, { maxMessages: 50, maxAgeMs: 1000 }, true)).toEqual({ maxMessages: 50, maxAgeMs: 1000 });
    expect(startLimits({ maxMessages: 0 }, { maxMessages: 50, maxAgeMs: 1000 }, true)).toEqual({ maxMessages: 0, maxAgeMs: 1000 });
  });
});
