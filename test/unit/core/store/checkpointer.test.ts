import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Checkpointer } from '../../../../src-main/core/store/checkpointer';
import { DATABASE_FILE, openDatabase, WAL_AUTOCHECKPOINT_PAGES, type Db } from '../../../../src-main/core/store/database';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store(): { db: Db; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mailyard-checkpoint-'));
  dirs.push(dir);
  const db = openDatabase(dir);
  db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  return { db, file: join(dir, DATABASE_FILE) };
}

/** Commits `n` rows of 3,000 bytes, one per turn of the event loop (as a busy emulator's commits come). */
async function writeRows(db: Db, n: number): Promise<void> {
  const insert = db.prepare('INSERT INTO blobs (data) VALUES (?)');
  for (let i = 0; i < n; i++) {
    insert.run(Buffer.alloc(3_000, i % 251));
    await new Promise((r) => setImmediate(r));
  }
}

const silent = pino({ level: 'silent' });

describe('Checkpointer', () => {
  it('hands checkpoints back to the main connection when its thread dies', async () => {
    const { db, file } = store();
    const checkpointer = (await Checkpointer.start(db, file, { logger: silent, intervalMs: 5 }))!;
    await (checkpointer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await new Promise((r) => setTimeout(r, 20));
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
    await writeRows(db, 10);
    await checkpointer.stop();
    expect(db.prepare('SELECT COUNT(*) FROM blobs').pluck().get()).toBe(10);
    db.close();
  });
});
