import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { monotonicFactory } from 'ulid';
import { createEmulator, type EmulatorHandle } from '../../src-main/core';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { percentile, sized } from './scale';

/**
 * The Messages screen with 100 and with 100,000 stored messages, in headless Chromium against the
 * built UI: time from navigation to the first rendered row (median of LOADS page loads), and frame
 * times while scrolling the list (SCROLL_ROUNDS x SCROLL_FRAMES frames at SCROLL_PX per frame; the
 * small list goes back and forth over its height, the large one keeps going down and loads pages as
 * it goes). The small store is the baseline, measured in the same run, in alternation with the
 * large one. Target: large at most 1.5x small.
 */
// UI_BENCH_SIZES=100,2000 for a quick smoke run.
const SIZES = (process.env.UI_BENCH_SIZES ?? sized('100,100000', '20,300')).split(',').map(Number);
const LOADS = sized(7, 1);
const SCROLL_FRAMES = sized(300, 20);
const SCROLL_PX = 60;
const SCROLL_ROUNDS = sized(2, 1);
const TARGET = 1.5;
const UI_DIR = resolve(import.meta.dirname, '../../out/renderer');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

const RAW = Buffer.from('From: app@example.com\r\nTo: user@example.com\r\nSubject: Bench\r\nContent-Type: text/plain\r\n\r\nHello\r\n');

/** Fills the store directly (the send path has its own benchmark): one shared content, `count` messages a second apart. */
function fill(file: string, accountId: string, count: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const ulid = monotonicFactory();
  db.prepare("INSERT INTO message_contents (content_id, raw) VALUES ('bench', ?)").run(RAW);
  const insert = db.prepare(
    `INSERT INTO messages (id, ref_id, account_number, content_id, source, from_email, from_name, recipient_email, recipient_lc, recipient_domain,
       recipient_name, recipient_type, subject, campaign_id, mailer_id, custom_args, status, created_ms, created_at, delivered_ms, delivered_at,
       failed_reason, priority, updated_at)
     VALUES (?, ?, (SELECT number FROM accounts WHERE id = ?), 'bench', 'api', 'app@example.com', 'App', ?, ?, ?, '', 'to', ?, ?, '', '{}', ?, ?, ?, NULL, NULL, '', '0', ?)`,
  );
  const start = Date.now() - count * 1000;
  const statuses = ['delivered', 'delivered', 'bounced', 'queued'];
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const ms = start + i * 1000;
      const email = `user${i}@domain${i % 200}.test`;
      const iso = new Date(ms).toISOString();
      // One recipient's copy (its own id) of a one-recipient send (its ref_id).
      insert.run(
        ulid(ms),
        ulid(ms),
        accountId,
        email,
        email,
        `domain${i % 200}.test`,
        `Your receipt #${i}`,
        `campaign-${i % 20}`,
        statuses[i % 4],
        ms,
        iso,
        iso,
      );
    }
  });
  for (let i = 0; i < count; i += 50_000) batch(i, Math.min(count, i + 50_000));
  db.close();
}

interface Figures {
  firstRowMs: number;
  firstRowSamples: number[];
  frameP50: number;
  frameP95: number;
  frameMax: number;
  longFrames: number;
  rowsLoaded: number;
}

/** Loads Messages and returns when its first row was in the DOM, in ms from navigation start. */
async function firstRow(page: Page, url: string): Promise<number> {
  await page.goto(`${url}/messages`);
  await page.waitForFunction(() => (window as unknown as { __firstRow?: number }).__firstRow !== undefined);
  return page.evaluate(() => (window as unknown as { __firstRow: number }).__firstRow);
}

/** Frame times while scrolling the list, on the page as loaded. */
async function scrollFrames(page: Page): Promise<{ deltas: number[]; rows: number }> {
  await page.waitForTimeout(300);
  return page.evaluate(
    ({ frames, px }) =>
      new Promise<{ deltas: number[]; rows: number }>((done) => {
        const list = document.querySelector<HTMLElement>('[data-testid="message-list"]')!;
        const deltas: number[] = [];
        let last = performance.now();
        let direction = 1;
        let n = 0;
        const step = (now: number) => {
          deltas.push(now - last);
          last = now;
          const max = list.scrollHeight - list.clientHeight;
          if (list.scrollTop + px * direction > max || list.scrollTop + px * direction < 0) direction = -direction;
          list.scrollTop += px * direction;
          if (++n < frames) requestAnimationFrame(step);
          else done({ deltas: deltas.slice(1), rows: Math.round(list.scrollHeight / 56) });
        };
        requestAnimationFrame(step);
      }),
    { frames: SCROLL_FRAMES, px: SCROLL_PX },
  );
}

/**
 * Both stores measured in alternation (small, large, small, ...) in one browser, so warm-up and
 * machine noise fall on both alike; the first load of each is not counted.
 */
async function measure(browser: Browser, urls: Map<number, string>): Promise<Map<number, Figures>> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // Records when the first row is in the DOM, relative to navigation start.
  await context.addInitScript(() => {
    const w = window as unknown as { __firstRow?: number };
    new MutationObserver((_, observer) => {
      if (w.__firstRow === undefined && document.querySelector('[data-testid="message-list"] [role="option"]')) {
        w.__firstRow = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  const samples = new Map<number, number[]>([...urls.keys()].map((size) => [size, []]));
  const frames = new Map<number, number[]>([...urls.keys()].map((size) => [size, []]));
  const rows = new Map<number, number>();
  for (let i = 0; i < LOADS + 1; i++) {
    for (const [size, url] of urls) {
      const t = await firstRow(page, url);
      if (i > 0) samples.get(size)!.push(t);
    }
  }
  for (let round = 0; round < SCROLL_ROUNDS; round++) {
    for (const [size, url] of urls) {
      await firstRow(page, url);
      const f = await scrollFrames(page);
      frames.get(size)!.push(...f.deltas);
      rows.set(size, f.rows);
    }
  }
  await context.close();
  const out = new Map<number, Figures>();
  for (const size of urls.keys()) {
    const d = frames.get(size)!;
    out.set(size, {
      firstRowMs: median(samples.get(size)!),
      firstRowSamples: samples.get(size)!,
      frameP50: percentile(d, 50),
      frameP95: percentile(d, 95),
      frameMax: Math.max(...d),
      longFrames: d.filter((x) => x > 50).length,
      rowsLoaded: rows.get(size)!,
    });
  }
  return out;
}

export default async function run(): Promise<boolean> {
  if (!existsSync(join(UI_DIR, 'index.html'))) throw new Error('the UI is not built: run `npm run build` first');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const dirs: string[] = [];
  const emulators: EmulatorHandle[] = [];
  let results: Map<number, Figures>;
  try {
    const urls = new Map<number, string>();
    for (const size of SIZES) {
      const dir = await mkdtemp(join(tmpdir(), `mailyard-bench-ui-${size}-`));
      dirs.push(dir);
      const first = await createEmulator({ httpPort: 0, smtpPort: 0, dataDir: dir, maxMessages: 0, logLevel: 'silent' });
      const accountId = first.defaultAccount.id;
      await first.close();
      const t0 = performance.now();
      fill(join(dir, DATABASE_FILE), accountId, size);
      console.log(`${size.toLocaleString()} messages stored in ${Math.round(performance.now() - t0)} ms`);
      const emu = await createEmulator({ httpPort: 0, smtpPort: 0, dataDir: dir, maxMessages: 0, logLevel: 'silent', uiDir: UI_DIR });
      emulators.push(emu);
      urls.set(size, emu.urls.http);
    }
    results = await measure(browser, urls);
  } finally {
    await browser.close();
    for (const emu of emulators) await emu.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
  const small = results.get(SIZES[0]!)!;
  const large = results.get(SIZES[1]!)!;
  for (const [size, f] of results) {
    console.log(
      `${String(size).padStart(7)} messages: first row ${round(f.firstRowMs)} ms (median of ${f.firstRowSamples.map((x) => Math.round(x)).join(', ')}); ` +
        `scroll frames p50 ${round(f.frameP50)} ms, p95 ${round(f.frameP95)} ms, max ${round(f.frameMax)} ms, ${f.longFrames} over 50 ms; ${f.rowsLoaded} rows loaded`,
    );
  }
  const firstRowRatio = round(large.firstRowMs / small.firstRowMs, 2);
  const frameRatio = round(large.frameP95 / small.frameP95, 2);
  console.log(
    `ratios (${SIZES[1]!.toLocaleString()} / ${SIZES[0]!.toLocaleString()}): first row ${firstRowRatio}, p95 scroll frame ${frameRatio} (target <= ${TARGET})`,
  );
  const figures = {
    bench: 'ui',
    sizes: SIZES,
    first_row_ms: { small: round(small.firstRowMs), large: round(large.firstRowMs) },
    scroll_frame_p95_ms: { small: round(small.frameP95), large: round(large.frameP95) },
    scroll_frame_max_ms: { small: round(small.frameMax), large: round(large.frameMax) },
    long_frames: { small: small.longFrames, large: large.longFrames },
    first_row_ratio: firstRowRatio,
    scroll_frame_ratio: frameRatio,
    target: TARGET,
    pass: firstRowRatio <= TARGET && frameRatio <= TARGET,
  };
  console.log(JSON.stringify(figures));
  return figures.pass;
}
