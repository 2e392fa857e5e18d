import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { GROUP_BYTES, GROUP_WINDOW_MS, WriteBatcher } from '../../../../src-main/core/store/write-batcher';

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

describe('WriteBatcher, when a write fails', () => {
  it('runs the group again with each write in its own savepoint: the others are stored once, with their results', async () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    const runs = new Map<string, number>();
    const write = (name: string, id: number, v: string | null) => () => {
      runs.set(name, (runs.get(name) ?? 0) + 1);
      d.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(id, v);
      return `${name} stored`;
    };
    const first = batcher.run(write('first', 1, 'a'));
    const bad = batcher.run(write('bad', 2, null));
    const last = batcher.run(write('last', 3, 'c'));
    await expect(bad).rejects.toThrow(/NOT NULL/);
    expect(await Promise.all([first, last])).toEqual(['first stored', 'last stored']);
    expect(d.prepare('SELECT id, v FROM t ORDER BY id').all()).toEqual([
      { id: 1, v: 'a' },
      { id: 3, v: 'c' },
    ]);
    // Together up to the failing one, then each alone after the rollback.
    expect(Object.fromEntries(runs)).toEqual({ first: 2, bad: 2, last: 1 });
  });

  it('runs a write that is alone in its group once, and rejects it', async () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    let runs = 0;
    const bad = batcher.run(() => {
      runs++;
      d.prepare('INSERT INTO t (id, v) VALUES (1, NULL)').run();
    });
    await expect(bad).rejects.toThrow(/NOT NULL/);
    expect(runs).toBe(1);
    expect(d.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 0 });
  });

  it('runs a group without a failure once', async () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    let runs = 0;
    await Promise.all(
      [1, 2, 3].map((i) =>
        batcher.run(() => {
          runs++;
          return d.prepare("INSERT INTO t (id, v) VALUES (?, 'x')").run(i);
        }),
      ),
    );
    expect(runs).toBe(3);
  });
});

describe('WriteBatcher under load', () => {
  const count = (d: Database.Database) => (d.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;

  it('lets writes of the next turns join a commit that follows closely on another', async () => {
    // On fake time: under a loaded test run, real milliseconds pass between two lines.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    try {
      const d = db();
      const batcher = new WriteBatcher(d);
      const insert = (i: number) => () => d.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(i, `v${i}`);
      const first = batcher.run(insert(1));
      await vi.advanceTimersByTimeAsync(0);
      await first;
      expect(count(d)).toBe(1);
      // Right after a commit the store is busy: the next write waits for others to join it.
      const second = batcher.run(insert(2));
      await vi.advanceTimersByTimeAsync(0);
      expect(count(d)).toBe(1);
      const third = batcher.run(insert(3));
      await vi.advanceTimersByTimeAsync(GROUP_WINDOW_MS);
      await Promise.all([second, third]);
      expect(count(d)).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('commits at the end of the turn again once the store has been idle', async () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    await batcher.run(() => d.prepare("INSERT INTO t (id, v) VALUES (1, 'a')").run());
    await new Promise((r) => setTimeout(r, 10));
    const write = batcher.run(() => d.prepare("INSERT INTO t (id, v) VALUES (2, 'b')").run());
    await new Promise((r) => setImmediate(r));
    expect(count(d)).toBe(2);
    await write;
  });

  it('commits a full group without waiting out the window', async () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    await batcher.run(() => d.prepare("INSERT INTO t (id, v) VALUES (0, 'a')").run());
    const writes = Array.from({ length: 256 }, (_, i) => batcher.run(() => d.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(i + 1, 'x')));
    await new Promise((r) => setImmediate(r));
    expect(count(d)).toBe(257);
    await Promise.all(writes);
  });

  it('commits a group of at most GROUP_BYTES of content, the event loop turning before the next; a larger write commits alone', async () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    const mb = 1024 * 1024;
    const sizes = [3 * mb, 3 * mb, 3 * mb, 20 * mb, 1000, 1000];
    // A turn of the event loop counted apart from the batcher's: writes of one group share a turn.
    let turn = 0;
    let counting = true;
    const tick = () =>
      setImmediate(() => {
        turn++;
        if (counting) tick();
      });
    tick();
    const turns: number[] = [];
    await Promise.all(
      sizes.map((bytes, i) =>
        batcher.run(() => {
          turns[i] = turn;
          d.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(i, String(bytes));
        }, bytes),
      ),
    );
    counting = false;
    expect(count(d)).toBe(sizes.length);
    // 3 + 3 MB fit in one group; the third 3 MB starts the next; the 20 MB write commits alone; the small ones after it together.
    const groups = [...new Set(turns)].map((t) => turns.flatMap((u, i) => (u === t ? [i] : [])));
    expect(groups).toEqual([[0, 1], [2], [3], [4, 5]]);
    expect(new Set(turns).size).toBe(4);
  });

  it('flushes every group at once when asked (shutdown, a wipe)', () => {
    const d = db();
    const batcher = new WriteBatcher(d);
    for (let i = 0; i < 4; i++) void batcher.run(() => d.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(i, 'x'), GROUP_BYTES);
    batcher.flush();
    expect(count(d)).toBe(4);
  });
});
