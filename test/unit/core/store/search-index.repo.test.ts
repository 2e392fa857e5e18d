import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type Db, loadMigrations, migrate, openDatabase } from '../../../../src-main/core/store/database';
import { type MessageRow, MessagesRepo } from '../../../../src-main/core/store/messages.repo';
import { SearchIndexRepo } from '../../../../src-main/core/store/search-index.repo';
import { SearchUpkeep } from '../../../../src-main/core/store/search-upkeep';
import { queuedCopy } from '../../../helpers/message-row';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function copy(i: number, recipient: string): MessageRow {
  return queuedCopy(i, { recipient, subject: `Order ${i}` });
}

const segments = (db: Db, table: string) => (db.prepare(`SELECT count(DISTINCT segid) AS n FROM ${table}_idx`).get() as { n: number }).n;
const ids = (repo: MessagesRepo, q: string) => repo.search({ q, limit: 1_000 }).map((r) => r.id);

describe('the address index (migration 0019)', () => {
  it("indexes the addresses of copies stored before it: sender, recipient, and the header block's", () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 19),
    );
    db.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'key-0123456789', 1, 'now')").run();
    const raw = Buffer.from(
      'From: Store <shop@store.test>\r\nTo: ann@example.com\r\nCc: Boss <boss@corp.test>\r\nSubject: Order 1\r\n\r\nbody mentions help@shop.test\r\n',
    );
    // A store before migration 0022 names content_id send_id.
    db.prepare('INSERT INTO message_contents (send_id, raw) VALUES (?, ?)').run(copy(1, 'ann@example.com').content_id, raw);
    const row = copy(1, 'ann@example.com');
    db.prepare(
      `INSERT INTO messages (id, ref_id, account_id, send_id, source, from_email, from_name, recipient_email, recipient_lc, recipient_domain, recipient_name,
         recipient_type, subject, campaign_id, mailer_id, custom_args, status, created_ms, created_at, failed_reason, priority, updated_at)
       VALUES (@id, @ref_id, @account_id, @content_id, @source, @from_email, @from_name, @recipient_email, @recipient_lc, @recipient_domain, @recipient_name,
         @recipient_type, @subject, @campaign_id, @mailer_id, @custom_args, @status, @created_ms, @created_at, @failed_reason, @priority, @updated_at)`,
    ).run(row);
    expect(migrate(db, all)).toBe(all.length - 18);
    const repo = new MessagesRepo(db);
    expect(ids(repo, 'to:ann@example.com')).toEqual([row.id]);
    expect(ids(repo, 'from:@store.test')).toEqual([row.id]);
    expect(ids(repo, 'boss@corp.test')).toEqual([row.id]); // the Cc line of its header block
    expect(ids(repo, 'help@shop.test')).toEqual([]); // its body's addresses are not (as its words were not, by 0018)
    db.prepare('DELETE FROM messages').run();
    expect(ids(repo, 'to:ann@example.com')).toEqual([]);
    expect((db.prepare('SELECT count(*) AS n FROM message_addresses').get() as { n: number }).n).toBe(0);
  });
});

describe('the search indexes upkeep', () => {
  it('merges the segments that mail arriving one message at a time leaves, and every search finds what it found before', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailyard-upkeep-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    try {
      db.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'key-0123456789', 1, 'now')").run();
      const repo = new MessagesRepo(db);
      const index = new SearchIndexRepo(db);
      for (let i = 0; i < 300; i++) {
        repo.insertContent({ content_id: copy(i, '').content_id, raw: Buffer.from('x') });
        repo.insertMessage(copy(i, `user${i % 30}@domain${i % 7}.test`));
        // Indexed one copy a transaction, as the indexer does when mail arrives one message at a time.
        const headers = `To: user${i % 30}@domain${i % 7}.test`;
        index.write(
          index.pending(0, 1).map((pending) => ({
            copy: pending,
            text: { body: `order ref-${i} shipped`, headers, addresses: `user${i % 30}@domain${i % 7}.test @domain${i % 7}.test` },
          })),
        );
      }
      expect(index.waiting()).toBe(0);
      const queries = ['shipped', 'ref-12', '"order ref 120"', 'to:user3@domain3.test', '@domain2.test', 'order to:user1'];
      const before = queries.map((q) => ids(repo, q));
      const left = [segments(db, 'message_search'), segments(db, 'message_addresses')];

      const upkeep = new SearchUpkeep(db, { logger: pino({ level: 'silent' }), intervalMs: 60_000 });
      let turns = 0;
      while (!upkeep.step(5)) turns++;
      upkeep.stop();
      expect(turns).toBeLessThan(1_000);
      const now = [segments(db, 'message_search'), segments(db, 'message_addresses')];
      expect(now[0]).toBeLessThan(left[0]!);
      expect(now[1]).toBeLessThan(left[1]!);
      expect(Math.max(...now)).toBeLessThanOrEqual(2);
      expect(queries.map((q) => ids(repo, q))).toEqual(before);
      expect(before.every((found) => found.length > 0)).toBe(true);
      db.prepare("INSERT INTO message_search (message_search, rank) VALUES ('integrity-check', 1)").run();
      db.prepare("INSERT INTO message_addresses (message_addresses, rank) VALUES ('integrity-check', 1)").run();
    } finally {
      db.close();
    }
  });
});
