import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Checkpointer } from '../../../../src-main/core/store/checkpointer';
import { WAL_AUTOCHECKPOINT_PAGES } from '../../../../src-main/core/store/database';
import { blobStore, writeRows } from '../../../helpers/blob-store';

const silent = pino({ level: 'silent' });

describe('Checkpointer', () => {
  it('hands checkpoints back to the main connection when its thread dies', async () => {
    const { db, file } = blobStore();
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
