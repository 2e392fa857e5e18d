import { statSync } from 'node:fs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Checkpointer } from '../../../../src-main/core/store/checkpointer';
import { StoreCompaction } from '../../../../src-main/core/store/store-compaction';
import { blobStore, writeRows } from '../../../helpers/blob-store';

const silent = pino({ level: 'silent' });

describe('StoreCompaction', () => {
  it('gives freed pages back and empties the WAL', async () => {
    const { db, file } = blobStore();
    const checkpointer = (await Checkpointer.start(db, file, { logger: silent, intervalMs: 5 }))!;
    // An idle time no test reaches: compact() is called by hand.
    const compaction = new StoreCompaction(db, { logger: silent, idleMs: 3_600_000, checkpointer });
    try {
      await writeRows(db, 600);
      db.prepare('DELETE FROM blobs WHERE id > 100').run();
      expect(db.pragma('freelist_count', { simple: true })).toBeGreaterThan(400);
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);
      const pages = db.pragma('page_count', { simple: true }) as number;

      expect(await compaction.compact()).toBe(true);
      expect(db.pragma('freelist_count', { simple: true })).toBe(0);
      expect(db.pragma('page_count', { simple: true })).toBeLessThan(pages - 400);
      expect(statSync(`${file}-wal`).size).toBe(0);
      expect(statSync(file).size).toBeLessThan(pages * 4096 - 400 * 4096);
      expect(db.prepare('SELECT COUNT(*) FROM blobs').pluck().get()).toBe(100);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      compaction.stop();
      await checkpointer.stop();
      db.close();
    }
  });
});
