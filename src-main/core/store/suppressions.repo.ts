import type { Db } from './database';

/** An address on an account's suppression list: what put it there (source, reason, copy) and since when. */
export interface SuppressionRow {
  email_lc: string;
  source: string;
  reason: string;
  message_id: string | null;
  created_at: string;
}

/** The accounts' suppression lists (written only through SuppressionsService). */
export class SuppressionsRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      suppressed: db.prepare<[string, string], { n: number }>('SELECT 1 AS n FROM suppressions WHERE account_id = ? AND email_lc = ?'),
      suppress: db.prepare<[string, string, string, string, string, string | null]>(
        'INSERT INTO suppressions (account_id, email_lc, source, created_at, reason, message_id) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      suppressions: db.prepare<[string], SuppressionRow>(
        'SELECT email_lc, source, reason, message_id, created_at FROM suppressions WHERE account_id = ? ORDER BY created_at DESC, email_lc',
      ),
      suppression: db.prepare<[string, string], SuppressionRow>(
        'SELECT email_lc, source, reason, message_id, created_at FROM suppressions WHERE account_id = ? AND email_lc = ?',
      ),
      unsuppress: db.prepare<[string, string]>('DELETE FROM suppressions WHERE account_id = ? AND email_lc = ?'),
    };
  }

  isSuppressed(accountId: string, emailLc: string): boolean {
    return this.stmts.suppressed.get(accountId, emailLc) !== undefined;
  }

  /** Suppresses the address (a suppression already there stays as it was: its first cause and date). */
  suppress(accountId: string, emailLc: string, source: string, at: string, reason = '', messageId: string | null = null): void {
    this.stmts.suppress.run(accountId, emailLc, source, at, reason, messageId);
  }

  /** Lifts a suppression; false when the address was not suppressed. */
  unsuppress(accountId: string, emailLc: string): boolean {
    return this.stmts.unsuppress.run(accountId, emailLc).changes > 0;
  }

  /** The account's suppression list, newest first. */
  suppressions(accountId: string): SuppressionRow[] {
    return this.stmts.suppressions.all(accountId);
  }

  /** The account's suppression of one address, if any. */
  suppression(accountId: string, emailLc: string): SuppressionRow | undefined {
    return this.stmts.suppression.get(accountId, emailLc);
  }
}
