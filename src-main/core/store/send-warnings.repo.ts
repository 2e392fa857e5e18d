import type { Db } from './database';
import { accountNumberOf } from './message-search';

/**
 * What the real service would have refused in a send (migration 0039): written with the send's copies,
 * in their transaction, only for a send that has warnings; read by a copy's detail. The row goes with
 * the send's last copy (a trigger) or its account.
 */
export class SendWarningsRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare<[{ ref_id: string; account_id: string; warnings: string }]>(
        `INSERT INTO send_warnings (ref_id, account_number, warnings) VALUES (@ref_id, ${accountNumberOf('account_id')}, @warnings)`,
      ),
      of: db.prepare<[string], { warnings: string }>('SELECT warnings FROM send_warnings WHERE ref_id = ?'),
    };
  }

  /** Stores a send's warnings; a send without any is not written at all. */
  insert(refId: string, accountId: string, warnings: readonly string[]): void {
    if (warnings.length > 0) this.stmts.insert.run({ ref_id: refId, account_id: accountId, warnings: JSON.stringify(warnings) });
  }

  /** A send's warnings, in the order they were said; none when it had none. */
  of(refId: string): string[] {
    const row = this.stmts.of.get(refId);
    return row === undefined ? [] : (JSON.parse(row.warnings) as string[]);
  }
}
