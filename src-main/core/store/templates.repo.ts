import type { Db } from './database';

export interface TemplateRow {
  id: string;
  account_id: string;
  name: string;
  subject: string;
  /** JSON array of `{type, value}`. */
  content: string;
  created_at: string;
}

/** Stored email templates, each of one account. */
export class TemplatesRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare<[TemplateRow]>(
        'INSERT INTO templates (id, account_id, name, subject, content, created_at) VALUES (@id, @account_id, @name, @subject, @content, @created_at)',
      ),
      get: db.prepare<[string, string], TemplateRow>('SELECT * FROM templates WHERE account_id = ? AND id = ?'),
      list: db.prepare<[string], TemplateRow>('SELECT * FROM templates WHERE account_id = ? ORDER BY id'),
      count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM templates WHERE account_id = ?'),
      delete: db.prepare<[string, string]>('DELETE FROM templates WHERE account_id = ? AND id = ?'),
    };
  }

  insert(row: TemplateRow): void {
    this.stmts.insert.run(row);
  }

  get(accountId: string, id: string): TemplateRow | undefined {
    return this.stmts.get.get(accountId, id);
  }

  list(accountId: string): TemplateRow[] {
    return this.stmts.list.all(accountId);
  }

  count(accountId: string): number {
    return this.stmts.count.get(accountId)!.n;
  }

  delete(accountId: string, id: string): boolean {
    return this.stmts.delete.run(accountId, id).changes > 0;
  }
}
