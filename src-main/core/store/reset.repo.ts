import type { Statement } from 'better-sqlite3';
import type { Db } from './database';

/**
 * Tables that are not data: what a reset keeps (accounts are thinned out by id). Every other table is
 * data and is emptied, so a table a later migration adds is wiped too unless it is named here.
 */
const KEPT_TABLES: ReadonlySet<string> = new Set(['schema_migrations', 'accounts', 'emulator_state']);

/** An account's kinds of data, by the name of their count: what an account's deletion answers. */
const ACCOUNT_COUNTED = {
  messages: 'messages',
  deliveries: 'deliveries',
  webhooks: 'webhooks',
  domains: 'domains',
  mailers: 'mailers',
  inbound_domains: 'inbound_domains',
  inbound_usernames: 'inbound_usernames',
  templates: 'templates',
  suppressions: 'suppressions',
  scheduled_events: 'scheduled_events',
  catchers: 'catchers',
} as const;

/** The tables whose rows a reset counts, by the name of the count: every account's data and the global rules. */
const COUNTED = { ...ACCOUNT_COUNTED, simulation_rules: 'simulation_rules' } as const;

export type WipeCounts = { -readonly [K in keyof typeof COUNTED]: number } & { accounts_removed: number };
export type AccountCounts = { -readonly [K in keyof typeof ACCOUNT_COUNTED]: number };

export interface TargetRef {
  target_kind: string;
  target_id: string;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * The tables holding an account's rows, each with the SQL condition (on `@account`) that picks them,
 * read from the schema: a table with an `account_id` column, or one with a foreign key to the
 * accounts or to such a table (the copies, by the account's number; a delivery's attempts, a domain's
 * checks, a copy's events), at any depth. A table a later
 * migration adds is found the same way. What copies share (their contents, tracked links) and the
 * search indexes are not here: they go with the copies (see deleteAccount).
 */
export function accountScopes(db: Db): Map<string, string> {
  const tables = db
    .prepare<[], { name: string }>("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
    .all()
    .map((r) => r.name);
  const columns = db.prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)');
  const keys = db.prepare<[string], { parent: string; from: string; to: string | null }>(
    'SELECT "table" AS parent, "from", "to" FROM pragma_foreign_key_list(?)',
  );
  const scopes = new Map<string, string>([['accounts', 'id = @account']]);
  for (const t of tables) {
    if (t !== 'accounts' && columns.all(t).some((c) => c.name === 'account_id')) scopes.set(t, 'account_id = @account');
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const t of tables) {
      if (scopes.has(t)) continue;
      const key = keys.all(t).find((k) => scopes.has(k.parent));
      if (key === undefined) continue;
      scopes.set(t, `${quote(key.from)} IN (SELECT ${quote(key.to ?? 'rowid')} FROM ${quote(key.parent)} WHERE ${scopes.get(key.parent)})`);
      grew = true;
    }
  }
  return scopes;
}

/** The SQL of `POST /emulator/reset` and of deleting one account (`DELETE /emulator/accounts/{id}`). */
export class ResetRepo {
  private readonly stmts;
  private readonly wipeAll: (keepAccountIds: readonly string[]) => WipeCounts;
  private readonly deleteOne: (accountId: string, removeCopies: () => void) => AccountCounts;

  constructor(db: Db) {
    // Counted by the same conditions that say which rows are the account's; read from the schema at
    // the first deletion, not at every start.
    let countOf: Array<readonly [string, Statement<{ account: string }, { n: number }>]> | undefined;
    const counters = () => {
      if (countOf === undefined) {
        const scopes = accountScopes(db);
        countOf = Object.entries(ACCOUNT_COUNTED).map(
          ([key, table]) =>
            [key, db.prepare<{ account: string }, { n: number }>(`SELECT COUNT(*) AS n FROM ${quote(table)} WHERE ${scopes.get(table)}`)] as const,
        );
      }
      return countOf;
    };
    this.stmts = {
      activeTargets: db.prepare<[], TargetRef>("SELECT DISTINCT target_kind, target_id FROM deliveries WHERE status IN ('pending', 'sending')"),
      allTargets: db.prepare<[], TargetRef>('SELECT DISTINCT target_kind, target_id FROM deliveries'),
      accountTargets: db.prepare<[string], TargetRef>('SELECT DISTINCT target_kind, target_id FROM deliveries WHERE account_id = ?'),
      sending: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'sending'"),
      accountSending: db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE account_id = ? AND status = 'sending'"),
      // Ordinary and virtual tables (a full-text index's shadow tables are its own: never written directly).
      tables: db.prepare<[], { name: string }>(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      ),
      removeAccounts: db.prepare<[string]>('DELETE FROM accounts WHERE id NOT IN (SELECT value FROM json_each(?))'),
      removeAccount: db.prepare<[string]>('DELETE FROM accounts WHERE id = ?'),
      // A kept account keeps its key, name and signing secret; what a test set beside them goes back.
      resetKept: db.prepare('UPDATE accounts SET payload_format = NULL, previous_signing_secret = NULL, previous_secret_until = NULL'),
    };
    this.wipeAll = db.transaction((keepAccountIds: readonly string[]) => {
      // Checked at the commit, when every table is empty: the order of the deletes does not matter.
      db.pragma('defer_foreign_keys = ON');
      const counts = {} as WipeCounts;
      for (const [key, table] of Object.entries(COUNTED)) {
        counts[key as keyof typeof COUNTED] = (db.prepare(`SELECT COUNT(*) AS n FROM ${quote(table)}`).get() as { n: number }).n;
      }
      for (const { name } of this.stmts.tables.all()) {
        if (!KEPT_TABLES.has(name)) db.prepare(`DELETE FROM ${quote(name)}`).run();
      }
      counts.accounts_removed = this.stmts.removeAccounts.run(JSON.stringify(keepAccountIds)).changes;
      this.stmts.resetKept.run();
      return counts;
    });
    this.deleteOne = db.transaction((accountId: string, removeCopies: () => void) => {
      const counts = {} as AccountCounts;
      for (const [key, stmt] of counters()) counts[key as keyof AccountCounts] = stmt.get({ account: accountId })!.n;
      // The copies first, by the path every delete of copies takes: it releases what they share.
      removeCopies();
      // Every other row of the account goes by its foreign keys' ON DELETE CASCADE (the schema test checks each table).
      this.stmts.removeAccount.run(accountId);
      return counts;
    });
  }

  /** The targets of deliveries still to be sent or on the wire. */
  activeTargets(): TargetRef[] {
    return this.stmts.activeTargets.all();
  }

  /** Every target any delivery (of the account, when given) names. */
  allTargets(accountId?: string): TargetRef[] {
    return accountId === undefined ? this.stmts.allTargets.all() : this.stmts.accountTargets.all(accountId);
  }

  /** Deliveries (of the account, when given) claimed for an attempt whose outcome is not committed yet. */
  sendingCount(accountId?: string): number {
    return (accountId === undefined ? this.stmts.sending.get() : this.stmts.accountSending.get(accountId))!.n;
  }

  /**
   * Empties every data table and removes the accounts not kept, in one transaction; the kept ones
   * keep their key, name and signing secret, and go back to the default payload format with no
   * rotated-out secret still signing. Answers what went.
   */
  wipe(keepAccountIds: readonly string[]): WipeCounts {
    return this.wipeAll(keepAccountIds);
  }

  /**
   * Removes the account and everything it owns in one transaction: `removeCopies` deletes its copies
   * (inside this transaction), the rest follows the account. Answers how much of each kind went.
   */
  deleteAccount(accountId: string, removeCopies: () => void): AccountCounts {
    return this.deleteOne(accountId, removeCopies);
  }
}
