import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { makeDataDir, makePrivateFile } from './data-dir';
import { type SchemaImage, schemaImage, schemaImageBytes } from './schema-image';

export type Db = Database.Database;

interface Migration {
  version: number;
  name: string;
  sql: string;
}

// Bundled at build time: the SQL files ship inside the JavaScript, so no file needs copying.
const files = import.meta.glob('./migrations/*.sql', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** The numbered migrations (`NNNN-name.sql`), in order. Never edit one that has shipped. */
export function loadMigrations(sources: Record<string, string> = files): Migration[] {
  const migrations = Object.entries(sources).map(([path, sql]) => {
    const match = /(\d{4})-([\w-]+)\.sql$/.exec(path);
    if (!match) throw new Error(`migration file name must be NNNN-name.sql: ${path}`);
    return { version: Number(match[1]), name: match[2]!, sql };
  });
  migrations.sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migrations must be numbered 1, 2, 3... without gaps; found ${m.version} at position ${i + 1}`);
  });
  return migrations;
}

/**
 * A migration whose first line is this rewrites the schema's text in sqlite_schema (SQLite's procedure
 * for changing constraints without rebuilding a table): it runs with SQLite's defensive mode off, and
 * schema_version is bumped after it so that every connection reads the new schema.
 */
const REWRITES_SCHEMA = '-- mailyard: rewrites-schema';

/**
 * A migration whose first line is this makes a table anew and drops the old one (SQLite's procedure
 * for changes ALTER TABLE cannot make): it runs with foreign keys off, since dropping a parent table
 * with them on deletes its children's rows, and every foreign key is checked before it commits.
 */
const REBUILDS_TABLES = '-- mailyard: rebuilds-tables';

/** An existing store about to be brought to the current schema: from its version to the latest. */
export interface StoreUpgrade {
  from: number;
  to: number;
}

/**
 * Applies the pending migrations, each in its own transaction, and records them. Returns how many ran.
 * `onUpgrade` hears of it first when a store that has a schema has migrations to run (one that
 * rebuilds the copies takes about ten seconds a million).
 */
export function migrate(db: Db, migrations: Migration[] = loadMigrations(), onUpgrade?: (upgrade: StoreUpgrade) => void): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const current = (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`the database is at schema version ${current}, newer than this Mailyard knows (${latest}); use a newer Mailyard or another --data-dir`);
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  if (current > 0 && current < latest) onUpgrade?.({ from: current, to: latest });
  let applied = 0;
  for (const m of migrations) {
    if (m.version <= current) continue;
    const rewritesSchema = m.sql.startsWith(REWRITES_SCHEMA);
    const rebuildsTables = m.sql.startsWith(REBUILDS_TABLES);
    // better-sqlite3 keeps SQLite's defensive mode on, which forbids writing sqlite_schema.
    if (rewritesSchema) db.unsafeMode(true);
    // Only outside a transaction does this pragma take effect.
    const foreignKeys = rebuildsTables ? (db.pragma('foreign_keys', { simple: true }) as number) : undefined;
    if (rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        const schemaVersion = db.pragma('schema_version', { simple: true }) as number;
        db.exec(m.sql);
        if (rewritesSchema) db.pragma(`schema_version = ${schemaVersion + 1}`);
        if (rebuildsTables) {
          const broken = db.pragma('foreign_key_check') as Array<{ table: string; parent: string }>;
          if (broken.length > 0) {
            throw new Error(`migration ${m.version} left rows of ${broken[0]!.table} without their ${broken[0]!.parent} (${broken.length} in all)`);
          }
        }
        record.run(m.version, m.name, new Date().toISOString());
      })();
    } finally {
      if (rewritesSchema) db.unsafeMode(false);
      if (foreignKeys !== undefined) db.pragma(`foreign_keys = ${foreignKeys}`);
    }
    applied++;
  }
  return applied;
}

/** Records the migrations a store made from the schema image holds, as applied now. */
function recordImageMigrations(db: Db, version: number, migrations: Migration[] = loadMigrations()): void {
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const now = new Date().toISOString();
  db.transaction(() => {
    for (const m of migrations) if (m.version <= version) record.run(m.version, m.name, now);
  })();
}

export const DATABASE_FILE = 'mailyard.db';

/** `PRAGMA auto_vacuum`'s value for INCREMENTAL: freed pages can be given back (store-compaction.ts). */
export const AUTO_VACUUM_INCREMENTAL = 2;

/** The WAL file's size (bytes) it is cut back to each time it starts over (4 MiB). */
export const JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024;

/**
 * Puts a store in auto_vacuum INCREMENTAL mode, so pages freed by pruning and deletions can be given
 * back to the file system (store-compaction.ts). A store made by an earlier version is in the default
 * mode, which only a VACUUM changes: it rewrites the whole file once (a few seconds a GB, with room
 * for a copy on the disk), logged before and after. A new store starts in the mode (the schema image).
 * When it cannot (a full disk), the store works as before and reuses its free pages.
 */
function toIncrementalVacuum(db: Db, onConvert?: (phase: 'start' | 'done' | 'failed', err?: unknown) => void): void {
  if (db.pragma('auto_vacuum', { simple: true }) === AUTO_VACUUM_INCREMENTAL) return;
  onConvert?.('start');
  try {
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
    onConvert?.('done');
  } catch (err) {
    onConvert?.('failed', err);
  }
}

/** WAL pages (about 40 MiB) after which what the WAL holds is copied into the database file. */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

export interface OpenDatabaseOptions {
  /**
   * Path of a better_sqlite3.node built for this runtime (the desktop app passes one built for
   * Electron's ABI); by default better-sqlite3 loads its own build, the one for Node.
   */
  nativeBinding?: string;
  /** What a new store starts from (schema-image.ts); null runs every migration. */
  schemaImage?: SchemaImage | null;
  /** Told before an existing store is brought to the current schema (see migrate). */
  onUpgrade?: (upgrade: StoreUpgrade) => void;
  /** A store in memory starts as these bytes (a snapshot's) instead of as a new store; migrations bring it up to date. */
  startFrom?: Buffer;
  /** Told when a store of an earlier version is rewritten into auto_vacuum INCREMENTAL mode (see toIncrementalVacuum). */
  onCompactionMode?: (phase: 'start' | 'done' | 'failed', err?: unknown) => void;
}

/** Opens (creating if needed) the store in `dataDir`, or in memory when `dataDir` is null, and migrates it. */
export function openDatabase(dataDir: string | null, options: OpenDatabaseOptions = {}): Db {
  const image = options.schemaImage === undefined ? schemaImage : options.schemaImage;
  let file = ':memory:';
  if (dataDir !== null) {
    makeDataDir(dataDir);
    file = join(dataDir, DATABASE_FILE);
    // Owner-only before SQLite opens it: its -wal and -shm then are too (see makePrivateFile).
    makePrivateFile(file);
  }
  // A new store (in memory, or an empty file: a new database to SQLite) starts as the image.
  const fromImage = image !== null && image.version > 0 && options.startFrom === undefined && (dataDir === null || statSync(file).size === 0);
  const startImage = fromImage ? schemaImageBytes(image) : undefined;
  if (startImage !== undefined && dataDir !== null) writeFileSync(file, startImage);
  const db = new Database(
    dataDir === null ? (options.startFrom ?? startImage ?? file) : file,
    options.nativeBinding ? { nativeBinding: options.nativeBinding } : {},
  );
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Temporary structures (a statement's journal, a sort's B-tree) in memory, not in a temporary
    // file: an insert into the copies, whose trigger queues it for the search index, keeps a statement
    // journal, and opening one on the file's path took about 35 µs of every copy's 65 to 80.
    db.pragma('temp_store = MEMORY');
    // 16 MiB of page cache (the default is 2 MiB): the logs benchmark's queries at a million messages
    // are as fast as with 64 MiB. Not more: a commit whose writes split a page scans the whole cache
    // (SQLite's page reordering in balance_nonroot gives a page a temporary number past the end of the
    // file, and the end of the transaction then drops pages past the end by walking every slot), so
    // each commit of a long-running store cost more the more it had cached. 64 MiB also grew RSS by
    // about 95 MB over the dispatch benchmark's rounds; 16 MiB by about 43.
    db.pragma('cache_size = -16384');
    // Checkpoint every ~40 MiB of WAL instead of every ~4 MiB: pages rewritten by many commits (the
    // indexes' last leaves) are copied into the database once per checkpoint, not ten times. (A store
    // in a data directory checkpoints on a thread of its own, see checkpointer.ts.)
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    // The WAL is cut back to this whenever it starts over; idle, store-compaction.ts empties it.
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    if (fromImage) recordImageMigrations(db, image.version);
    migrate(db, undefined, options.onUpgrade);
    toIncrementalVacuum(db, options.onCompactionMode);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
