import { closeSync, openSync, readSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type Db, loadMigrations } from './database';

/** The row of `emulator_state` that makes a database file a snapshot: what SnapshotMark says. */
export const SNAPSHOT_KEY = 'snapshot';

/** What a snapshot says of itself. */
export interface SnapshotMark {
  /** The Mailyard that saved it. */
  version: string;
  /** Its schema (the last migration it had). */
  schema: number;
  saved_at: string;
  /** false: saved with --without-secrets (API keys replaced, signing secrets, mailer passwords and tokens, DKIM keys left out). */
  secrets: boolean;
  /** The key that seals its mailers' passwords and tokens (base64), when it holds secrets. */
  mailer_key?: string;
}

/** A file that is not a snapshot this Mailyard can open: the words say which file and why. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

function hasSqliteHeader(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a consistent copy of the running store to `file` (SQLite's online backup, a few hundred
 * pages a step with the event loop turning between them: writes go on meanwhile, and the copy is of
 * one moment), as one file (no WAL), marked as a snapshot. `edit` changes the copy before it is
 * closed (leaving secrets out), inside one transaction; the pages it frees are given back.
 */
export async function writeSnapshot(db: Db, file: string, mark: SnapshotMark, edit?: (copy: Db) => void): Promise<void> {
  await db.backup(file, { progress: () => 256 });
  const copy = new Database(file);
  try {
    copy.pragma('journal_mode = DELETE');
    copy.pragma('foreign_keys = ON');
    copy.transaction(() => {
      edit?.(copy);
      copy
        .prepare('INSERT INTO emulator_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(SNAPSHOT_KEY, JSON.stringify(mark));
    })();
    copy.pragma('incremental_vacuum');
  } finally {
    copy.close();
  }
}

/**
 * Reads a snapshot's mark, refusing in words a file that is missing, not a database, not a
 * snapshot, or from a newer Mailyard (an older one is upgraded by the migrations when it opens).
 */
export function readSnapshotMark(file: string): SnapshotMark {
  let db: Database.Database;
  try {
    if (!hasSqliteHeader(file)) throw new SnapshotError(`${file} is not a Mailyard snapshot (not an SQLite database)`);
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new SnapshotError(code === 'ENOENT' ? `${file}: no such file` : `${file} cannot be read: ${(err as Error).message}`);
  }
  try {
    const row = (() => {
      try {
        return db.prepare<[string], { value: string }>('SELECT value FROM emulator_state WHERE key = ?').get(SNAPSHOT_KEY);
      } catch {
        return undefined;
      }
    })();
    if (row === undefined) throw new SnapshotError(`${file} is not a Mailyard snapshot (a database, but not one saved by mailyard snapshot save)`);
    const mark = JSON.parse(row.value) as SnapshotMark;
    const latest = loadMigrations().at(-1)!.version;
    if (mark.schema > latest) {
      throw new SnapshotError(
        `${file} was saved by a newer Mailyard (${mark.version}, schema ${mark.schema}); this one (schema ${latest}) cannot open it: use Mailyard ${mark.version} or later`,
      );
    }
    return mark;
  } finally {
    db.close();
  }
}
