import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmulatorClock, isoTimestamp } from '../../clock';
import { type Db, loadMigrations } from '../../store/database';
import { type SnapshotMark, writeSnapshot } from '../../store/snapshot';
import { generateApiKey } from '../accounts.service';
import { type DnsRecord, dkimHost, dkimValue } from '../domains/dns-records';

export interface SnapshotDeps {
  db: Db;
  clock: EmulatorClock;
  version: string;
  /** The key that seals the mailers' passwords and tokens: a snapshot with secrets carries it. */
  mailerKey: () => Buffer;
}

/** A snapshot written to a temporary file: read it, then `remove()` it. */
export interface SavedSnapshot {
  file: string;
  mark: SnapshotMark;
  remove(): Promise<void>;
}

/**
 * Leaves the secrets out of a copy: every account gets a new API key, signing secrets go, mailers
 * lose their passwords and OAuth tokens, each sending domain gets a new DKIM key (its DKIM record
 * follows it). What is left is what the UI shows anyway.
 */
function withoutSecrets(copy: Db): void {
  const keys = copy.prepare<[string, number]>('UPDATE accounts SET api_key = ? WHERE number = ?');
  for (const { number } of copy.prepare<[], { number: number }>('SELECT number FROM accounts').all()) keys.run(generateApiKey(), number);
  copy.prepare('UPDATE accounts SET signing_secret = NULL, previous_signing_secret = NULL, previous_secret_until = NULL').run();
  copy.prepare('UPDATE mailers SET password_enc = NULL, oauth_token_enc = NULL, oauth_active = 0').run();
  const setKey = copy.prepare<[string, string, string]>('UPDATE domains SET dkim_private_key = ?, records = ? WHERE id = ?');
  const domains = copy
    .prepare<[], { id: string; domain: string; selector: string; records: string }>('SELECT id, domain, selector, records FROM domains')
    .all();
  for (const d of domains) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const host = dkimHost(d.selector, d.domain);
    const records = (JSON.parse(d.records) as DnsRecord[]).map((r) =>
      r.type === 'TXT' && r.host === host ? { ...r, value: dkimValue(publicKey.toString('base64')) } : r,
    );
    setKey.run(privateKey, JSON.stringify(records), d.id);
  }
}

/** Snapshots of the running emulator's whole state (docs/storage.md#snapshots). */
export class SnapshotService {
  constructor(private readonly deps: SnapshotDeps) {}

  /** Writes a snapshot to a temporary file while the emulator runs on. */
  async save(options: { secrets: boolean }): Promise<SavedSnapshot> {
    const dir = await mkdtemp(join(tmpdir(), 'mailyard-snapshot-'));
    const file = join(dir, 'mailyard.snapshot');
    const mark: SnapshotMark = {
      version: this.deps.version,
      schema: loadMigrations().at(-1)!.version,
      saved_at: isoTimestamp(this.deps.clock.now()),
      secrets: options.secrets,
      ...(options.secrets ? { mailer_key: this.deps.mailerKey().toString('base64') } : {}),
    };
    try {
      await writeSnapshot(this.deps.db, file, mark, options.secrets ? undefined : withoutSecrets);
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    return { file, mark, remove: () => rm(dir, { recursive: true, force: true }) };
  }
}
