import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDir, PRIVATE_FILE_MODE } from '../../store/data-dir';

/**
 * Where the key that encrypts mailer secrets comes from. The key never lives in the database file:
 * headless it is a file beside it (mode 0600), in memory with `--memory`; the desktop shell can supply
 * its own store (Electron's safeStorage wrapping the key) through `EmulatorSeams.secretKeys`.
 */
export interface SecretKeyStore {
  /** The 32-byte key, created on first use. */
  load(): Buffer;
}

export const SECRET_KEY_FILE = 'mailer-secrets.key';

/** A key file in the data directory, created with mode 0600 (owner read and write only). */
export function fileKeyStore(dataDir: string): SecretKeyStore {
  const file = join(dataDir, SECRET_KEY_FILE);
  return {
    load() {
      try {
        const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
        if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key (base64); move it away to start with a new key`);
        return key;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      makeDataDir(dataDir);
      const key = randomBytes(32);
      // `wx`: never overwrite a key another process just wrote.
      writeFileSync(file, `${key.toString('base64')}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      chmodSync(file, PRIVATE_FILE_MODE);
      return key;
    },
  };
}

/** A key that lives as long as the process (`--memory`: nothing is written to disk). */
export function memoryKeyStore(): SecretKeyStore {
  const key = randomBytes(32);
  return { load: () => key };
}

const VERSION = 1;

/** AES-256-GCM: each value is `version (1 byte) | iv (12) | tag (16) | ciphertext`. */
export class SecretBox {
  private readonly key: Buffer;

  constructor(store: SecretKeyStore) {
    this.key = store.load();
    if (this.key.length !== 32) throw new Error('the mailer secret key must be 32 bytes');
  }

  seal(plaintext: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** The plaintext, or undefined when it cannot be read (another key, a damaged value). */
  open(sealed: Buffer): string | undefined {
    if (sealed.length < 29 || sealed[0] !== VERSION) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 13));
      decipher.setAuthTag(sealed.subarray(13, 29));
      return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
