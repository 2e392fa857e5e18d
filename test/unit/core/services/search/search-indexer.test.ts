import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SearchIndexer } from '../../../../../src-main/core/services/search/search-indexer';
import type { DerivedText, PendingCopy, SearchIndexRepo } from '../../../../../src-main/core/store/search-index.repo';

/** A queue of copies in memory, recording each write transaction and what ran between them. */
function fakeRepo(count: number) {
  const queue = new Map<number, PendingCopy>();
  for (let rowid = 1; rowid <= count; rowid++) {
    queue.set(rowid, {
      rowid,
      content_id: 'c1',
      patch: null,
      subject: `s${rowid}`,
      from_email: 'a@x.test',
      from_name: '',
      recipient_email: `r${rowid}@x.test`,
      recipient_name: '',
    });
  }
  const log: string[] = [];
  const repo = {
    dropOrphans: () => {},
    waiting: () => queue.size,
    newestWaiting: () => Math.max(0, ...queue.keys()),
    pending: (after: number, limit: number) => [...queue.values()].filter((c) => c.rowid > after).slice(0, limit),
    contentStart: () => ({ raw: Buffer.from('Subject: s\r\n\r\nbody'), recipe: null }),
    write: (rows: Array<{ copy: PendingCopy; text: DerivedText }>) => {
      for (const { copy } of rows) queue.delete(copy.rowid);
      log.push(`write ${rows.map((r) => r.copy.rowid).join(',')}`);
      return rows.length;
    },
  };
  return { repo: repo as unknown as SearchIndexRepo, log, queue };
}

const tenKb = (): DerivedText => ({ body: 'w'.repeat(10_000), headers: '', addresses: '' });

describe('SearchIndexer', () => {
  it('writes a batch in transactions of at most writeTextBytes, letting timers and I/O run between two', async () => {
    const { repo, log, queue } = fakeRepo(10);
    const indexer = new SearchIndexer(repo, async (job) => job.copies.map(tenKb), {
      logger: pino({ level: 'silent' }),
      writeTextBytes: 25_000,
    });
    // A callback that runs once a turn of the event loop: it must run between two transactions.
    let ticking = true;
    const tick = () => {
      log.push('turn');
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    await indexer.ready(60_000);
    ticking = false;
    await indexer.close();
    const writes = log.filter((l) => l.startsWith('write'));
    expect(writes).toEqual(['write 1,2', 'write 3,4', 'write 5,6', 'write 7,8', 'write 9,10']);
    // Between any two transactions, the loop turned.
    const firstWrite = log.indexOf(writes[0]!);
    const turnsBetween = log
      .slice(firstWrite)
      .join(' ')
      .split(/ ?write [\d,]+ ?/)
      .slice(1, -1);
    expect(turnsBetween).toHaveLength(4);
    for (const gap of turnsBetween) expect(gap).toMatch(/turn/);
    expect(queue.size).toBe(0);
  });

  it('writes a copy larger than the limit alone, never skipping it', async () => {
    const { repo, log, queue } = fakeRepo(3);
    const indexer = new SearchIndexer(repo, async (job) => job.copies.map(tenKb), {
      logger: pino({ level: 'silent' }),
      writeTextBytes: 1_000,
    });
    await indexer.ready(60_000);
    await indexer.close();
    expect(log.filter((l) => l.startsWith('write'))).toEqual(['write 1', 'write 2', 'write 3']);
    expect(queue.size).toBe(0);
  });

  it('answers a wait for the index at its bound with how many copies are not indexed yet, and 0 once they are', async () => {
    const { repo, queue } = fakeRepo(3);
    // The text of the first batch is held back: nothing can be indexed until it is released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const indexer = new SearchIndexer(
      repo,
      async (job) => {
        await held;
        return job.copies.map(tenKb);
      },
      { logger: pino({ level: 'silent' }) },
    );
    expect(await indexer.ready(20)).toBe(3);
    release();
    expect(await indexer.ready(60_000)).toBe(0);
    expect(queue.size).toBe(0);
    await indexer.close();
  });
});
