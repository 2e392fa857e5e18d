import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applyPatch, applyPatchToPrefix, diffBytes, patchedLength } from '../../../../src-main/core/store/byte-patch';

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
    for (const copy of [
      Buffer.from('Subject: Hello Ann\r\n\r\nHi Ann, bye.\r\n'),
      Buffer.from('Subject: Hello Bartholomew\r\n\r\nHi Bartholomew, bye.\r\n'),
      Buffer.alloc(0),
      Buffer.from('x'),
    ]) {
      expect(applyPatch(base, diffBytes(base, copy)).equals(copy)).toBe(true);
    }
    expect(diffBytes(base, Buffer.from(base)).length).toBe(0);
    expect(applyPatch(Buffer.alloc(0), diffBytes(Buffer.alloc(0), Buffer.from('abc'))).toString()).toBe('abc');
  });

  it("tells a copy's length from its base's length and its patch, without making the copy (the search's larger: and smaller:)", () => {
    const base = Buffer.from('Subject: Hello {{name}}\r\n\r\nHi {{name}}, bye.\r\n');
    for (const copy of [Buffer.from('Subject: Hello Bartholomew\r\n\r\nHi Bartholomew, bye.\r\n'), Buffer.from('x'), Buffer.alloc(0), Buffer.from(base)]) {
      expect(patchedLength(base.length, diffBytes(base, copy))).toBe(copy.length);
    }
    // A patch that names an earlier insertion again (a link key recurring) counts it each time.
    const page = (key: string) => Buffer.from(Array.from({ length: 50 }, (_, n) => `<a href="/t/${key}${n}">x</a> words between them. `).join(''));
    const copy = page('a-much-longer-key');
    expect(patchedLength(page('k').length, diffBytes(page('k'), copy))).toBe(copy.length);
  });

  it('refuses a patch that does not fit its base', () => {
    const patch = diffBytes(Buffer.from('abcdef'), Buffer.from('abXdef'));
    expect(() => applyPatch(Buffer.from('ab'), patch)).toThrow('corrupt copy patch');
  });

  it('stores an insertion that recurs (a copy key in each of its links) once, and names it after that', () => {
    const link = (key: string, n: number) => `<a href="http://127.0.0.1:4400/t/c/${key}${n}">item ${n}</a> some words between. `;
    const page = (key: string) => Buffer.from(Array.from({ length: 1000 }, (_, n) => link(key, n)).join(''));
    const base = page('AAAAAAAAAAAAAAAAAAAAAA');
    const copy = page('b7-Xq_9ZkLmNoPqRsTuVwY');
    const patch = diffBytes(base, copy);
    expect(applyPatch(base, patch).equals(copy)).toBe(true);
    // 1,000 edits of 22 bytes: the bytes once, then about 3 bytes an edit (the old encoding took 34 a link).
    expect(patch.length).toBeLessThan(4 * 1000 + 64);
  });

  it('still reads the patches stored before (version 0: u32 offset, deleted, inserted)', () => {
    const base = Buffer.from('Message-ID: <AAAA@x>\r\n\r\nhello AAAA world');
    const v0 = Buffer.alloc(2 * 12 + 8);
    v0.writeUInt32BE(13, 0);
    v0.writeUInt32BE(4, 4);
    v0.writeUInt32BE(4, 8);
    v0.write('BBBB', 12);
    v0.writeUInt32BE(30, 16);
    v0.writeUInt32BE(4, 20);
    v0.writeUInt32BE(4, 24);
    v0.write('CCCC', 28);
    expect(applyPatch(base, v0).toString()).toBe('Message-ID: <BBBB@x>\r\n\r\nhello CCCC world');
    expect(diffBytes(base, applyPatch(base, v0))[0]).toBe(0xff);
  });

  it('refuses a patch naming an insertion it does not have, or cut short', () => {
    expect(() => applyPatch(Buffer.from('abcdef'), Buffer.from([0xff, 1, 1, 3]))).toThrow('corrupt copy patch');
    expect(() => applyPatch(Buffer.from('abcdef'), Buffer.from([0xff, 1, 1, 8, 0x41]))).toThrow('corrupt copy patch');
    expect(() => applyPatch(Buffer.from('abcdef'), Buffer.from([0xff, 0x80]))).toThrow('corrupt copy patch');
  });
});

describe("a patch applied to the start of its base (the search index reads a copy's header block)", () => {
  it("makes the copy's start from the base's start: edits within it applied, the rest left out", () => {
    const base = Buffer.from(`To: ann@example.com\r\nMessage-ID: <1@x>\r\n\r\n${'body line with a link /t/c/AAAA\r\n'.repeat(2000)}`);
    const copy = Buffer.from(base.toString().replace('ann@example.com', 'bob@example.org').replace('<1@x>', '<22@x>').replaceAll('/t/c/AAAA', '/t/c/BBBB'));
    const patch = diffBytes(base, copy);
    const start = applyPatchToPrefix(base.subarray(0, 4096), patch);
    expect(start.toString().startsWith('To: bob@example.org\r\nMessage-ID: <22@x>\r\n\r\n')).toBe(true);
    expect(copy.subarray(0, 200).equals(start.subarray(0, 200))).toBe(true);
    expect(applyPatchToPrefix(base, patch).equals(copy)).toBe(true);
  });
});
