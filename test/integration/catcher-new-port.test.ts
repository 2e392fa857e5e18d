/**
 * A webhook that points at one of this Mailyard's catchers follows the catcher wherever the listener
 * is: a data directory started again on another HTTP port (a copy, a restored snapshot) delivers to
 * its catchers, and the webhook's `webhook_url` is the URL that works now. Real emulators on a data
 * directory, real HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, loadMigrations, migrate } from '../../src-main/core/store/database';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { deliveryHelpers } from '../helpers/deliveries';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

let emu: TestEmulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});
const { attemptsOf } = deliveryHelpers(() => emu!);

const port = (url: string) => new URL(url).port;
const webhookUrls = async (on: TestEmulator) => (await on.service.listWebhooks()).data.map((h) => h.webhook_url);

describe('a webhook pointing at a catcher, started on another port', () => {
  it('follows the catcher: the next event and a retry scheduled before the move arrive at it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailyard-move-'));
    const first = await startEmulator({}, {}, dir);
    emu = first;
    const catcher = (await first.control.createCatcher({ mode: { status: 500 } })).data;
    await first.control.pointWebhookAtCatcher(catcher.id);
    await first.control.setClock({ speed: 0 });
    // Answered 500: its retry is scheduled 5 s later on the emulator clock, and waits through the move.
    const pending = (await first.control.fireEvent({ event: 'delivery', recipient: 'ann@example.com' })).data.delivery_id!;
    await attemptsOf(pending, 1);
    await first.control.updateCatcher(catcher.id, { mode: {} });
    await first.stop();

    // The same data directory on another port (the first one's is held, so it cannot be reused).
    const holder = await startEmulator({ httpPort: Number(port(first.url)) }).catch(() => undefined);
    const second = await startEmulator({}, {}, dir);
    emu = second;
    await holder?.cleanup();
    expect(port(second.url)).not.toBe(port(first.url));
    const moved = (await second.control.getCatcher(catcher.id)).data.url;
    expect(moved).toBe(`${second.url}/catch/${catcher.id}`);
    // The public API shows the URL that works now.
    expect(await webhookUrls(second)).toEqual([moved]);

    const next = (await second.control.fireEvent({ event: 'open', recipient: 'ann@example.com' })).data.delivery_id!;
    expect((await attemptsOf(next, 1)).attempt_log[0]).toMatchObject({ outcome: 'succeeded', request: { url: moved } });
    // (A restart runs the clock again from its saved offset: the retry may be due already.)
    await second.control.setClock({ advance_ms: 5_000 });
    const retried = await attemptsOf(pending, 2);
    expect(retried.attempt_log.map((a) => [a.request.url, a.response?.status ?? a.error?.code])).toEqual([
      [`${first.url}/catch/${catcher.id}`, 500],
      [moved, 200],
    ]);
    const caught = (await second.control.listCatcherRequests(catcher.id, {})).data.requests;
    expect(caught.map((r) => `${r.delivery_id} ${r.attempt}`).sort()).toEqual([`${next} 1`, `${pending} 1`, `${pending} 2`].sort());
  });

  it('follows it in a data directory of the Mailyard before, which stored the URL with its port', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailyard-old-'));
    const before = loadMigrations().findIndex((m) => m.name === 'webhook-catcher-path');
    expect(before).toBeGreaterThan(0);
    const db = new Database(join(dir, DATABASE_FILE));
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    migrate(db, loadMigrations().slice(0, before));
    const at = new Date().toISOString();
    db.prepare('INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES (?, ?, ?, 1, ?)').run(
      '01AAAAAAAAAAAAAAAAAAAAAAAA',
      'Default',
      'old-default-key-0123',
      at,
    );
    db.prepare('INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES (?, ?, ?, 0, ?)').run(
      '01BBBBBBBBBBBBBBBBBBBBBBBB',
      'Shop',
      'old-shop-key-0123456',
      at,
    );
    const catcherId = '01CCCCCCCCCCCCCCCCCCCCCCCC';
    db.prepare("INSERT INTO catchers (id, account_id, name, mode, received, created_at) VALUES (?, ?, 'demo', '{}', 0, ?)").run(
      catcherId,
      '01AAAAAAAAAAAAAAAAAAAAAAAA',
      at,
    );
    const webhook = db.prepare(
      "INSERT INTO webhooks (id, account_id, event, url, method, headers, events, created_at, updated_at) VALUES (?, ?, 'EMAIL_EVENT', ?, 'POST', '{}', ?, ?, ?)",
    );
    const events = JSON.stringify(Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true])));
    // The catcher's URL on the port it had (nothing listens on port 1); another account's receiver elsewhere on loopback.
    webhook.run('01DDDDDDDDDDDDDDDDDDDDDDDD', '01AAAAAAAAAAAAAAAAAAAAAAAA', `http://127.0.0.1:1/catch/${catcherId}`, events, at, at);
    webhook.run('01EEEEEEEEEEEEEEEEEEEEEEEE', '01BBBBBBBBBBBBBBBBBBBBBBBB', 'http://127.0.0.1:1/hooks', events, at, at);
    db.close();

    emu = await startEmulator({}, {}, dir);
    expect(await webhookUrls(emu)).toEqual([`${emu.url}/catch/${catcherId}`]);
    const id = (await emu.control.fireEvent({ event: 'delivery', recipient: 'ann@example.com' })).data.delivery_id!;
    expect((await attemptsOf(id, 1)).status).toBe('succeeded');
    expect((await emu.control.listCatcherRequests(catcherId, {})).data.requests.map((r) => r.delivery_id)).toEqual([id]);
    // A URL that is no catcher of this store stays as it was set.
    const shop = (await emu.control.listAccounts()).data.find((a) => a.name === 'Shop')!;
    const shopHooks = await emu.request('GET', '/v1/webhook', { apiKey: shop.api_key });
    expect(shopHooks.json.data.map((h: { webhook_url: string }) => h.webhook_url)).toEqual(['http://127.0.0.1:1/hooks']);
  });
});
