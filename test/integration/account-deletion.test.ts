import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { ServiceClient } from '../../src-shared/clients';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { closedAfterEachTest } from '../helpers/deliveries';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { storeTables, withForeignKeyTables } from '../helpers/owned-tables';
import { startRelayTarget } from '../helpers/relay-target';
import { whenIndexed } from '../helpers/search';

let emu: TestEmulator | undefined;
const { closers, receiver } = closedAfterEachTest(async () => {
  await emu?.cleanup();
  emu = undefined;
});

/** A second account and its service client. */
async function account(e: TestEmulator, name: string) {
  const record = (await e.control.createAccount({ name })).data;
  return { record, service: new ServiceClient({ baseUrl: e.url, apiKey: record.api_key }) };
}

function send(service: ServiceClient, to: string[], subject: string, extra: Record<string, unknown> = {}) {
  return service.sendEmail({
    from: { email: 'app@example.com' },
    to: to.map((email) => ({ email })),
    subject,
    content: [{ type: 'text/html', value: `<p>${subject} <a href="https://example.com/x">link</a></p>` }],
    ...extra,
  } as never);
}

const allEvents = Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true]));

/**
 * The tables whose rows belong to an account, read from the schema as a person would: a table with
 * an `account_id` column, or one with a foreign key to the accounts or such a table, at any depth.
 */
function ownedTables(db: Database.Database): Map<string, string> {
  const owned = new Map<string, string>([['accounts', 'id = ?']]);
  for (const t of storeTables(db)) {
    const cols = db.prepare(`SELECT name FROM pragma_table_info('${t}')`).all() as { name: string }[];
    if (t !== 'accounts' && cols.some((c) => c.name === 'account_id')) owned.set(t, 'account_id = ?');
  }
  return withForeignKeyTables(db, owned);
}

function countsOf(db: Database.Database, owned: Map<string, string>, accountId: string): Record<string, number> {
  return Object.fromEntries(
    [...owned].map(([t, where]) => [t, (db.prepare(`SELECT COUNT(*) AS n FROM ${t} WHERE ${where}`).get(accountId) as { n: number }).n]),
  );
}

/** The live stream's announcements of one kind while `act` runs (read until `count` came, at most 5 s). */
async function announced(e: TestEmulator, event: 'account.created' | 'account.deleted', count: number, act: () => Promise<unknown>): Promise<unknown[]> {
  const controller = new AbortController();
  const res = await fetch(`${e.url}/emulator/stream`, { signal: controller.signal });
  const reader = res.body!.getReader();
  await act();
  let text = '';
  const found = () => text.split('\n\n').filter((block) => block.startsWith(`event: ${event}\n`));
  const deadline = Date.now() + 5_000;
  while (found().length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  controller.abort();
  return found().map((block) => JSON.parse(block.split('\n')[1]!.slice(6)));
}

describe('DELETE /emulator/accounts/{id}', () => {
  it('removes every row of the account in every table that holds account data, and nothing of another account', async () => {
    emu = await startEmulator({ retrySchedule: [3_600_000] });
    const hooks = await receiver();
    hooks.status = 500;
    const gone = await account(emu, 'scenario: to remove');
    const kept = await account(emu, 'Kept');
    const smtpServer = await startRelayTarget();
    closers.push(() => smtpServer.close());
    const db = new Database(join(emu.dataDir, DATABASE_FILE));
    closers.push(async () => void db.close());

    // An event an hour ahead for one recipient: a scheduled event still waiting at the deletion.
    await emu.control.setRules({ rules: [{ pattern: '*@later.example', events: [{ event: 'open', delay_ms: 3_600_000 }] }] } as never);
    // Data of every kind, for both accounts (the same calls with each key).
    for (const { record, service } of [gone, kept]) {
      await service.registerWebhook({ webhook_url: hooks.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: allEvents } } as never);
      await service.addDomain({ domain: `mail-${record.id.toLowerCase()}.example.com` });
      await service.verifyDomain(`mail-${record.id.toLowerCase()}.example.com`).catch(() => undefined);
      const domain = `in-${record.id.toLowerCase()}.example`;
      await service.configureInboundRouting({ domain, url: hooks.url, method: 'POST' });
      await service.createInboundUsername({ domain, username: 'support', url: hooks.url });
      await emu.control.simulateInbound({
        account_id: record.id,
        from: { email: 'someone@example.net' },
        to: [`support@${domain}`],
        subject: 'in',
        text: 'hello',
      });
      const smtp = (
        await service.configureSMTP({
          name: 'Relay',
          email: 'relay@example.com',
          config_type: 'smtp',
          connection_type: 'basic',
          config: { host: '127.0.0.1', port: smtpServer.port, secure: 'None' },
        } as never)
      ).data as { mailer_id: string };
      await service.oauthLogin({ app_id: 'app', mailer_id: smtp.mailer_id } as never).catch(() => undefined);
      await service.createTemplate({ name: 'T', subject: 'S', content: [{ type: 'text/html', value: '<p>x</p>' }] } as never);
      await service.unsubscribeEmail({ email: 'gone@example.org' });
      const catcher = (await emu.control.createCatcher({ account_id: record.id })).data;
      await fetch(catcher.url, { method: 'POST', body: '{}' });
      // Two recipients share one composed content; tracking gives tokens and links.
      await send(service, ['ann@example.org', 'bob@example.org', 'cy@later.example'], `hello ${record.name}`, {
        settings: { open_tracking: { enable: true }, click_tracking: { enable: true }, unsubscribe: { enable: true } },
      });
    }
    // Each account's copies got their first events (recorded, and posted to its webhook).
    const eventsOf = db.prepare(
      'SELECT COUNT(*) AS n FROM message_events WHERE message_id IN (SELECT id FROM messages WHERE account_number = (SELECT number FROM accounts WHERE id = ?))',
    );
    await expect.poll(() => [gone, kept].every(({ record }) => (eventsOf.get(record.id) as { n: number }).n > 0)).toBe(true);
    const keptMessages = (await emu.control.listMessages({ account_id: kept.record.id } as never)).data.messages;
    const goneMessages = (await emu.control.listMessages({ account_id: gone.record.id } as never)).data.messages;
    for (const m of [...keptMessages, ...goneMessages]) await emu.control.setMessageTags(m.id, { tags: ['t'] } as never);

    // Rows no public call makes without a real IMAP server or OAuth provider: written as the emulator would.
    for (const { record } of [gone, kept]) {
      const mailer = db.prepare('SELECT id FROM mailers WHERE account_id = ?').get(record.id) as { id: string };
      const copy = db.prepare('SELECT id FROM messages WHERE account_number = (SELECT number FROM accounts WHERE id = ?)').get(record.id) as { id: string };
      db.prepare(
        `INSERT INTO imap_messages (ref_id, mailer_id, account_id, uidvalidity, uid, message_id, from_email, subject, raw, created_ms, created_at)
         VALUES (?, ?, ?, 1, 1, '<m@x>', 'a@x', 's', x'00', 0, '')`,
      ).run(`imap-${record.id}`, mailer.id, record.id);
      db.prepare('INSERT INTO mailer_relays (message_id, mailer_id, queued_ms) VALUES (?, ?, 0)').run(copy.id, mailer.id);
      db.prepare("INSERT OR IGNORE INTO oauth_requests (state, account_id, app_id, status, created_ms, expires_ms) VALUES (?, ?, 'app', 'pending', 0, 0)").run(
        `state-${record.id}`,
        record.id,
      );
    }

    const owned = ownedTables(db);
    const goneBefore = countsOf(db, owned, gone.record.id);
    const keptBefore = countsOf(db, owned, kept.record.id);
    // A table that holds account data gets rows here: one a later migration adds fails this until the test makes some.
    for (const [table, n] of Object.entries(goneBefore)) expect(n, `rows of ${table} for the account before the deletion`).toBeGreaterThan(0);

    const res = await emu.control.deleteAccount(gone.record.id);
    expect(res.data).toMatchObject({
      account_id: gone.record.id,
      name: 'scenario: to remove',
      removed: { messages: 3, webhooks: 1, domains: 1, mailers: 1, inbound_domains: 1, inbound_usernames: 1, templates: 1, suppressions: 1, catchers: 1 },
    });
    expect(res.data.removed.deliveries).toBe(goneBefore.deliveries);

    for (const [table, n] of Object.entries(countsOf(db, owned, gone.record.id))) expect(n, `rows of ${table} for the deleted account`).toBe(0);
    expect(countsOf(db, owned, kept.record.id)).toEqual(keptBefore);
    // What copies share goes with the last copy using it; nothing is left that no copy uses.
    const orphans = {
      contents: 'SELECT COUNT(*) AS n FROM message_contents WHERE content_id NOT IN (SELECT content_id FROM messages)',
      links: 'SELECT COUNT(*) AS n FROM tracked_links WHERE links_of NOT IN (SELECT links_of FROM tracking_tokens WHERE links_of IS NOT NULL)',
      pending: 'SELECT COUNT(*) AS n FROM search_pending WHERE message_rowid NOT IN (SELECT rowid FROM messages)',
      words: 'SELECT COUNT(*) AS n FROM message_search WHERE rowid NOT IN (SELECT rowid FROM messages)',
      addresses: 'SELECT COUNT(*) AS n FROM message_addresses WHERE rowid NOT IN (SELECT rowid FROM messages)',
    };
    for (const [what, sql] of Object.entries(orphans)) expect((db.prepare(sql).get() as { n: number }).n, `${what} left without a copy`).toBe(0);
    expect((db.prepare('SELECT COUNT(*) AS n FROM tracked_links').get() as { n: number }).n).toBeGreaterThan(0);

    // The other account's copies read whole, its key works; the deleted key no longer does.
    for (const m of keptMessages) expect((await emu.request('GET', `/emulator/messages/${m.id}/raw`)).text).toContain(`hello Kept`);
    expect((await kept.service.getEmailLogs()).emailLogs).toHaveLength(3);
    await expect(gone.service.getEmailLogs()).rejects.toMatchObject({ status: 401 });
    expect((await emu.control.listAccounts()).data.map((a) => a.id)).not.toContain(gone.record.id);
  });

  it('never sends a delivery of the deleted account afterwards: a retry pending at the deletion is not attempted when it falls due', async () => {
    emu = await startEmulator({ retrySchedule: [60_000] });
    const hooks = await receiver();
    // The first attempt fails, so a retry waits a minute of emulator time.
    hooks.status = 500;
    const gone = await account(emu, 'Gone');
    await gone.service.registerWebhook({ webhook_url: hooks.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: allEvents } } as never);
    await send(gone.service, ['ann@example.org'], 'retry me');
    await hooks.waitFor(1);
    // Its failure recorded: pending again, a retry scheduled.
    await expect
      .poll(async () => (await emu!.control.listDeliveries({ account_id: gone.record.id } as never)).data.deliveries.map((d) => [d.status, d.attempts]))
      .toContainEqual(['pending', 1]);
    const seen = hooks.requests.length;

    await emu.control.deleteAccount(gone.record.id);
    hooks.status = 200;
    // Past the retry's time: the clock's move settles every due delivery before it answers.
    await emu.control.setClock({ advance_ms: 3_600_000 });
    // A delivery of a live account goes out after it: the dispatcher is running, the deleted one's did not.
    await emu.registerEmailWebhook(hooks.url);
    await send(emu.service, ['cy@example.org'], 'still sent');
    const after = await hooks.waitFor(seen + 1);
    expect(after.slice(seen).every((r) => r.body.includes('still sent') || !r.body.includes('retry me'))).toBe(true);
    expect(hooks.requests.slice(seen).some((r) => r.body.includes('retry me'))).toBe(false);
    expect((await emu.control.countDeliveries({ account_id: gone.record.id } as never)).data.count).toBe(0);
  });

  it('waits for an attempt on the wire to end, records nothing of it, and never retries it', async () => {
    emu = await startEmulator({ retrySchedule: [1_000], deliveryTimeoutMs: 1_000 });
    const hooks = await receiver();
    // The deleted account's first request is never answered: it is on the wire when the deletion comes.
    hooks.answer = (req) => (req.body.includes('on the wire') ? 'hang' : 200);
    const gone = await account(emu, 'Gone');
    await gone.service.registerWebhook({ webhook_url: hooks.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: allEvents } } as never);
    await send(gone.service, ['ann@example.org'], 'on the wire');
    await hooks.waitFor(1);

    const res = await emu.control.deleteAccount(gone.record.id);
    expect(res.data.removed.deliveries).toBeGreaterThan(0);
    const seen = hooks.requests.length;
    await emu.control.setClock({ advance_ms: 60_000 });
    await emu.registerEmailWebhook(hooks.url);
    await send(emu.service, ['cy@example.org'], 'still sent');
    await hooks.waitFor(seen + 1);
    expect(hooks.requests.slice(seen).some((r) => r.body.includes('on the wire'))).toBe(false);
    expect((await emu.control.countDeliveries({ account_id: gone.record.id } as never)).data.count).toBe(0);
  });

  it("takes the account's mail out of the search; another account's mail is still found", async () => {
    emu = await startEmulator();
    const gone = await account(emu, 'Gone');
    const kept = await account(emu, 'Kept');
    await send(gone.service, ['ann@example.org'], 'zebra gone');
    await send(kept.service, ['bob@example.org'], 'zebra kept');
    const before = await whenIndexed(() => emu!.control.listMessages({ q: 'zebra' } as never));
    expect(before.data.messages).toHaveLength(2);

    await emu.control.deleteAccount(gone.record.id);
    const after = await whenIndexed(() => emu!.control.listMessages({ q: 'zebra' } as never));
    expect(after.data.messages.map((m) => m.subject)).toEqual(['zebra kept']);
  });

  it('announces each created and each deleted account on the live stream, and each account a reset removes', async () => {
    emu = await startEmulator();
    let one: Awaited<ReturnType<typeof account>> | undefined;
    const created = await announced(emu, 'account.created', 1, async () => {
      one = await account(emu!, 'One');
    });
    expect(created).toEqual([one!.record]);
    const two = await account(emu, 'Two');
    expect(await announced(emu, 'account.deleted', 1, () => emu!.control.deleteAccount(one!.record.id))).toEqual([{ account_id: one!.record.id, name: 'One' }]);
    expect(await announced(emu, 'account.deleted', 1, () => emu!.control.resetEmulator())).toEqual([{ account_id: two.record.id, name: 'Two' }]);
  });

  it('refuses the default account (409) and an unknown id (404), in the error shape', async () => {
    emu = await startEmulator();
    const own = await emu.request('DELETE', `/emulator/accounts/${emu.handle.defaultAccount.id}`);
    expect(own.status).toBe(409);
    expect(own.json).toMatchObject({ success: false, error: expect.stringMatching(/default account cannot be deleted/) });
    const unknown = await emu.request('DELETE', '/emulator/accounts/NOPE');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ success: false, error: 'Account Not Found' });
    expect((await emu.control.listAccounts()).data).toHaveLength(1);
  });

  it('refuses the --api-key account (a CI job keeps its key) and the account of a scenario run under way (409)', async () => {
    const first = await startEmulator();
    const ci = (await first.control.createAccount({ name: 'CI', api_key: 'mly_ci_key_for_deletion_tests_1' })).data;
    await first.stop();
    emu = await startEmulator({ apiKey: ci.api_key }, {}, first.dataDir);
    closers.push(() => import('node:fs/promises').then((fs) => fs.rm(first.dataDir, { recursive: true, force: true })));
    const keyed = await emu.request('DELETE', `/emulator/accounts/${ci.id}`);
    expect(keyed.status).toBe(409);
    expect(keyed.json.error).toMatch(/--api-key cannot be deleted/);

    const hooks = await receiver();
    const scenario = `version: 1\nname: Long\nduration: 1h\nwebhook: { url: ${hooks.url} }\ntraffic: { count: 100000, rate: 1/s, subject: Hi, html: <p>Hi</p>, to: "u{n}@example.test" }\n`;
    const run = (await emu.control.startScenarioRun({ source: scenario })).data;
    await expect.poll(async () => (await emu!.control.getScenarioRun(run.id)).data.accountId).not.toBe('');
    const accountId = (await emu.control.getScenarioRun(run.id)).data.accountId;
    const busy = await emu.request('DELETE', `/emulator/accounts/${accountId}`);
    expect(busy.status).toBe(409);
    expect(busy.json.error).toContain(run.id);
    await emu.control.stopScenarioRun(run.id);
    await expect.poll(async () => (await emu!.control.getScenarioRun(run.id)).data.status, { timeout: 20_000 }).toBe('stopped');
    // Once it has ended, its account goes; the run's record stays, still naming it.
    expect((await emu.control.deleteAccount(accountId)).data.account_id).toBe(accountId);
    expect((await emu.control.getScenarioRun(run.id)).data.accountId).toBe(accountId);
  });
});
