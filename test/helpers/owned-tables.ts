import type Database from 'better-sqlite3';

/** The store's own tables (not SQLite's, nor the shadow tables of its full-text indexes). */
export function storeTables(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'").all() as { name: string }[])
    .map((r) => r.name)
    .filter((n) => !n.startsWith('sqlite_') && !/_(config|data|docsize|idx|content)$/.test(n));
}

/**
 * Adds to `owned` (a table and the SQL condition that picks its rows) every table with a foreign key to
 * an owned table, at any depth, read from the schema as a person would: its condition picks the rows
 * whose key names an owned row.
 */
export function withForeignKeyTables(db: Database.Database, owned: Map<string, string>): Map<string, string> {
  const tables = storeTables(db);
  for (let grew = true; grew; ) {
    grew = false;
    for (const t of tables.filter((n) => !owned.has(n))) {
      const fks = db.prepare(`SELECT "table" AS parent, "from", "to" FROM pragma_foreign_key_list('${t}')`).all() as {
        parent: string;
        from: string;
        to: string;
      }[];
      const fk = fks.find((k) => owned.has(k.parent));
      if (fk) {
        owned.set(t, `${fk.from} IN (SELECT ${fk.to} FROM ${fk.parent} WHERE ${owned.get(fk.parent)})`);
        grew = true;
      }
    }
  }
  return owned;
}
