import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type Db, loadMigrations, migrate, openDatabase } from '../../../../src-main/core/store/database';
import { type SchemaImage, schemaImage } from '../../../../src-main/core/store/schema-image';

const GENERATED = join(import.meta.dirname, '../../../../src-main/core/store/schema-image.generated.ts');

/** The image of a database brought to `version` by the migrations, as schema-image.ts takes it. */
function imageAt(version: number): SchemaImage {
  const db = new Database(':memory:');
  // A new store gives freed pages back (database.ts): the mode is set before the first table.
  db.pragma('auto_vacuum = INCREMENTAL');
  migrate(
    db,
    loadMigrations().filter((m) => m.version <= version),
  );
  db.exec('DELETE FROM schema_migrations');
  db.exec('VACUUM');
  const image = { version, gzipBase64: gzipSync(db.serialize(), { level: 9 }).toString('base64') };
  db.close();
  return image;
}

/** Everything a new store holds but its migration records: its schema, every table's rows (FTS5's own settings among them), its pragmas. */
function contentsOf(db: Db): unknown {
  const objects = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as Array<{
    type: string;
    name: string;
    sql: string | null;
  }>;
  const tables = objects.filter((o) => o.type === 'table' && o.name !== 'schema_migrations' && !/^CREATE VIRTUAL TABLE/i.test(o.sql ?? ''));
  return {
    objects,
    rows: Object.fromEntries(tables.map((t) => [t.name, db.prepare(`SELECT * FROM "${t.name}"`).all()])),
    user_version: db.pragma('user_version', { simple: true }),
    auto_vacuum: db.pragma('auto_vacuum', { simple: true }),
    application_id: db.pragma('application_id', { simple: true }),
  };
}

const versions = (db: Db) => (db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as Array<{ version: number }>).map((r) => r.version);
const latest = loadMigrations().at(-1)!.version;

const opened: Db[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const open = (dataDir: string | null, image?: SchemaImage | null) => {
  const db = openDatabase(dataDir, image === undefined ? {} : { schemaImage: image });
  opened.push(db);
  return db;
};

describe('the schema image a new store starts from', () => {
  it('is what every migration makes, and is current (write it: UPDATE_SCHEMA_IMAGE=1 npx vitest run test/unit/core/store/schema-image.test.ts)', () => {
    if (process.env.UPDATE_SCHEMA_IMAGE === '1') {
      const image = imageAt(latest);
      writeFileSync(
        GENERATED,
        // As the formatter writes it, so that writing it again leaves the lint clean.
        `// Written by test/unit/core/store/schema-image.test.ts (UPDATE_SCHEMA_IMAGE=1): do not edit.\nexport const SCHEMA_IMAGE = {\n  version: ${image.version},\n  gzipBase64:\n    '${image.gzipBase64}',\n};\n`,
      );
    }
    const shipped = /version: (\d+)/.exec(readFileSync(GENERATED, 'utf8'))?.[1];
    expect(Number(shipped), 'the schema image is older than the last migration: write it again').toBe(latest);
    expect(schemaImage.version).toBe(latest);
    const migrated = open(null, null);
    const fromImage = open(null);
    expect(contentsOf(fromImage)).toEqual(contentsOf(migrated));
    expect(versions(fromImage)).toEqual(versions(migrated));
  });

  it('an older image is brought up to date by the migrations after it', () => {
    const older = open(null, imageAt(latest - 3));
    expect(contentsOf(older)).toEqual(contentsOf(open(null, null)));
    expect(versions(older)).toEqual(loadMigrations().map((m) => m.version));
  });

  it('a data directory starts from it once: an existing store is only migrated, its data kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailyard-schema-image-'));
    dirs.push(dir);
    const first = open(dir);
    expect(contentsOf(first)).toEqual(contentsOf(open(null, null)));
    first.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Kept', 'key-0123456789', 1, 'now')").run();
    first.close();
    opened.splice(opened.indexOf(first), 1);
    const again = open(dir);
    expect(again.prepare('SELECT name FROM accounts').all()).toEqual([{ name: 'Kept' }]);
    expect(versions(again)).toEqual(loadMigrations().map((m) => m.version));
  });
});
