import { copyFile, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createEmulator, type EmulatorHandle } from '../../src-main/core';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { sized } from './scale';

/**
 * Intake while retention prunes: `sendEmail` at concurrency 16 into a store of STORED copies, once
 * with no limit (the baseline) and once with `--max-messages` at a tenth of them, so the pruner
 * removes the older nine tenths a batch at a time all through the intake (checked: copies are still
 * over the limit when the intake ends); rounds alternate. Target: the intake's time while pruning at
 * most 1.5x its time without (each pruning round against the baseline round before it; the median).
 * The store is filled directly, once (see fill), and copied for each round; MAILYARD_BENCH_PRUNE_SIZE
 * sets its size (default 200,000; `MAILYARD_BENCH_PRUNE_SIZE=1000000 npm run bench -- prune` is the
 * issue's million).
 */
const STORED = sized(Number(process.env.MAILYARD_BENCH_PRUNE_SIZE ?? 200_000), 1_000);
const SENDS = sized(3_000, 50);
const ROUNDS = sized(3, 1);
const CONCURRENCY = 16;

/**
 * Fills a new store at `file` (schema and default account made by the emulator) with `count` copies,
 * the rows intake writes (a copy, its event, its rows of both search indexes, a content a send). Fast
 * enough for a million on a busy machine: every row is made by SQLite itself (a counter, no call from
 * JavaScript per row), in key order, without a journal, a hundred thousand copies a transaction; the
 * copies' and events' secondary indexes are dropped meanwhile and built again at the end, each in one
 * sorted pass. The ids have a ULID's form (26 digits, in key order).
 */
function fill(file: string, count: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const rebuilt = db
    .prepare<[], { sql: string; name: string; type: string }>(
      "SELECT sql, name, type FROM sqlite_master WHERE tbl_name IN ('messages', 'message_events') AND sql IS NOT NULL AND (type = 'index' OR name = 'messages_search_pending')",
    )
    .all();
  for (const r of rebuilt) db.exec(`DROP ${r.type.toUpperCase()} ${r.name}`);
  const raw = Buffer.from(`From: App <app@example.com>\r\nSubject: stored\r\n\r\n${'<p>lorem ipsum dolor sit amet</p>'.repeat(60)}\r\n`);
  // Copy i (0-based) has key i + 1; a send to 50 recipients is one content, a copy each.
  const counter = 'WITH RECURSIVE n(i) AS (SELECT CAST(@from AS INTEGER) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @to)';
  const contents = db.prepare(`${counter} INSERT INTO message_contents (content_id, raw) SELECT 'send-' || (i / 50), @raw FROM n WHERE i % 50 = 0`);
  const copies = db.prepare(
    `${counter} INSERT INTO messages (key, id, ref_id, account_number, content_id, source, from_email, from_name, recipient_email, recipient_lc,
       recipient_domain, recipient_name, recipient_type, subject, campaign_id, mailer_id, custom_args, status, created_ms, created_at, updated_at, size)
     SELECT i + 1, printf('%026d', i + 1), 'send-' || (i / 50), 1, 'send-' || (i / 50), 'api', 'app@example.com', 'App',
       'user' || i || '@example.org', 'user' || i || '@example.org', 'example.org', '', 'to', 'Your receipt #' || i, '', '', '{}', 'delivered',
       CAST(@start AS INTEGER) + i * 10, strftime('%Y-%m-%dT%H:%M:%fZ', (CAST(@start AS INTEGER) + i * 10) / 1000.0, 'unixepoch'),
       strftime('%Y-%m-%dT%H:%M:%fZ', (CAST(@start AS INTEGER) + i * 10) / 1000.0, 'unixepoch'), @size FROM n`,
  );
  const range = 'FROM messages WHERE key > @from AND key <= @to';
  const events = db.prepare(`INSERT INTO message_events (message_id, seq, event, timestamp) SELECT id, 1, 'delivery', created_at ${range}`);
  const words = db.prepare(
    `INSERT INTO message_search (rowid, subject, sender, recipient, body, headers)
     SELECT key, subject, 'app example com', 'user' || (key - 1) || ' example org', 'receipt ' || (key - 1) || ' lorem ipsum dolor sit amet', 'from app' ${range}`,
  );
  const addresses = db.prepare(`INSERT INTO message_addresses (rowid, sender, recipient, other) SELECT key, 'app@example.com', recipient_email, '' ${range}`);
  const start = Date.now() - count * 10;
  const batch = db.transaction((from: number, to: number) => {
    contents.run({ from, to, raw });
    copies.run({ from, to, start, size: raw.length });
    for (const rows of [events, words, addresses]) rows.run({ from, to });
  });
  for (let i = 0; i < count; i += 100_000) batch(i, Math.min(count, i + 100_000));
  for (const r of rebuilt) db.exec(r.sql);
  db.pragma('journal_mode = WAL');
  db.close();
}

/** `SENDS` one-recipient sends of about 2 KB through the HTTP API, CONCURRENCY at a time; answers the ms it took and the longest event-loop hold. */
async function intake(emu: EmulatorHandle, sends = SENDS): Promise<{ ms: number; maxHoldMs: number }> {
  const url = `${emu.urls.http}/v1/email/send`;
  const headers = { authorization: `Bearer ${emu.defaultAccount.apiKey}`, 'content-type': 'application/json' };
  const holds = monitorEventLoopDelay({ resolution: 5 });
  holds.enable();
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < sends) {
      const n = next++;
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          from: { email: 'app@example.com' },
          to: [{ email: `new${n}@example.org` }],
          subject: `new ${n}`,
          content: [{ type: 'text/html', value: `<p>new ${n}</p>${'<p>lorem ipsum dolor sit amet</p>'.repeat(60)}` }],
        }),
      });
      if (!res.ok) throw new Error(`send ${n} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const ms = performance.now() - started;
  holds.disable();
  return { ms, maxHoldMs: holds.max / 1e6 };
}

export default async function prune(): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), 'mailyard-bench-prune-'));
  const round = (x: number) => Math.round(x * 100) / 100;
  try {
    const seed = join(dir, 'seed');
    const first = await createEmulator({ httpPort: 0, smtpPort: 0, dataDir: seed, maxMessages: 0, logLevel: 'silent' });
    await first.close();
    const filling = performance.now();
    fill(join(seed, DATABASE_FILE), STORED);
    const fillMs = performance.now() - filling;
    const storeBytes = (await stat(join(seed, DATABASE_FILE))).size;
    console.log(`filled ${STORED.toLocaleString('en')} copies in ${Math.round(fillMs)} ms (${Math.round(storeBytes / 2 ** 20)} MiB)`);

    const runs: Array<{ pruning: boolean; ms: number; maxHoldMs: number; prunedDuring: number }> = [];
    for (let r = 0; r < ROUNDS * 2; r++) {
      const pruning = r % 2 === 1;
      const data = join(dir, `round-${r}`);
      await mkdir(data);
      await copyFile(join(seed, DATABASE_FILE), join(data, DATABASE_FILE));
      const emu = await createEmulator({
        httpPort: 0,
        smtpPort: 0,
        dataDir: data,
        logLevel: 'silent',
        maxMessages: pruning ? STORED / 10 : 0,
        retentionIntervalMs: 100,
      });
      try {
        // A warm-up: the mail thread, the first compositions, the connections.
        await intake(emu, Math.min(100, SENDS));
        const usage = () => emu.services.retention.usage();
        if (pruning) {
          // Under way before the intake starts, and still under way when it ends (checked below).
          while (usage().pruned.copies === 0) await new Promise((res) => setTimeout(res, 20));
        }
        const before = usage().pruned.copies;
        const { ms, maxHoldMs } = await intake(emu);
        const prunedDuring = usage().pruned.copies - before;
        const left = usage().messages - STORED / 10;
        runs.push({ pruning, ms, maxHoldMs, prunedDuring });
        console.log(
          `${pruning ? 'pruning ' : 'baseline'} ${SENDS} sends in ${Math.round(ms)} ms (${Math.round((SENDS / ms) * 1000)}/s), longest event-loop hold ${round(maxHoldMs)} ms` +
            (pruning ? `; ${prunedDuring.toLocaleString('en')} copies pruned meanwhile, ${left.toLocaleString('en')} still over the limit after` : ''),
        );
        if (pruning && left <= 0) console.log('  (pruning ended before the intake: the measure is of part of the intake only)');
      } finally {
        await emu.close();
        await rm(data, { recursive: true, force: true });
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Each pruning round against the baseline round just before it (the machine's load drifts between rounds).
    const ratios = runs.flatMap((r, i) => (r.pruning ? [round(r.ms / runs[i - 1]!.ms)] : []));
    const ratio = median(ratios);
    const base = median(runs.filter((r) => !r.pruning).map((r) => r.ms));
    const withPruning = median(runs.filter((r) => r.pruning).map((r) => r.ms));
    const figures = {
      bench: 'prune',
      stored: STORED,
      fill_ms: Math.round(fillMs),
      store_mib: Math.round(storeBytes / 2 ** 20),
      sends: SENDS,
      concurrency: CONCURRENCY,
      baseline_ms: Math.round(base),
      pruning_ms: Math.round(withPruning),
      pruned_during: runs.filter((r) => r.pruning).map((r) => r.prunedDuring),
      max_hold_ms_baseline: round(Math.max(...runs.filter((r) => !r.pruning).map((r) => r.maxHoldMs))),
      max_hold_ms_pruning: round(Math.max(...runs.filter((r) => r.pruning).map((r) => r.maxHoldMs))),
      ratios,
      ratio,
      target: 1.5,
      pass: ratio <= 1.5,
    };
    console.log(`intake while pruning ${ratio}x the time without, median of the rounds ${ratios.join(', ')} (target <= 1.5)`);
    console.log(JSON.stringify(figures));
    return figures.pass;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
