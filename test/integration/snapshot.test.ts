import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src-main/cli/index';
import { loadMigrations, migrate } from '../../src-main/core/store/database';
import { ServiceClient } from '../../src-shared/clients';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

const running: TestEmulator[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const e of running.splice(0)) await e.cleanup();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function start(...args: Parameters<typeof startEmulator>): Promise<TestEmulator> {
  const e = await startEmulator(...args);
  running.push(e);
  return e;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mailyard-snap-'));
  dirs.push(dir);
  return dir;
}

/** `mailyard ...` in this process: its exit status and what it printed. */
async function cli(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, stopSignal: () => new Promise(() => {}) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

const sha = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

/** A running emulator with mail (over SMTP and the API), a webhook, a second account with its key and signing secret, a domain and a mailer with a password. */
async function populated() {
  // AUTH required: the mailer below logs in to this sink with its password (an API key of it).
  const emu = await start({ smtpAuth: 'required' });
  // The webhook posts to a catcher of the emulator's own (its URL follows the port of each start).
  const catcher = (await emu.control.createCatcher({ account_id: emu.handle.defaultAccount.id })).data;
  await emu.registerEmailWebhook(catcher.url);
  const second = (await emu.control.createAccount({ name: 'QA' })).data;
  await emu.control.setSigningSecret(second.id, { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` } as never);
  const qa = new ServiceClient({ baseUrl: emu.url, apiKey: second.api_key });
  await qa.addDomain({ domain: 'shop.example.com' });
  const mailer = (
    (await qa.configureSMTP({
      name: 'Relay',
      email: 'relay@example.com',
      config_type: 'smtp',
      connection_type: 'basic',
      config: { host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: 'None', username: 'u', password: emu.apiKey },
    } as never)) as { data: { mailer_id: string } }
  ).data;
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, auth: { user: 'app', pass: emu.apiKey } });
  await transport.sendMail({ from: 'app@example.com', to: 'ann@example.org', subject: 'over smtp', text: 'hello from smtp' });
  await qa.sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email: 'bob@example.org' }],
    subject: 'over the api',
    content: [{ type: 'text/plain', value: 'hi' }],
  } as never);
  return { emu, second, mailerId: mailer.mailer_id };
}

async function stateOf(emu: TestEmulator) {
  const messages = (await emu.control.listMessages({} as never)).data.messages.map((m) => [m.id, m.subject, m.account_id]);
  const accounts = (await emu.control.listAccounts()).data.map((a) => ({ name: a.name, api_key: a.api_key, signing_secret: a.signing_secret }));
  const webhooks = await emu.request('GET', '/v1/webhook');
  // A webhook at a catcher follows the port of each start: compared with the emulator's own URL taken out.
  return { messages, accounts, webhooks: JSON.parse(JSON.stringify(webhooks.json).replaceAll(emu.url, 'EMULATOR')) };
}

describe('snapshots', () => {
  it('a snapshot saved from a running emulator opens with --from-snapshot (in memory and into a data directory) with the same mail, webhook and keys; the file is untouched', async () => {
    const { emu, second, mailerId } = await populated();
    const before = await stateOf(emu);
    expect(before.messages).toHaveLength(2);
    const file = join(await tempDir(), 'demo.snapshot');

    const saved = await cli('snapshot', 'save', file, '--url', emu.url);
    expect(saved).toMatchObject({ status: 0, err: '' });
    expect(saved.out).toContain(`to ${file}`);
    const hash = await sha(file);
    // The emulator goes on: mail after the snapshot is not in it.
    await emu.service.sendEmail({
      from: { email: 'a@example.com' },
      to: [{ email: 'later@example.org' }],
      subject: 'after',
      content: [{ type: 'text/plain', value: 'x' }],
    } as never);

    const fromMemory = await start({ memory: true, dataDir: undefined, fromSnapshot: file });
    expect(await stateOf(fromMemory)).toEqual(before);
    // The key works, and the mail reads whole.
    const qa = new ServiceClient({ baseUrl: fromMemory.url, apiKey: second.api_key });
    expect((await qa.getEmailLogs()).emailLogs.map((l) => l.subject)).toEqual(['over the api']);
    const smtpCopy = before.messages.find((m) => m[1] === 'over smtp')!;
    expect((await fromMemory.request('GET', `/emulator/messages/${smtpCopy[0]}/raw`)).text).toContain('hello from smtp');
    // The mailer's password opens with the snapshot's key: it logs in to the first emulator's sink.
    expect((await fromMemory.control.testMailer(mailerId)).data).toMatchObject({ ok: true });

    const dir = join(await tempDir(), 'restored');
    const fromDir = await start({ fromSnapshot: file }, {}, dir);
    expect(await stateOf(fromDir)).toEqual(before);
    expect(await sha(file)).toBe(hash);
    // It is a store now, not a snapshot (its mark and the mailers' key are not in it).
    await fromDir.stop();
    const db = new Database(join(dir, 'mailyard.db'), { readonly: true });
    expect(db.prepare("SELECT COUNT(*) FROM emulator_state WHERE key = 'snapshot'").pluck().get()).toBe(0);
    db.close();
  });

  it('--without-secrets leaves out the keys, signing secrets, DKIM keys and mailer passwords; the mail and webhooks stay', async () => {
    const { emu, second } = await populated();
    const before = await stateOf(emu);
    const file = join(await tempDir(), 'shared.snapshot');
    expect((await cli('snapshot', 'save', file, '--url', emu.url, '--without-secrets')).status).toBe(0);
    const db = new Database(file, { readonly: true });
    const text = JSON.stringify([
      db.prepare('SELECT api_key, signing_secret, previous_signing_secret FROM accounts').all(),
      db.prepare('SELECT dkim_private_key FROM domains').all(),
      db.prepare('SELECT password_enc, oauth_token_enc FROM mailers').all(),
      db.prepare('SELECT value FROM emulator_state').all(),
    ]);
    const liveDkim = new Database(join(emu.dataDir, 'mailyard.db'), { readonly: true });
    const dkim = liveDkim.prepare('SELECT dkim_private_key FROM domains').pluck().get() as string;
    liveDkim.close();
    db.close();
    for (const secret of [emu.apiKey, second.api_key, 'whsec_', dkim, 'mailer_key']) expect(text).not.toContain(secret);
    expect(text).not.toContain('"password_enc":{');

    const restored = await start({ memory: true, dataDir: undefined, fromSnapshot: file });
    const after = await stateOf(restored);
    expect(after.messages).toEqual(before.messages);
    expect(after.accounts.map((a) => [a.name, a.signing_secret])).toEqual(before.accounts.map((a) => [a.name, null]));
    expect(after.accounts.every((a) => /^mly_/.test(a.api_key) && !before.accounts.some((b) => b.api_key === a.api_key))).toBe(true);
  });

  it('refuses a file that is not a snapshot, one from a newer Mailyard, and a data directory that holds a store, each in words', async () => {
    const dir = await tempDir();
    const text = join(dir, 'notes.txt');
    await writeFile(text, 'hello');
    await expect(start({ memory: true, dataDir: undefined, fromSnapshot: text })).rejects.toThrow(
      `${text} is not a Mailyard snapshot (not an SQLite database)`,
    );
    const plain = join(dir, 'plain.db');
    new Database(plain).exec('CREATE TABLE t (x)');
    await expect(start({ memory: true, dataDir: undefined, fromSnapshot: plain })).rejects.toThrow(
      'is not a Mailyard snapshot (a database, but not one saved by mailyard snapshot save)',
    );
    await expect(start({ memory: true, dataDir: undefined, fromSnapshot: join(dir, 'missing') })).rejects.toThrow('no such file');

    const emu = await start();
    const file = join(dir, 'snap');
    expect((await cli('snapshot', 'save', file, '--url', emu.url)).status).toBe(0);
    const newer = join(dir, 'newer');
    await writeFile(newer, await readFile(file));
    const db = new Database(newer);
    const mark = JSON.parse(db.prepare("SELECT value FROM emulator_state WHERE key = 'snapshot'").pluck().get() as string);
    db.prepare("UPDATE emulator_state SET value = ? WHERE key = 'snapshot'").run(JSON.stringify({ ...mark, version: '9.0.0', schema: 999 }));
    db.close();
    await expect(start({ memory: true, dataDir: undefined, fromSnapshot: newer })).rejects.toThrow(
      /was saved by a newer Mailyard \(9\.0\.0, schema 999\); this one \(schema \d+\) cannot open it/,
    );
    // A data directory with a store is never overwritten.
    await expect(start({ fromSnapshot: file }, {}, emu.dataDir)).rejects.toThrow(/already holds one: give an empty --data-dir, or --memory/);

    expect(await cli('snapshot', 'save', file)).toMatchObject({ status: 2, err: expect.stringContaining('--url is required') });
  });

  it('upgrades a snapshot of an older schema as it opens, as a data directory is', async () => {
    const file = join(await tempDir(), 'old.snapshot');
    const migrations = loadMigrations();
    const old = new Database(file);
    migrate(old, migrations.slice(0, -3));
    old
      .prepare(
        "INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'mly_old-key-0123456789', 1, '2026-01-01T00:00:00.000Z')",
      )
      .run();
    const mark = { version: '0.0.9', schema: migrations.length - 3, saved_at: new Date().toISOString(), secrets: true };
    old.prepare("INSERT INTO emulator_state (key, value) VALUES ('snapshot', ?)").run(JSON.stringify(mark));
    old.close();
    const emu = await start({ memory: true, dataDir: undefined, fromSnapshot: file });
    expect((await emu.control.listAccounts()).data.map((a) => a.api_key)).toEqual(['mly_old-key-0123456789']);
    expect(await emu.control.getStore()).toMatchObject({ data: { messages: 0 } });
  });
});
