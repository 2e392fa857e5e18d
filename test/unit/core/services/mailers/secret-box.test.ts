import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileKeyStore, memoryKeyStore, SECRET_KEY_FILE, SecretBox } from '../../../../../src-main/core/services/mailers/secret-box';

describe('mailer secrets (AES-256-GCM, key outside the database)', () => {
  it('seals and opens, with a fresh IV each time; another key or a changed byte cannot open', () => {
    const box = new SecretBox(memoryKeyStore());
    const a = box.seal('hunter2');
    const b = box.seal('hunter2');
    expect(a.equals(b)).toBe(false);
    expect(a.includes(Buffer.from('hunter2'))).toBe(false);
    expect(box.open(a)).toBe('hunter2');
    expect(new SecretBox(memoryKeyStore()).open(a)).toBeUndefined();
    const tampered = Buffer.from(a);
    tampered[tampered.length - 1]! ^= 1;
    expect(box.open(tampered)).toBeUndefined();
    expect(box.open(Buffer.from('short'))).toBeUndefined();
  });

  it('keeps the key in a 0600 file of the data directory, the same across restarts, and refuses a damaged one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailyard-key-'));
    try {
      const sealed = new SecretBox(fileKeyStore(dir)).seal('s3cret');
      expect((await stat(join(dir, SECRET_KEY_FILE))).mode & 0o777).toBe(0o600);
      expect(new SecretBox(fileKeyStore(dir)).open(sealed)).toBe('s3cret');
      expect(Buffer.from((await readFile(join(dir, SECRET_KEY_FILE), 'utf8')).trim(), 'base64')).toHaveLength(32);
      await writeFile(join(dir, SECRET_KEY_FILE), 'not a key\n');
      expect(() => new SecretBox(fileKeyStore(dir))).toThrow(/32-byte key/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
