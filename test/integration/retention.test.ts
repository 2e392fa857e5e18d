import { join } from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { closedAfterEachTest } from '../helpers/deliveries';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { withForeignKeyTables } from '../helpers/owned-tables';

let emu: TestEmulator | undefined;
const { receiver } = closedAfterEachTest(async () => {
  await emu?.cleanup();
  emu = undefined;
});

/**
 * Every table whose rows belong to a copy, read from the schema as the account-deletion test reads an
 * account's: a foreign key to the copies (or to such a table) at any depth, with the SQL that picks the
 * rows of the copies in `@ids` (a JSON list of their ids).
 */
function copyTables(db: Database.Database): Map<string, string> {
  return withForeignKeyTables(db, new Map([['messages', 'id IN (SELECT value FROM json_each(@ids))']]));
}

describe('retention (--max-messages)', () => {
  it('holds the newest N copies after 300 over SMTP; the oldest and everything that was theirs are gone from every table', async () => {
    emu = await startEmulator({ maxMessages: 100, retentionIntervalMs: 50 });
    const hooks = await receiver();
    await emu.registerEmailWebhook(hooks.url);
    const db = new Database(join(emu.dataDir, DATABASE_FILE), { readonly: true });
    try {
      // The oldest five: API sends with tracking (tokens, tracked links) and tags, their events posted to the webhook.
      for (let i = 0; i < 5; i++) {
        await emu.service.sendEmail({
          from: { email: 'app@example.com' },
          to: [{ email: `tracked${i}@example.org` }],
          subject: `tracked ${i}`,
          content: [{ type: 'text/html', value: `<p>tracked ${i} <a href="https://example.com/t${i}">link</a></p>` }],
          settings: { open_tracking: { enable: true }, click_tracking: { enable: true }, unsubscribe: { enable: true } },
        } as never);
      }
      await hooks.waitFor(5);
      const tracked = (await emu.control.listMessages({ q: 'subject:tracked' } as never)).data.messages;
      expect(tracked).toHaveLength(5);
      for (const m of tracked) await emu.control.setMessageTags(m.id, { tags: ['old'] } as never);
      const ids = JSON.stringify(tracked.map((m) => m.id));
      const owned = copyTables(db);
      const rowsOf = () =>
        Object.fromEntries([...owned].map(([t, where]) => [t, (db.prepare(`SELECT COUNT(*) AS n FROM ${t} WHERE ${where}`).get({ ids }) as { n: number }).n]));
      // Each table that holds a copy's rows has some for these: one a later migration adds fails this until the test makes some.
      for (const [table, n] of Object.entries(rowsOf())) {
        if (table !== 'mailer_relays' && table !== 'scheduled_events') expect(n, `rows of ${table} before pruning`).toBeGreaterThan(0);
      }
      const refIds = JSON.stringify(tracked.map((m) => m.ref_id));
      const deliveriesOfOld = db.prepare('SELECT COUNT(*) AS n FROM deliveries WHERE ref_id IN (SELECT value FROM json_each(?))');
      expect((deliveriesOfOld.get(refIds) as { n: number }).n).toBeGreaterThan(0);

      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, pool: true });
      try {
        for (let i = 0; i < 300; i++) {
          await transport.sendMail({ from: 'app@example.com', to: `to${i}@example.org`, subject: `smtp ${i}`, text: `message number ${i}` });
        }
      } finally {
        transport.close();
      }

      const subjects = async () => (await emu!.control.listMessages({ limit: 200 } as never)).data.messages.map((m) => m.subject);
      await expect.poll(async () => (await subjects()).length, { timeout: 15_000 }).toBe(100);
      // The newest hundred, newest first.
      expect(await subjects()).toEqual(Array.from({ length: 100 }, (_, i) => `smtp ${299 - i}`));
      expect((await emu.control.listMessages({ q: '"message number 150"' } as never)).data.messages.map((m) => m.subject)).toEqual([]);

      // The tracked copies and everything that was theirs are gone; nothing is left that no copy uses.
      for (const [table, n] of Object.entries(rowsOf())) expect(n, `rows of ${table} after pruning`).toBe(0);
      expect((deliveriesOfOld.get(refIds) as { n: number }).n).toBe(0);
      const orphans = {
        contents: 'SELECT COUNT(*) AS n FROM message_contents WHERE content_id NOT IN (SELECT content_id FROM messages)',
        links: 'SELECT COUNT(*) AS n FROM tracked_links WHERE links_of NOT IN (SELECT links_of FROM tracking_tokens WHERE links_of IS NOT NULL)',
        pending: 'SELECT COUNT(*) AS n FROM search_pending WHERE message_rowid NOT IN (SELECT key FROM messages)',
        words: 'SELECT COUNT(*) AS n FROM message_search WHERE rowid NOT IN (SELECT key FROM messages)',
        addresses: 'SELECT COUNT(*) AS n FROM message_addresses WHERE rowid NOT IN (SELECT key FROM messages)',
        attempts: 'SELECT COUNT(*) AS n FROM delivery_attempts WHERE delivery_id NOT IN (SELECT id FROM deliveries)',
      };
      for (const [what, sql] of Object.entries(orphans)) expect((db.prepare(sql).get() as { n: number }).n, `${what} left without a copy`).toBe(0);
      expect((db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBe(100);

      // The store says what it holds, the limits in force and what was pruned.
      const usage = (await emu.control.getStore()).data;
      expect(usage).toMatchObject({ messages: 100, max_messages: 100, max_age_ms: 0, pruned: { copies: 205 } });
      expect(usage.pruned.last_at).not.toBeNull();
      expect(usage.database_bytes).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('prunes copies older than --max-age on the emulator clock, and new limits set over the control API apply at once', async () => {
    emu = await startEmulator({ maxAge: '1h', retentionIntervalMs: 50 });
    for (let i = 0; i < 3; i++)
      await emu.service.sendEmail({
        from: { email: 'a@example.com' },
        to: [{ email: `old${i}@example.org` }],
        subject: `old ${i}`,
        content: [{ type: 'text/plain', value: 'x' }],
      } as never);
    await emu.control.setClock({ advance_ms: 2 * 3_600_000 });
    await emu.service.sendEmail({
      from: { email: 'a@example.com' },
      to: [{ email: 'new@example.org' }],
      subject: 'new',
      content: [{ type: 'text/plain', value: 'x' }],
    } as never);
    const subjects = async () => (await emu!.control.listMessages({} as never)).data.messages.map((m) => m.subject);
    await expect.poll(subjects, { timeout: 10_000 }).toEqual(['new']);

    await emu.service.sendEmail({
      from: { email: 'a@example.com' },
      to: [{ email: 'newer@example.org' }],
      subject: 'newer',
      content: [{ type: 'text/plain', value: 'x' }],
    } as never);
    const set = await emu.control.setRetention({ max_messages: 1, max_age_ms: 0 });
    expect(set.data).toMatchObject({ max_messages: 1, max_age_ms: 0, messages: 1 });
    expect(await subjects()).toEqual(['newer']);
    // Kept for the next start.
    await emu.stop();
    emu = await startEmulator({}, {}, emu.dataDir);
    expect((await emu.control.getStore()).data).toMatchObject({ max_messages: 1, max_age_ms: 0 });
  });

  it("holds mail received (inbound routes' posts, IMAP messages) to the same limits, the oldest first", async () => {
    emu = await startEmulator({ retentionIntervalMs: 60_000 });
    const hooks = await receiver();
    await emu.service.configureInboundRouting({ domain: 'inbound.example.com', url: hooks.url, method: 'POST', headers: {}, wildcard: true });
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp! });
    try {
      for (let i = 0; i < 3; i++)
        await transport.sendMail({ from: 'customer@example.org', to: 'support@inbound.example.com', subject: `inbound ${i}`, text: 'x' });
    } finally {
      transport.close();
    }
    // Messages the IMAP connector took, written as it writes them (no IMAP server needed to hold them to a limit).
    const db = new Database(join(emu.dataDir, DATABASE_FILE));
    try {
      const account = emu.handle.defaultAccount.id;
      const at = new Date().toISOString();
      db.prepare(
        `INSERT INTO mailers (id, account_id, config_type, name, email, connection_type, host, port, username, secure, status, created_at, updated_at)
         VALUES ('01JIMAPMAILER0000000000000', ?, 'imap', 'inbox', 'inbox@example.org', 'basic', '127.0.0.1', 1, 'u', 'None', 'error', ?, ?)`,
      ).run(account, at, at);
      for (let i = 0; i < 3; i++)
        db.prepare(
          `INSERT INTO imap_messages (ref_id, mailer_id, account_id, uidvalidity, uid, message_id, from_email, subject, raw, created_ms, created_at)
           VALUES (?, '01JIMAPMAILER0000000000000', ?, 1, ?, '', 'customer@example.org', ?, x'00', ?, ?)`,
        ).run(`01JIMAPMESSAGE00000000000${i}`, account, i + 1, `imap ${i}`, Date.now(), at);
      const subjects = (table: string) =>
        (db.prepare(`SELECT subject FROM ${table} ORDER BY ref_id`).all() as Array<{ subject: string }>).map((r) => r.subject);
      expect(subjects('inbound_messages')).toEqual(['inbound 0', 'inbound 1', 'inbound 2']);

      // Set over the control API: a sweep at once.
      const set = (await emu.control.setRetention({ max_messages: 2, max_age_ms: 0 })).data;
      expect(subjects('inbound_messages')).toEqual(['inbound 1', 'inbound 2']);
      expect(subjects('imap_messages')).toEqual(['imap 1', 'imap 2']);
      expect(set.pruned).toMatchObject({ copies: 0, inbound_messages: 2 });
    } finally {
      db.close();
    }
  });

  it('refuses a bad limit with a 400 naming it', async () => {
    emu = await startEmulator({ memory: true, dataDir: undefined });
    const res = await emu.request('PUT', '/emulator/store/retention', { body: { max_messages: -1 } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('max_messages');
    expect((await emu.control.getStore()).data).toMatchObject({ max_messages: 0, max_age_ms: 0 });
  });
});
