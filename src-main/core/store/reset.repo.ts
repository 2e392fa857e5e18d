import type { Db } from './database';

/**
 * Tables that are not data: what a reset keeps (accounts are thinned out by id). Every other table is
 * data and is emptied, so a table a later migration adds is wiped too unless it is named here.
 */
const KEPT_TABLES: ReadonlySet<string> = new Set(['schema_migrations', 'accounts', 'emulator_state']);

/** The tables whose rows a reset counts, by the name of the count. */
const COUNTED = {
  messages: 'messages',
  deliveries: 'deliveries',
  webhooks: 'webhooks',
  domains: 'domains',
  mailers: 'mailers',
  inbound_domains: 'inbound_domains',
  inbound_usernames: 'inbound_usernames',
  templates: 'templates',
  simulation_rules: 'simulation_rules',
  suppressions: 'suppressions',
  scheduled_events: 'scheduled_events',
} as const;

export type WipeCounts = { -readonly [K in keyof typeof COUNTED]: number } & { accounts_removed: number };

export interface TargetRef {
  target_kind: string;
  target_id: string;
}

/** The SQL of `POST /emulator/reset`. */
export class ResetRepo {
  private readonly stmts;
  private readonly wipeAll: (keepAccountIds: readonly string[]) => WipeCounts;

  constructor(db: Db) {
    this.stmts = {
      activeTargets: db.prepare<[], TargetRef>("SELECT DISTINCT target_kind, target_id FROM deliveries WHERE status IN ('pending', 'sending')"),
      allTargets: db.prepare<[], TargetRef>('SELECT DISTINCT target_kind, target_id FROM deliveries'),
      sending: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'sending'"),
      // Ordinary and virtual tables (a full-text index's shadow tables are its own: never written directly).
      tables: db.prepare<[], { name: string }>(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      ),
      removeAccounts: db.prepare<[string]>('DELETE FROM accounts WHERE id NOT IN (SELECT value FROM json_each(?))'),
    };
    this.wipeAll = db.transaction((keepAccountIds: readonly string[]) => {
      // Checked at the commit, when every table is empty: the order of the deletes does not matter.
      db.pragma('defer_foreign_keys = ON');
      const counts = {} as WipeCounts;
      for (const [key, table] of Object.entries(COUNTED)) {
        counts[key as keyof typeof COUNTED] = (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
      }
      for (const { name } of this.stmts.tables.all()) {
        if (!KEPT_TABLES.has(name)) db.prepare(`DELETE FROM "${name.replace(/"/g, '""')}"`).run();
      }
      counts.accounts_removed = this.stmts.removeAccounts.run(JSON.stringify(keepAccountIds)).changes;
      return counts;
    });
  }

  /** The targets of deliveries still to be sent or on the wire. */
  activeTargets(): TargetRef[] {
    return this.stmts.activeTargets.all();
  }

  /** Every target any delivery names. */
  allTargets(): TargetRef[] {
    return this.stmts.allTargets.all();
  }

  /** Deliveries claimed for an attempt whose outcome is not committed yet. */
  sendingCount(): number {
    return this.stmts.sending.get()!.n;
  }

  /** Empties every data table and removes the accounts not kept, in one transaction; answers what went. */
  wipe(keepAccountIds: readonly string[]): WipeCounts {
    return this.wipeAll(keepAccountIds);
  }
}
