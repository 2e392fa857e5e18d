import { describe, expect, it } from 'vitest';
import { utf8Excerpt } from '../../../../src-main/core/dispatch/body-excerpt';

describe('utf8Excerpt', () => {
  it('keeps a text that fits as it is, with its size in bytes', () => {
    expect(utf8Excerpt('héllo', 6)).toEqual({ text: 'héllo', bytes: 6, truncated: false });
    expect(utf8Excerpt('', 0)).toEqual({ text: '', bytes: 0, truncated: false });
  });

  it('cuts before a character that would not fit whole: never half of one, never half a surrogate pair', () => {
    const text = 'aé😀b'.repeat(50); // 1 + 2 + 4 + 1 bytes each
    for (let max = 0; max <= 64; max++) {
      const e = utf8Excerpt(text, max);
      expect(e.truncated).toBe(true);
      expect(e.bytes).toBe(400);
      expect(Buffer.byteLength(e.text)).toBeLessThanOrEqual(max);
      // Only what could not fit is left out: a whole character never fits in what remains.
      expect(max - Buffer.byteLength(e.text)).toBeLessThan(4);
      expect(text.startsWith(e.text)).toBe(true);
      expect(e.text).not.toMatch(/[\uD800-\uDBFF]$/);
    }
  });
});
