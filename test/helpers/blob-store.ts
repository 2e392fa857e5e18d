import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { DATABASE_FILE, type Db, openDatabase } from '../../src-main/core/store/database';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store in a temporary folder (removed after the test) with one table of blobs, for the checkpointer's tests. */
export function blobStore(): { db: Db; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mailyard-checkpoint-'));
  dirs.push(dir);
  const db = openDatabase(dir);
  db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  return { db, file: join(dir, DATABASE_FILE) };
}

/** Commits `n` rows of 3,000 bytes, one per turn of the event loop (as a busy emulator's commits come). */
export async function writeRows(db: Db, n: number): Promise<void> {
  const insert = db.prepare('INSERT INTO blobs (data) VALUES (?)');
  for (let i = 0; i < n; i++) {
    insert.run(Buffer.alloc(3_000, i % 251));
    await new Promise((r) => setImmediate(r));
  }
}
