import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { monotonicFactory } from 'ulid';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, loadMigrations, migrate } from '../../src-main/core/store/database';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { logCapture } from '../helpers/log-capture';

/** The last migration before copies were keyed by integers (an account's number, a copy's key). */
const BEFORE = loadMigrations().findIndex((m) => m.name === 'narrow-log-row');

const rawOf = (subject: string, to: string, body: string) =>
  Buffer.from(`From: Shop <shop@store.test>\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@store.test>\r\n\r\n${body}\r\n`);

interface Seeded {
  apiKey: string;
  /** The copies of the account under test, oldest first. */
  ids: string[];
  /** The account's rowid before the upgrade: its logs' accountId. */
  number: number;
}

/**
 * A data directory as the Mailyard before the change left it: three accounts made and the middle one
 * deleted (so rowids and order differ), copies stored with gaps in their rowids, one copy's words
 * already in the search index (under its rowid) and the others still waiting for it, an event, a
 * delivery event still scheduled, a tag and a read copy.
 */
function seedOldStore(dir: string): Seeded {
  const db = new Database(join(dir, DATABASE_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  migrate(db, loadMigrations().slice(0, BEFORE));
  const account = db.prepare('INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES (?, ?, ?, ?, ?)');
  account.run('01AAAAAAAAAAAAAAAAAAAAAAAA', 'Default', 'old-default-key-0123', 1, '2026-01-01T00:00:00.000Z');
  account.run('01BBBBBBBBBBBBBBBBBBBBBBBB', 'Gone', 'old-gone-key-0123456', 0, '2026-01-01T00:00:00.000Z');
  account.run('01CCCCCCCCCCCCCCCCCCCCCCCC', 'Shop', 'old-shop-key-0123456', 0, '2026-01-01T00:00:00.000Z');
  db.prepare("DELETE FROM accounts WHERE name = 'Gone'").run();
  const number = (db.prepare("SELECT rowid AS n FROM accounts WHERE name = 'Shop'").get() as { n: number }).n;

  const ulid = monotonicFactory();
  const now = Date.now();
  const content = db.prepare('INSERT INTO message_contents (content_id, raw) VALUES (?, ?)');
  const copy = db.prepare(
    `INSERT INTO messages (id, ref_id, account_id, content_id, source, from_email, from_name, recipient_email, recipient_lc, recipient_domain,
       recipient_name, recipient_type, subject, campaign_id, mailer_id, custom_args, status, created_ms, created_at, failed_reason, priority, updated_at, size)
     VALUES (@id, @id, @account, @id, 'api', 'shop@store.test', 'Shop', @to, @to, 'example.com', '', 'to', @subject, '', '', '{}', 'queued', @ms, @at, '', '0', @at, @size)`,
  );
  const ids: string[] = [];
  const store = (accountId: string, i: number) => {
    const ms = now - 60_000 + i * 1000;
    const id = ulid(ms);
    const subject = `Order ${i} word${i}x`;
    const raw = rawOf(subject, `buyer${i}@example.com`, `Thanks for order ${i}.`);
    content.run(id, raw);
    copy.run({ id, account: accountId, to: `buyer${i}@example.com`, subject, ms, at: new Date(ms).toISOString(), size: raw.length });
    return id;
  };
  for (let i = 0; i < 6; i++) {
    const id = store(i % 3 === 2 ? '01AAAAAAAAAAAAAAAAAAAAAAAA' : '01CCCCCCCCCCCCCCCCCCCCCCCC', i);
    if (i % 3 !== 2) ids.push(id);
  }
  // A gap in the rowids: the copy stored second is deleted.
  const gone = ids.splice(1, 1)[0]!;
  db.prepare('DELETE FROM messages WHERE id = ?').run(gone);
  db.prepare('DELETE FROM message_contents WHERE content_id = ?').run(gone);

  const [first, second, third] = ids as [string, string, string];
  // The newest copy (after the gap) is in the word index already, under its rowid; the others wait for the indexer.
  const rowid = (id: string) => (db.prepare('SELECT rowid AS n FROM messages WHERE id = ?').get(id) as { n: number }).n;
  db.prepare("INSERT INTO message_search (rowid, subject, sender, recipient, body, headers) VALUES (?, 'indexedbeforeupgrade', '', '', '', '')").run(
    rowid(third),
  );
  db.prepare('DELETE FROM search_pending WHERE message_rowid = ?').run(rowid(third));
  db.prepare("INSERT INTO message_events (message_id, seq, event, timestamp) VALUES (?, 1, 'open', ?)").run(first, new Date(now - 30_000).toISOString());
  db.prepare("INSERT INTO scheduled_events (message_id, event, due_at) VALUES (?, 'delivery', ?)").run(second, now - 1000);
  db.prepare("INSERT INTO message_tags (message_id, tag) VALUES (?, 'vip')").run(first);
  db.prepare('UPDATE messages SET read = 1 WHERE id = ?').run(second);
  db.close();
  return { apiKey: 'old-shop-key-0123456', ids, number };
}

let dir: string;
let emu: TestEmulator | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailyard-upgrade-'));
});
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
  await rm(dir, { recursive: true, force: true });
});

const idsOf = (page: { messages: Array<{ id: string }> }) => page.messages.map((m) => m.id);

describe('a data directory from before copies were keyed by integers', () => {
  it('is upgraded at start, and keeps every copy with its account number, events, schedule, index entries, tags and read state', async () => {
    expect(BEFORE).toBeGreaterThan(0);
    const old = seedOldStore(dir);
    const [first, second, third] = old.ids as [string, string, string];
    const log = logCapture('info');
    emu = await startEmulator({}, { logger: log.logger }, dir);
    // The start said what it was doing before the long part, and when it was done.
    const said = log.lines.map((l) => l.msg as string);
    const upgrading = said.findIndex((m) => /^upgrading the store from schema \d+ to \d+: with many messages this takes a while/.test(m));
    expect(upgrading, said.join('\n')).toBeGreaterThanOrEqual(0);
    expect(log.lines[upgrading]).toMatchObject({ from: BEFORE, to: loadMigrations().length });
    expect(said.slice(upgrading)).toContain(`store upgraded to schema ${loadMigrations().length}`);
    const logs = (query: Record<string, unknown> = {}) =>
      emu!
        .request('GET', `/v1/email/logs?${new URLSearchParams(query as Record<string, string>)}`, { apiKey: old.apiKey })
        .then(
          (r) => r.json as { emailLogs: Array<{ refId: string; accountId: number; status: string; track: Record<string, string[]> }>; nextPageToken: string },
        );

    // The logs: the account's copies alone, newest first, under the account's number as before.
    const before = await logs({ pageSize: '50' });
    expect(before.emailLogs.map((e) => e.refId)).toEqual([third, second, first]);
    expect(new Set(before.emailLogs.map((e) => e.accountId))).toEqual(new Set([old.number]));
    expect(old.number).toBe(3);
    expect(before.emailLogs.find((e) => e.refId === first)!.track.open).toHaveLength(1);
    // The delivery event scheduled before the upgrade still falls due for its copy.
    await expect.poll(async () => (await logs({ pageSize: '50' })).emailLogs.find((e) => e.refId === second)?.status, { timeout: 10_000 }).toBe('delivered');

    // The search: the copy indexed before (its index rows kept their rowid), the copies indexed after, tags and read state.
    const search = async (q: string) => idsOf((await emu!.control.listMessages({ q, limit: 50 })).data);
    expect(await search('indexedbeforeupgrade')).toEqual([third]);
    await expect.poll(() => search('word3x'), { timeout: 10_000 }).toEqual([second]);
    expect(await search('tag:vip')).toEqual([first]);
    expect(await search('is:read')).toEqual([second]);
    const detail = (await emu.control.getMessage(third)).data;
    expect(detail).toMatchObject({ id: third, subject: 'Order 4 word4x' });

    // A copy sent now comes first, and paging one at a time walks every copy once.
    const sent = await emu.request('POST', '/v1/email/send', {
      apiKey: old.apiKey,
      body: { from: { email: 'shop@store.test' }, to: [{ email: 'new@example.com' }], subject: 'After', content: [{ type: 'text/plain', value: 'x' }] },
    });
    expect(sent.status).toBe(200);
    const walked: string[] = [];
    let token = '';
    do {
      const page = await logs({ pageSize: '1', ...(token ? { pageToken: token } : {}) });
      walked.push(...page.emailLogs.map((e) => e.refId));
      token = page.nextPageToken;
    } while (token !== '' && walked.length < 10);
    expect(walked).toEqual([sent.json.ref_id, third, second, first]);
    await emu.stop();
    emu = undefined;

    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    try {
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      db.close();
    }
  });
});
