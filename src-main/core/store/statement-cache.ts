import type { Statement } from 'better-sqlite3';
import type { Db } from './database';

/**
 * Statements of queries built at run time (a search's, the logs', a tag rule's), prepared once per
 * text: their terms vary from call to call, their shapes few. Past `max` shapes it starts afresh.
 */
export class StatementCache {
  private readonly statements = new Map<string, Statement<[Record<string, unknown>], unknown>>();

  constructor(
    private readonly db: Db,
    private readonly max = 64,
  ) {}

  get<Row>(sql: string): Statement<[Record<string, unknown>], Row> {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      if (this.statements.size >= this.max) this.statements.clear();
      stmt = this.db.prepare<[Record<string, unknown>], unknown>(sql);
      this.statements.set(sql, stmt);
    }
    return stmt as Statement<[Record<string, unknown>], Row>;
  }
}
