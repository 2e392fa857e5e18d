import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { monotonicFactory } from 'ulid';
import { createEmulator, type EmulatorHandle } from '../../src-main/core';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { percentile, sized } from './scale';

/**
 * p95 of five typical email-log queries with 10,000 and with 1,000,000 stored messages: by refId,
 * by recipient, campaign plus status, subject (an exact match, as the real service filters), and page
 * 50 of a big campaign. Target: p95
 * at a million at most 2x p95 at ten thousand. The stores are filled directly (the send path has its
 * own benchmark); the queries go through the service, as the HTTP route calls it.
 */
const SIZES = sized([10_000, 1_000_000], [500, 2_000]);
const SAMPLES = sized(200, 20);
const STATUSES = ['delivered', 'delivered', 'delivered', 'bounced', 'sent', 'queued'];
const WORDS = ['receipt', 'welcome', 'invoice', 'reminder', 'newsletter', 'update', 'offer', 'security', 'report', 'digest'];

const subjectOf = (i: number) => `Your ${WORDS[i % WORDS.length]} #${i}`;

/**
 * Fills the store: a third of all mail in one big campaign, the rest over 100 campaigns; 50,000
 * recipients. Each row is one recipient's copy (its own id) of a one-recipient send (its ref_id).
 */
function fill(file: string, accountId: string, count: number): string[] {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const ulid = monotonicFactory();
  db.prepare("INSERT INTO message_contents (content_id, raw) VALUES ('bench', x'00')").run();
  const insert = db.prepare(
    `INSERT INTO messages (id, ref_id, account_number, content_id, source, from_email, from_name, recipient_email, recipient_lc, recipient_domain,
       recipient_name, recipient_type, subject, campaign_id, mailer_id, custom_args, status, created_ms, created_at, delivered_ms, delivered_at,
       failed_reason, priority, updated_at)
     VALUES (?, ?, (SELECT number FROM accounts WHERE id = ?), 'bench', 'api', 'app@example.com', 'App', ?, ?, ?, '', 'to', ?, ?, '', '{}', ?, ?, ?, ?, ?, '', '0', ?)`,
  );
  const refs: string[] = [];
  const start = Date.now() - count * 10;
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const ms = start + i * 10;
      const id = ulid(ms);
      const ref = ulid(ms);
      const email = `user${i % 50_000}@domain${i % 200}.test`;
      const campaign = i % 3 === 0 ? 'newsletter' : `campaign-${i % 100}`;
      const status = STATUSES[i % STATUSES.length]!;
      const iso = new Date(ms).toISOString();
      const delivered = status === 'delivered' ? new Date(ms + 1000).toISOString() : null;
      insert.run(
        id,
        ref,
        accountId,
        email,
        email,
        `domain${i % 200}.test`,
        subjectOf(i),
        campaign,
        status,
        ms,
        iso,
        delivered ? ms + 1000 : null,
        delivered,
        delivered ?? iso,
      );
      if (i % Math.max(1, Math.floor(count / 1000)) === 0) refs.push(ref);
    }
  });
  for (let i = 0; i < count; i += 50_000) batch(i, Math.min(count, i + 50_000));
  db.close();
  return refs;
}

function timeQueries(emu: EmulatorHandle, refs: string[], count: number): Record<string, number[]> {
  const { email } = emu.services;
  const account = emu.defaultAccount.id;
  const q = (query: Record<string, unknown>) => email.logs(account, { pageSize: 50, ...query } as never);
  // The token of page 49 of the big campaign, found once (the measured query is page 50).
  let token: string | undefined;
  // ("" on the last page: a smoke run's small campaign starts over.)
  for (let page = 1; page < 50; page++) token = q({ campaignId: 'newsletter', pageToken: token }).nextPageToken || undefined;
  // Each measured query finds what it looks for (a query that finds nothing measures nothing).
  const found = {
    refId: q({ refId: refs[1] }).totalCount,
    subject: q({ subject: subjectOf(7919 % count) }).totalCount,
    page50: q({ campaignId: 'newsletter', pageToken: token }).emailLogs.length,
  };
  if (found.refId !== 1 || found.subject !== 1 || found.page50 === 0) throw new Error(`the log queries found ${JSON.stringify(found)}`);
  const times: Record<string, number[]> = { refId: [], email: [], campaign_status: [], subject: [], page50: [] };
  const measure = (name: string, fn: () => unknown) => {
    const t = performance.now();
    fn();
    times[name]!.push(performance.now() - t);
  };
  for (let i = 0; i < SAMPLES; i++) {
    measure('refId', () => q({ refId: refs[i % refs.length] }));
    measure('email', () => q({ email: `user${(i * 7919) % 50_000}@domain${((i * 7919) % 50_000) % 200}.test` }));
    measure('campaign_status', () => q({ campaignId: `campaign-${i % 100}`, status: 'bounced' }));
    measure('subject', () => q({ subject: subjectOf((i * 7919) % count) }));
    measure('page50', () => q({ campaignId: 'newsletter', pageToken: token }));
  }
  return times;
}

export default async function run(): Promise<boolean> {
  const results: Record<number, Record<string, number>> = {};
  for (const size of SIZES) {
    const dir = await mkdtemp(join(tmpdir(), 'mailyard-bench-logs-'));
    try {
      // Create the schema and the account, then fill the store with the emulator stopped.
      const first = await createEmulator({ httpPort: 0, smtpPort: 0, dataDir: dir, maxMessages: 0, logLevel: 'silent', apiKey: 'bench-key-12345678' });
      const accountId = first.defaultAccount.id;
      await first.close();
      const started = performance.now();
      const refs = fill(join(dir, DATABASE_FILE), accountId, size);
      console.log(`filled ${size} messages in ${Math.round(performance.now() - started)} ms`);
      const emu = await createEmulator({ httpPort: 0, smtpPort: 0, dataDir: dir, maxMessages: 0, logLevel: 'silent' });
      try {
        timeQueries(emu, refs, size); // warm-up
        const times = timeQueries(emu, refs, size);
        const all = Object.values(times).flat();
        results[size] = Object.fromEntries([...Object.entries(times).map(([k, v]) => [k, percentile(v, 95)]), ['all', percentile(all, 95)]]);
      } finally {
        await emu.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const small = results[SIZES[0]!]!;
  const large = results[SIZES[1]!]!;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  for (const name of Object.keys(small)) {
    console.log(`${name.padEnd(16)} p95 ${round(small[name]!)} ms at 10k, ${round(large[name]!)} ms at 1M: ${round(large[name]! / small[name]!)}x`);
  }
  const ratio = round(large.all! / small.all!);
  const figures = {
    bench: 'logs',
    samples_per_query: SAMPLES,
    p95_ms_10k: Object.fromEntries(Object.entries(small).map(([k, v]) => [k, round(v)])),
    p95_ms_1m: Object.fromEntries(Object.entries(large).map(([k, v]) => [k, round(v)])),
    ratio_all: ratio,
    target: 2,
    pass: ratio <= 2,
  };
  console.log(`all five:        ratio ${ratio} (target <= 2)`);
  console.log(JSON.stringify(figures));
  return figures.pass;
}
