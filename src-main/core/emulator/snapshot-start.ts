import { chmodSync, copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_KEY_FILE, type SecretKeyStore } from '../services/mailers/secret-box';
import { makeDataDir, PRIVATE_FILE_MODE } from '../store/data-dir';
import { DATABASE_FILE, type Db } from '../store/database';
import { readSnapshotMark, SNAPSHOT_KEY, SnapshotError } from '../store/snapshot';

/** How a start from a snapshot goes on: the bytes of a store in memory, the key of its mailers' secrets. */
export interface SnapshotStart {
  /** With --memory: the snapshot's bytes, which the store opens from (the file is not touched). */
  bytes?: Buffer;
  /** The key that seals the snapshot's mailer secrets, when it holds them. */
  secretKeys?: SecretKeyStore;
  /** Once the store is open: it is a store now, no longer a snapshot (its mark, with the key, goes). */
  opened(db: Db): void;
}

const hasStore = (file: string): boolean => {
  try {
    return statSync(file).size > 0;
  } catch {
    return false;
  }
};

/**
 * `--from-snapshot FILE`: checks the file is a snapshot this version can open (SnapshotError in words
 * otherwise) and prepares a copy of it: in memory, its bytes; in a data directory, a copy as its
 * database (the directory must hold no store yet: a snapshot never overwrites one) and its mailers' key
 * beside it. The snapshot file itself is only read. An older snapshot is upgraded by the migrations
 * as the store opens, as a data directory is.
 */
export function prepareSnapshotStart(file: string, dataDir: string | null): SnapshotStart {
  const mark = readSnapshotMark(file);
  const key = mark.mailer_key === undefined ? undefined : Buffer.from(mark.mailer_key, 'base64');
  const opened = (db: Db) => void db.prepare('DELETE FROM emulator_state WHERE key = ?').run(SNAPSHOT_KEY);
  if (dataDir === null) return { bytes: readFileSync(file), secretKeys: key && { load: () => key }, opened };
  const target = join(dataDir, DATABASE_FILE);
  if (hasStore(target)) {
    throw new SnapshotError(`--from-snapshot starts a new store, but ${dataDir} already holds one: give an empty --data-dir, or --memory`);
  }
  makeDataDir(dataDir);
  copyFileSync(file, target);
  chmodSync(target, PRIVATE_FILE_MODE);
  if (key !== undefined) {
    const keyFile = join(dataDir, SECRET_KEY_FILE);
    writeFileSync(keyFile, `${key.toString('base64')}\n`, { mode: PRIVATE_FILE_MODE });
    chmodSync(keyFile, PRIVATE_FILE_MODE);
  }
  return { opened };
}
