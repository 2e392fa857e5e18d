import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { WriteBatcher } from '../../src-main/core/store/write-batcher';

function db() {
  const d = new Database(':memory:');
  d.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  return d;
}

describe('WriteBatcher', () => {
  it('commits the writes of one turn together and settles each after the commit', async () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    let committedBefore = -1;
    const writes = [1, 2, 3].map((i) =>
      batcher.run(() => {
        d.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(i, `v${i}`);
        return i * 10;
      }),
    );
    // Nothing is written until the turn ends.
    committedBefore = (d.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
    expect(committedBefore).toBe(0);
    expect(await Promise.all(writes)).toEqual([10, 20, 30]);
    expect((d.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(3);
  });

  it('keeps the others when one write fails, and rejects only that one', async () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    const ok1 = batcher.run(() => d.prepare('INSERT INTO t (id, v) VALUES (1, ?)').run('a'));
    const bad = batcher.run(() => {
      d.prepare('INSERT INTO t (id, v) VALUES (2, ?)').run('b');
      d.prepare('INSERT INTO t (id, v) VALUES (3, NULL)').run();
    });
    const ok2 = batcher.run(() => d.prepare('INSERT INTO t (id, v) VALUES (4, ?)').run('d'));
    await expect(bad).rejects.toThrow(/NOT NULL/);
    await Promise.all([ok1, ok2]);
    expect(d.prepare('SELECT id FROM t ORDER BY id').all()).toEqual([{ id: 1 }, { id: 4 }]);
  });
});
