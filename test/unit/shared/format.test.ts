import { describe, expect, it } from 'vitest';
import { withThousands } from '../../../src-shared/format';

describe('withThousands', () => {
  it('writes a whole number as toLocaleString("en-US") does', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 100_000, 1_234_567, 31_622_400_000, -1234, -999]) {
      expect(withThousands(n), String(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});
