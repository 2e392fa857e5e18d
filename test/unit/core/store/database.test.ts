import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AUTO_VACUUM_INCREMENTAL, DATABASE_FILE, loadMigrations, migrate, openDatabase } from '../../../../src-main/core/store/database';

/** Every CHECK with an IN list in the schema (each costs a temporary table per checking statement). */
function inListChecks(db: Database.Database): string[] {
  const tables = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string; sql: string }>;
  return tables.flatMap((t) => [...t.sql.matchAll(/CHECK \(\w+ IN \([^)]*\)\)/g)].map((m) => `${t.name}: ${m[0]}`));
}

/**
 * One account, message and delivery. A store made before one ref_id per send (migration 0011) keys a
 * message by its ref_id; a current one keys each recipient's copy by its id, under the send's ref_id.
 */
function seed(db: Database.Database, schema: 'before one ref_id per send' | 'current' = 'current'): void {
  db.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'key-0123456789', 1, 'now')").run();
  // Migration 0022 renamed the content key send_id to content_id.
  const content = schema === 'current' ? 'content_id' : 'send_id';
  db.prepare(`INSERT INTO message_contents (${content}, raw) VALUES ('s1', x'41')`).run();
  const keys = schema === 'current' ? ['id, ref_id', "'m1', 'send1'"] : ['ref_id', "'m1'"];
  // Migration 0034 keyed a copy's account by the account's number.
  const account = schema === 'current' ? ['account_number', "(SELECT number FROM accounts WHERE id = 'acc')"] : ['account_id', "'acc'"];
  db.prepare(
    `INSERT INTO messages (${keys[0]}, ${account[0]}, ${content}, source, from_email, from_name, recipient_email, recipient_lc, recipient_domain,
       recipient_name, recipient_type, subject, campaign_id, mailer_id, custom_args, status, created_ms, created_at)
     VALUES (${keys[1]}, ${account[1]}, 's1', 'smtp', 'a@example.com', '', 'b@example.org', 'b@example.org', 'example.org', '', 'to', 'Hi', '', '', '{}', 'queued', 1, 'now')`,
  ).run();
  db.prepare(
    `INSERT INTO deliveries (id, account_id, target_kind, target_id, category, event, ref_id, payload, target_url, status, created_ms, created_at, updated_at)
     VALUES ('d1', 'acc', 'webhook', 'w1', 'EMAIL_EVENT', 'delivery', 'm1', '{}', 'http://127.0.0.1/', 'pending', 1, 'now', 'now')`,
  ).run();
}

describe('CHECK constraints', () => {
  it('are OR chains in a new store, and still refuse what they refused', () => {
    const db = new Database(':memory:');
    migrate(db);
    expect(inListChecks(db)).toEqual([]);
    seed(db);
    expect(() => db.prepare("UPDATE deliveries SET status = 'lost' WHERE id = 'd1'").run()).toThrow(/CHECK constraint failed: status = 'pending' OR/);
    // The statuses of the service before the real ones are refused now.
    for (const old of ['deferred', 'rejected', 'suppressed', 'lost']) {
      expect(() => db.prepare('UPDATE messages SET status = ? WHERE id = ?').run(old, 'm1'), old).toThrow(/CHECK constraint failed/);
    }
    expect(() => db.prepare("UPDATE messages SET recipient_type = 'reply-to' WHERE id = 'm1'").run()).toThrow(/CHECK constraint failed/);
    expect(() => db.prepare("UPDATE accounts SET is_default = 2 WHERE id = 'acc'").run()).toThrow(/CHECK constraint failed/);
    // Every value a constraint named is still accepted.
    for (const status of ['pending', 'sending', 'succeeded', 'failed', 'cancelled'])
      db.prepare('UPDATE deliveries SET status = ? WHERE id = ?').run(status, 'd1');
    for (const status of ['queued', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'failed', 'spam', 'unsubscribed'])
      db.prepare('UPDATE messages SET status = ? WHERE id = ?').run(status, 'm1');
  });

  it('are rewritten in a store made before the change, keeping its rows, with the schema intact', () => {
    const all = loadMigrations();
    const rewrite = all.findIndex((m) => m.name === 'check-constraints-as-or-chains');
    expect(rewrite).toBeGreaterThan(0);
    const db = new Database(':memory:');
    migrate(db, all.slice(0, rewrite));
    expect(inListChecks(db).length).toBe(17);
    seed(db, 'before one ref_id per send');

    expect(migrate(db, all)).toBe(all.length - rewrite);
    expect(inListChecks(db)).toEqual([]);
    expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(db.prepare('SELECT id, status FROM deliveries').all()).toEqual([{ id: 'd1', status: 'pending' }]);
    // The message made before one ref_id per send keeps its key as its id, and is its own send.
    expect(db.prepare('SELECT id, ref_id, status FROM messages').all()).toEqual([{ id: 'm1', ref_id: 'm1', status: 'queued' }]);
    expect(() => db.prepare("UPDATE deliveries SET status = 'lost' WHERE id = 'd1'").run()).toThrow(/CHECK constraint failed/);
    // Defensive mode is back on: the schema cannot be written by anything else.
    expect(() => db.pragma('writable_schema = ON') && db.prepare("UPDATE sqlite_schema SET sql = sql WHERE name = 'messages'").run()).toThrow(
      /may not be modified/,
    );
  });
});

describe('a migration that rebuilds tables', () => {
  const parentAndChild = loadMigrations({
    './migrations/0001-tables.sql': `CREATE TABLE parent (id TEXT PRIMARY KEY);
      CREATE TABLE child (parent_id TEXT NOT NULL REFERENCES parent (id) ON DELETE CASCADE);
      INSERT INTO parent VALUES ('p1'); INSERT INTO child VALUES ('p1');`,
  });
  const rebuild = (body: string) =>
    loadMigrations({ './migrations/0001-tables.sql': parentAndChild[0]!.sql, './migrations/0002-rebuild.sql': `-- mailyard: rebuilds-tables\n${body}` });

  it("keeps a rebuilt parent's children (dropping it with foreign keys on would delete them), and turns foreign keys back on", () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(
      db,
      rebuild(`CREATE TABLE parent_new (number INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);
        INSERT INTO parent_new (id) SELECT id FROM parent; DROP TABLE parent; ALTER TABLE parent_new RENAME TO parent;`),
    );
    expect(db.prepare('SELECT parent_id FROM child').all()).toEqual([{ parent_id: 'p1' }]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(() => db.prepare("INSERT INTO child VALUES ('nobody')").run()).toThrow(/FOREIGN KEY constraint failed/);
  });

  it('is undone when it leaves a row without its parent, saying which', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db, parentAndChild);
    const broken = rebuild(`CREATE TABLE parent_new (id TEXT PRIMARY KEY); DROP TABLE parent; ALTER TABLE parent_new RENAME TO parent;`);
    expect(() => migrate(db, broken)).toThrow(/migration 2 left rows of child without their parent \(1 in all\)/);
    expect(db.prepare('SELECT id FROM parent').all()).toEqual([{ id: 'p1' }]);
    expect(db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({ v: 1 });
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  });
});

describe('loadMigrations', () => {
  it('orders by number', () => {
    const m = loadMigrations({ './migrations/0002-b.sql': 'B', './migrations/0001-a.sql': 'A' });
    expect(m.map((x) => [x.version, x.name, x.sql])).toEqual([
      [1, 'a', 'A'],
      [2, 'b', 'B'],
    ]);
  });
  it('refuses gaps and bad names', () => {
    expect(() => loadMigrations({ './migrations/0001-a.sql': '', './migrations/0003-c.sql': '' })).toThrow(/without gaps/);
    expect(() => loadMigrations({ './migrations/first.sql': '' })).toThrow(/NNNN-name\.sql/);
  });
  it('ships the bundled migrations', () => {
    expect(loadMigrations()[0]).toMatchObject({ version: 1, name: 'accounts-webhooks' });
  });
});

describe('auto_vacuum', () => {
  it('a store of an earlier version is rewritten once into INCREMENTAL mode, keeping its rows, and then gives freed pages back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailyard-vacuum-'));
    try {
      // As an earlier version left it: every migration, the default mode, a few hundred KB of mail.
      const old = new Database(join(dir, DATABASE_FILE));
      migrate(old);
      seed(old);
      old
        .prepare(
          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO message_contents (content_id, raw) SELECT 'c' || i, randomblob(4000) FROM n",
        )
        .run();
      old.close();
      const phases: string[] = [];
      const db = openDatabase(dir, { onCompactionMode: (phase) => phases.push(phase) });
      try {
        expect(phases).toEqual(['start', 'done']);
        expect(db.pragma('auto_vacuum', { simple: true })).toBe(AUTO_VACUUM_INCREMENTAL);
        expect(db.prepare('SELECT id FROM messages').pluck().all()).toEqual(['m1']);
        db.prepare("DELETE FROM message_contents WHERE content_id LIKE 'c%'").run();
        const pages = db.pragma('page_count', { simple: true }) as number;
        expect(db.pragma('freelist_count', { simple: true })).toBeGreaterThan(100);
        db.pragma('incremental_vacuum');
        expect(db.pragma('freelist_count', { simple: true })).toBe(0);
        expect(db.pragma('page_count', { simple: true })).toBeLessThan(pages - 100);
      } finally {
        db.close();
      }
      // Done once: the next start leaves it.
      const again: string[] = [];
      openDatabase(dir, { onCompactionMode: (phase) => again.push(phase) }).close();
      expect(again).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
