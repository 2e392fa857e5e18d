import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applyPatch, diffBytes } from '../../src-main/core/store/byte-patch';

describe('byte patches of a copy against its base', () => {
  it('rebuilds a same-length copy byte for byte, costing only its differing bytes', () => {
    const base = randomBytes(1024 * 1024);
    const copy = Buffer.from(base);
    for (const at of [0, 17, 500_000, 500_010, base.length - 22]) randomBytes(22).copy(copy, at);
    const patch = diffBytes(base, copy);
    expect(applyPatch(base, patch).equals(copy)).toBe(true);
    expect(patch.length).toBeLessThan(5 * (22 + 12) + 32);
  });

  it('rebuilds copies of other lengths, and the identical copy as an empty patch', () => {
    const base = Buffer.from('Subject: Hello {{name}}\r\n\r\nHi {{name}}, bye.\r\n');
    for (const copy of [Buffer.from('Subject: Hello Ann\r\n\r\nHi Ann, bye.\r\n'), Buffer.from('Subject: Hello Bartholomew\r\n\r\nHi Bartholomew, bye.\r\n'), Buffer.alloc(0), Buffer.from('x')]) {
      expect(applyPatch(base, diffBytes(base, copy)).equals(copy)).toBe(true);
    }
    expect(diffBytes(base, Buffer.from(base)).length).toBe(0);
    expect(applyPatch(Buffer.alloc(0), diffBytes(Buffer.alloc(0), Buffer.from('abc'))).toString()).toBe('abc');
  });

  it('refuses a patch that does not fit its base', () => {
    const patch = diffBytes(Buffer.from('abcdef'), Buffer.from('abXdef'));
    expect(() => applyPatch(Buffer.from('ab'), patch)).toThrow('corrupt copy patch');
  });
});
