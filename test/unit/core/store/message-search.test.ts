import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { diffBytes } from '../../../../src-main/core/store/byte-patch';
import { loadMigrations, migrate } from '../../../../src-main/core/store/database';
import { type MessageSearch, searchTerms } from '../../../../src-main/core/store/message-search';
import { type MessageRow, MessagesRepo } from '../../../../src-main/core/store/messages.repo';
import { SearchIndexRepo } from '../../../../src-main/core/store/search-index.repo';
import { queuedCopy } from '../../../helpers/message-row';

function copy(i: number): MessageRow {
  return queuedCopy(i, { recipient_type: i % 2 ? 'cc' : 'to', subject: `Newsletter ${i}` });
}

/** The list's query plan, as MessagesRepo.search runs it (newest first, a page). */
function plan(db: Database.Database, search: string | MessageSearch): string {
  const { where, params } = searchTerms(typeof search === 'string' ? { q: search } : search);
  const sql = `SELECT id FROM messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT 50`;
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail).join('\n');
}

describe('the search plans of negations and operators', () => {
  it('looks each negated term up once in an index (a list subquery, never per row), and words reach messages by rowid', () => {
    const db = new Database(':memory:');
    migrate(db, loadMigrations());
    db.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'key-0123456789', 1, 'now')").run();
    const repo = new MessagesRepo(db);
    for (let i = 1; i <= 200; i++) repo.insertContent({ content_id: copy(i).content_id, raw: Buffer.from('Subject: x\r\n\r\nx') });
    for (let i = 1; i <= 200; i++) repo.insertMessage(copy(i));
    // Their index rows, as the search indexer writes them (the queue is in rowid order: copy 1 first).
    const index = new SearchIndexRepo(db);
    index.write(
      index.pending(0, 200).map((pending, k) => {
        const i = k + 1;
        return {
          copy: pending,
          text: { body: i % 3 ? 'news to unsubscribe' : 'news', headers: i % 5 ? '' : 'X-Mailyard-Attachment: a.pdf mlyatt mlyfna mlyfnpdf', addresses: '' },
        };
      }),
    );
    for (const q of [
      'newsletter -unsubscribe',
      '-unsubscribe',
      'newsletter -from:ann -cc:r1@example.com',
      '-has:attachment news',
      'has:attachment -is:bounced',
    ]) {
      const p = plan(db, q);
      expect(p, q).not.toMatch(/CORRELATED/);
      // The FTS lookups are index queries (MATCH), not scans of the copies' text.
      expect(p, q).toMatch(/VIRTUAL TABLE INDEX/);
    }
    // A query with a word that must hold reads the copies it finds by rowid, not the whole table.
    expect(plan(db, 'newsletter -unsubscribe')).toMatch(/SEARCH messages USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan(db, 'has:attachment -is:bounced')).toMatch(/SEARCH messages USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    // And the answers are right.
    const count = (q: string) => repo.count({ q });
    expect(count('newsletter -unsubscribe')).toBe(66);
    expect(count('-unsubscribe')).toBe(66);
    expect(count('has:attachment')).toBe(40);
    expect(count('news -has:attachment')).toBe(160);
    expect(count('cc:@example.com')).toBe(100);
    expect(count('newsletter -cc:@example.com')).toBe(100);
  });

  it("looks a wait's recipient and ref_id up in the copies' own indexes, with no account named: never the search index, never a scan", () => {
    const db = new Database(':memory:');
    migrate(db, loadMigrations());
    for (const search of [
      { recipientLc: 'r1@example.com' },
      { recipientLc: 'r1@example.com', status: 'queued' },
      { refId: 'x', recipientLc: 'r1@example.com' },
      { refId: 'x' },
    ]) {
      const p = plan(db, search);
      expect(p, JSON.stringify(search)).toMatch(/^SEARCH messages USING (COVERING )?INDEX messages_(recipient|ref) /);
      expect(p, JSON.stringify(search)).not.toMatch(/VIRTUAL TABLE|SCAN/);
    }
  });

  it("compares a copy's stored size with larger: and smaller:, and computes a copy's stored before the size column from its content and patch", () => {
    const db = new Database(':memory:');
    migrate(db, loadMigrations());
    db.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'key-0123456789', 1, 'now')").run();
    const repo = new MessagesRepo(db);
    const base = Buffer.from(`Subject: x\r\n\r\n${'x'.repeat(100)}`);
    const longer = Buffer.from(`Subject: a longer one\r\n\r\n${'x'.repeat(100)}`);
    repo.insertContent({ content_id: 'c1', raw: base });
    // Two copies of one send stored before the column (size null), the second as edits of the first; one stored since.
    repo.insertMessage(queuedCopy(1, { content_id: 'c1', size: null }));
    repo.insertMessage(queuedCopy(2, { content_id: 'c1', size: null, patch: diffBytes(base, longer) }));
    repo.insertMessage(queuedCopy(3, { content_id: 'c1', size: 5000 }));
    const subjects = (q: string) => repo.search({ q, limit: 10 }).map((r) => r.subject);
    expect(subjects(`larger:${base.length}`)).toEqual(['Message 3', 'Message 2']);
    expect(subjects(`larger:${longer.length - 1} smaller:${longer.length + 1}`)).toEqual(['Message 2']);
    expect(subjects(`smaller:${longer.length}`)).toEqual(['Message 1']);
    expect(subjects('larger:4k')).toEqual(['Message 3']);
    expect(repo.count({ q: `-larger:${base.length + 1}` })).toBe(1);
  });
});
