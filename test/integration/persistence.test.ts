import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, loadMigrations } from '../../src-main/core/store/database';
import { startEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

let dir: string;
let receiver: Receiver;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailyard-persist-'));
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the store survives a restart', () => {
  it('keeps accounts, keys and webhooks in the same data directory', async () => {
    const first = await startEmulator({}, {}, dir);
    const key = first.apiKey;
    await first.service.registerWebhook({
      webhook_url: receiver.url,
      event: 'EMAIL_EVENT',
      method: 'PATCH',
      headers: { 'X-Secret': 'abc' },
      webhook_options: { events: { click: true } },
    });
    const second = (await first.control.createAccount({ name: 'Second' })).data;
    await first.stop();

    const again = await startEmulator({}, {}, dir);
    try {
      expect(again.apiKey).toBe(key);
      expect((await again.control.listAccounts()).data.map((a) => a.api_key)).toEqual([key, second.api_key]);
      const hooks = (await again.service.listWebhooks()).data;
      expect(hooks).toHaveLength(1);
      expect(hooks[0]).toMatchObject({ method: 'PATCH', headers: { 'X-Secret': 'abc' } });
      expect(hooks[0]!.webhook_options!.events.click).toBe(true);
    } finally {
      await again.stop();
    }
  });

  it("keeps a send: its one ref_id, each recipient's copy under its own id, the log entries and their events", async () => {
    const first = await startEmulator({}, {}, dir);
    await first.control.setClock({ speed: 0 });
    const { ref_id } = await first.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'delivered@sim.mailyard.test' }],
      cc: [{ email: 'bounce@sim.mailyard.test' }],
      subject: 'Kept',
      content: [{ type: 'text/plain', value: 'still here' }],
    });
    await first.control.setClock({ advance_ms: 60_000 });
    await new Promise((r) => setTimeout(r, 200));
    const copies = (await first.control.listMessages({ q: ref_id })).data.messages;
    expect(copies).toHaveLength(2);
    await first.stop();

    const again = await startEmulator({}, {}, dir);
    try {
      const kept = (await again.control.listMessages({ q: ref_id })).data.messages;
      expect(kept).toEqual(copies);
      expect(kept.map((m) => [m.recipient.email, m.ref_id, m.status])).toEqual([
        ['bounce@sim.mailyard.test', ref_id, 'bounced'],
        ['delivered@sim.mailyard.test', ref_id, 'delivered'],
      ]);
      const raw = await (await fetch(`${again.url}/emulator/messages/${kept[1]!.id}/raw`)).text();
      expect(raw).toContain('still here');
      const logs = (await again.service.getEmailLogs({ refId: ref_id })).emailLogs;
      expect(logs.map((l) => [l.recipientAddress, l.recipientType, l.status, Object.keys(l.track)])).toEqual([
        ['bounce@sim.mailyard.test', 'cc', 'bounced', ['bounce']],
        ['delivered@sim.mailyard.test', 'to', 'delivered', ['delivery']],
      ]);
    } finally {
      await again.stop();
    }
  });

  it('--api-key: the first start gives the default account that key; a later one adds an account', async () => {
    const first = await startEmulator({ apiKey: 'ci-key-aaaaaaaa' }, {}, dir);
    expect(first.apiKey).toBe('ci-key-aaaaaaaa');
    await first.stop();

    const second = await startEmulator({ apiKey: 'ci-key-bbbbbbbb' }, {}, dir);
    const accounts = (await second.control.listAccounts()).data;
    expect(accounts.map((a) => [a.api_key, a.is_default])).toEqual([
      ['ci-key-aaaaaaaa', true],
      ['ci-key-bbbbbbbb', false],
    ]);
    await second.stop();

    // Starting again with a key that exists adds nothing.
    const third = await startEmulator({ apiKey: 'ci-key-bbbbbbbb' }, {}, dir);
    expect((await third.control.listAccounts()).data).toHaveLength(2);
    await third.stop();
  });

  it('records each migration once, in WAL mode', async () => {
    const emu = await startEmulator({}, {}, dir);
    await emu.stop();
    const again = await startEmulator({}, {}, dir);
    await again.stop();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    try {
      const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
      // Every migration file, once each, in order (0001-accounts-webhooks.sql is version 1, ...).
      expect(rows).toEqual(loadMigrations().map((m) => ({ version: m.version, name: m.name })));
      expect(rows.slice(0, 5)).toEqual([
        { version: 1, name: 'accounts-webhooks' },
        { version: 2, name: 'deliveries' },
        { version: 3, name: 'messages' },
        { version: 4, name: 'inbound' },
        { version: 5, name: 'domains' },
      ]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('refuses a database written by a newer Mailyard, and leaves it untouched', async () => {
    const emu = await startEmulator({}, {}, dir);
    await emu.stop();
    const db = new Database(join(dir, DATABASE_FILE));
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '2030-01-01T00:00:00.000Z')").run();
    db.close();
    await expect(startEmulator({}, {}, dir)).rejects.toThrow(/schema version 99, newer than this Mailyard knows/);
  });

  it('--memory writes nothing to disk and starts empty each time', async () => {
    const a = await startEmulator({ memory: true, dataDir: undefined });
    expect(a.handle.dataDir).toBeNull();
    expect((await a.control.getHealth()).data.data_dir).toBeNull();
    const keyA = a.apiKey;
    await a.cleanup();
    const b = await startEmulator({ memory: true, dataDir: undefined });
    expect(b.apiKey).not.toBe(keyA);
    await b.cleanup();
  });
});
