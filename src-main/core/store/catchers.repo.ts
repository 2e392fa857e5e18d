import type { Db } from './database';

export interface CatcherRow {
  id: string;
  account_id: string;
  name: string;
  mode: string;
  received: number;
  created_at: string;
}

export interface CatcherRequestRow {
  id: string;
  catcher_id: string;
  number: number;
  method: string;
  path: string;
  headers: string;
  body: Buffer;
  body_bytes: number;
  size: number;
  received_at: string;
  emulator_at: string;
  answered_status: number;
  answered_because: string;
  signature: string;
  delivery_id: string | null;
  attempt: number | null;
}

/** A request as received, before the catcher numbers it and decides its answer. */
export type NewCatcherRequest = Omit<CatcherRequestRow, 'number' | 'answered_status' | 'answered_because'>;
/** The answer to the catcher's n-th request. */
export type AnswerOf = (n: number) => { answered_status: number; answered_because: string };

export type CatcherWithCount = CatcherRow & { kept: number };

/** The SQL of catchers and the requests they keep. */
export class CatchersRepo {
  private readonly stmts;
  private readonly recordTx: (row: NewCatcherRequest, answer: AnswerOf, bounds: { count: number; bytes: number }) => CatcherRequestRow | undefined;

  constructor(db: Db) {
    const withCount = 'SELECT c.*, (SELECT COUNT(*) FROM catcher_requests r WHERE r.catcher_id = c.id) AS kept FROM catchers c';
    this.stmts = {
      insert: db.prepare<[CatcherRow]>(
        'INSERT INTO catchers (id, account_id, name, mode, received, created_at) VALUES (@id, @account_id, @name, @mode, @received, @created_at)',
      ),
      get: db.prepare<[string], CatcherWithCount>(`${withCount} WHERE c.id = ?`),
      list: db.prepare<[string], CatcherWithCount>(`${withCount} WHERE c.account_id = ? ORDER BY c.id DESC`),
      count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM catchers WHERE account_id = ?'),
      update: db.prepare<[{ id: string; name: string; mode: string }]>('UPDATE catchers SET name = @name, mode = @mode WHERE id = @id'),
      delete: db.prepare<[string]>('DELETE FROM catchers WHERE id = ?'),
      bump: db.prepare<[string], { received: number }>('UPDATE catchers SET received = received + 1 WHERE id = ? RETURNING received'),
      insertRequest: db.prepare<[CatcherRequestRow]>(
        `INSERT INTO catcher_requests (id, catcher_id, number, method, path, headers, body, body_bytes, size, received_at, emulator_at,
           answered_status, answered_because, signature, delivery_id, attempt)
         VALUES (@id, @catcher_id, @number, @method, @path, @headers, @body, @body_bytes, @size, @received_at, @emulator_at,
           @answered_status, @answered_because, @signature, @delivery_id, @attempt)`,
      ),
      // The newest requests within both bounds stay; every older one goes.
      trim: db.prepare<[{ catcher_id: string; count: number; bytes: number }]>(
        `DELETE FROM catcher_requests WHERE catcher_id = @catcher_id AND id IN (
           SELECT id FROM (
             SELECT id, ROW_NUMBER() OVER w AS n, SUM(size) OVER w AS total FROM catcher_requests
             WHERE catcher_id = @catcher_id WINDOW w AS (ORDER BY id DESC)
           ) WHERE n > @count OR total > @bytes)`,
      ),
      requests: db.prepare<[string, string, number], CatcherRequestRow>(
        'SELECT * FROM catcher_requests WHERE catcher_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
      ),
    };
    this.recordTx = db.transaction((row, answer, bounds) => {
      const bumped = this.stmts.bump.get(row.catcher_id);
      if (!bumped) return undefined;
      const full: CatcherRequestRow = { ...row, ...answer(bumped.received), number: bumped.received };
      this.stmts.insertRequest.run(full);
      this.stmts.trim.run({ catcher_id: row.catcher_id, count: bounds.count, bytes: bounds.bytes });
      return full;
    });
  }

  insert(row: CatcherRow): void {
    this.stmts.insert.run(row);
  }

  get(id: string): CatcherWithCount | undefined {
    return this.stmts.get.get(id);
  }

  list(accountId: string): CatcherWithCount[] {
    return this.stmts.list.all(accountId);
  }

  count(accountId: string): number {
    return this.stmts.count.get(accountId)!.n;
  }

  update(row: { id: string; name: string; mode: string }): void {
    this.stmts.update.run(row);
  }

  delete(id: string): boolean {
    return this.stmts.delete.run(id).changes > 0;
  }

  /**
   * Stores a request (numbered, answered as `answer` decides for that number), then drops the oldest
   * beyond the bounds; undefined when the catcher is gone.
   */
  record(row: NewCatcherRequest, answer: AnswerOf, bounds: { count: number; bytes: number }): CatcherRequestRow | undefined {
    return this.recordTx(row, answer, bounds);
  }

  /** Requests older than `beforeId` (all when it is past every id), newest first. */
  requests(catcherId: string, beforeId: string, limit: number): CatcherRequestRow[] {
    return this.stmts.requests.all(catcherId, beforeId, limit);
  }
}
