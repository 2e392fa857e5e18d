import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { createEmulator, type EmulatorHandle } from '../../src-main/core';
import { monotonicUlids } from '../../src-main/core/ids';
import type { EmailEventPayload } from '../../src-shared/schemas/events';
import { sized } from './scale';

/**
 * The dispatcher against a bare undici loop, same receiver, same concurrency, in one run.
 *
 * 1. Memory and latency, dispatcher only (nothing else has run in this process yet, so the bare
 *    loop's own garbage does not count against the dispatcher): from RSS after a collection with
 *    the emulator started, peak RSS over a run of 20,000 deliveries at concurrency 16 and then
 *    1,000 events/s offered for 5 s, and again after ROUNDS more rounds. Latency runs from each
 *    event's scheduled arrival (not from when the loop got round to emitting it, so a blocked
 *    event loop counts) to the start of its first attempt.
 * 2. Throughput: the bare loops warmed once, then ROUNDS interleaved rounds of each; medians. The
 *    target ratio is against the bare `request` loop; a loop through `dispatch`, the interface the
 *    dispatcher uses, is measured too (informational).
 *
 * The receiver counts the distinct webhook-id values it answered: every delivery must arrive.
 */
const TOTAL = sized(20_000, 300);
const CONCURRENCY = 16;
const RATE = sized(1_000, 200);
const RATE_SECONDS = sized(5, 1);
/** ref_ids as the emulator makes them for its events. */
const ulid = monotonicUlids();

function payload(i: number): EmailEventPayload {
  return {
    event: 'delivery',
    timestamp: new Date().toISOString(),
    ref_id: ulid(),
    recipient: { email: `user${i}@example.com`, name: 'Bench User' },
    sender: { email: 'app@example.com', name: 'Bench App' },
    subject: 'Your receipt #12345',
    campaign_id: 'bench',
    mailer_id: '',
    custom_args: { order: String(i) },
  };
}

async function startReceiver(): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(new URL('./receiver-process.mjs', import.meta.url));
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  return { url: `http://127.0.0.1:${port}/hooks`, child };
}

/** How many requests the receiver has answered, and with how many distinct webhook-id values. */
function receiverCount(child: ChildProcess): Promise<{ answered: number; distinctIds: number }> {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send('count');
  });
}

/**
 * Interleaved throughput rounds. Five, not three: on this shared 2-core VM the bare loop alone moves
 * by a third between runs minutes apart, and a median of three still follows single outliers.
 */
const ROUNDS = sized(5, 1);

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Samples RSS every 50 ms against RSS after a collection at `start()`; `peak()` is the highest so far. */
function rssMeter(): { peak: () => number; start: number; stop: () => void } {
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  return {
    start,
    peak: () => (peak = Math.max(peak, process.memoryUsage().rss)),
    stop: () => clearInterval(timer),
  };
}

/** Throughput of one round, and this process's CPU time (user + system) per delivery in µs. */
interface Round {
  perS: number;
  cpuUs: number;
}

async function bareUndici(url: string): Promise<Round> {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 4_000 });
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        const i = next++;
        const body = JSON.stringify(payload(i));
        const res = await request(url, {
          method: 'POST',
          body,
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'webhook-id': ulid(), 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) },
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.close();
  return { perS: TOTAL / seconds, cpuUs: (used.user + used.system) / TOTAL };
}

/**
 * The same loop through undici's dispatch interface, as the dispatcher sends (no response stream):
 * informational, to show the cost of persistence apart from the cheaper client interface.
 */
async function bareDispatch(url: string): Promise<Round> {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 4_000 });
  const { origin, pathname } = new URL(url);
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const send = (body: string) =>
    new Promise<number>((resolve, reject) => {
      let status = 0;
      agent.dispatch(
        {
          origin,
          path: pathname,
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', 'webhook-id': ulid(), 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) },
        },
        {
          onRequestStart() {},
          onResponseStart(_c, statusCode) {
            status = statusCode;
          },
          onResponseData() {},
          onResponseEnd: () => resolve(status),
          onResponseError: (_c, err) => reject(err),
        },
      );
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        const i = next++;
        const status = await send(JSON.stringify(payload(i)));
        if (status !== 200) throw new Error(`receiver answered ${status}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.close();
  return { perS: TOTAL / seconds, cpuUs: (used.user + used.system) / TOTAL };
}

async function startEmulator(url: string, dataDir: string): Promise<EmulatorHandle> {
  const emu = await createEmulator({
    httpPort: 0,
    smtpPort: 0,
    dataDir,
    // Deliveries by the hundred thousand: retention's default would prune them.
    maxMessages: 0,
    logLevel: 'silent',
    perTargetConcurrency: CONCURRENCY,
    claimBatch: CONCURRENCY * 2,
  });
  await emu.services.webhooks.register(emu.defaultAccount.id, {
    webhook_url: url,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: { delivery: true } },
  });
  return emu;
}

/** Until every delivery made so far is attempted and recorded (enqueued, claimed, on the wire or waiting for its commit: none). */
async function drained(emu: EmulatorHandle): Promise<void> {
  const { deliveryWorker } = emu.services;
  while (!deliveryWorker.idleBy(emu.clock.now())) await new Promise((r) => setTimeout(r, 10));
}

async function dispatcherThroughput(emu: EmulatorHandle): Promise<Round> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  // Events arrive in bursts of 500, as a busy application's would, not all in one synchronous loop.
  for (let i = 0; i < TOTAL; i++) {
    emu.services.emailEvents.emitEmailEvent(emu.defaultAccount.id, payload(i));
    if (i % 500 === 499) await new Promise((r) => setImmediate(r));
  }
  await drained(emu);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const failed = emu.services.deliveries.list({ status: 'failed', limit: 1 }).length + emu.services.deliveries.list({ status: 'pending', limit: 1 }).length;
  if (failed > 0) throw new Error('some deliveries did not succeed');
  return { perS: TOTAL / seconds, cpuUs: (used.user + used.system) / TOTAL };
}

/**
 * Offers RATE events per second for RATE_SECONDS, in batches of RATE / 100 every 10 ms on a fixed
 * schedule (a late batch is emitted at once, not pushed back), and waits until all are sent. Returns
 * each delivery with its scheduled arrival, and the rate actually offered.
 */
async function offerEvents(emu: EmulatorHandle): Promise<{ sent: Array<{ id: string; at: number }>; offeredPerS: number }> {
  const sent: Array<{ id: string; at: number }> = [];
  const batch = RATE / 100;
  const ticks = RATE_SECONDS * 100;
  const start = Date.now();
  for (let tick = 0; tick < ticks; tick++) {
    const scheduled = start + tick * 10;
    const wait = scheduled - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (let i = 0; i < batch; i++) {
      sent.push({ id: emu.services.emailEvents.emitEmailEvent(emu.defaultAccount.id, payload(i)).deliveryId!, at: scheduled });
    }
  }
  const offeredPerS = sent.length / ((Date.now() - start) / 1000);
  await drained(emu);
  return { sent, offeredPerS };
}

/** Latencies (ms, sorted) from each delivery's scheduled arrival to the start of its first attempt. */
function latenciesOf(emu: EmulatorHandle, sent: Array<{ id: string; at: number }>): number[] {
  return sent
    .map(({ id, at }) => {
      const d = emu.services.deliveries.find(id)!;
      return Date.parse(d.attempt_log[0]!.started_at) - at;
    })
    .sort((a, b) => a - b);
}

export default async function run(): Promise<boolean> {
  const receiver = await startReceiver();
  const dir = await mkdtemp(join(tmpdir(), 'mailyard-bench-'));
  try {
    // 1. Dispatcher only: RSS growth over a run of 20,000 deliveries and the latency phase (the
    // issue's target), then over ROUNDS more rounds (reported too; SQLite's page cache grows with
    // the store up to its 16 MiB), and latency at the offered rate.
    const emu = await startEmulator(receiver.url, join(dir, 'dispatcher'));
    const rss = rssMeter();
    await dispatcherThroughput(emu);
    const { sent, offeredPerS } = await offerEvents(emu);
    const peakRss = rss.peak();
    // Read back after the peak is taken: the look-ups are the benchmark's, not the dispatcher's.
    const latencies = latenciesOf(emu, sent);
    for (let round = 0; round < ROUNDS; round++) await dispatcherThroughput(emu);
    const peakRssAll = rss.peak();
    rss.stop();
    const startRss = rss.start;
    let expected = (ROUNDS + 1) * TOTAL + latencies.length;

    // 2. Throughput: warm the bare loop once (the dispatcher is warm), then ROUNDS interleaved rounds
    // of each, compared by medians: this machine's two cores also run the receiver, and single runs
    // swing by 10-30%.
    await bareUndici(receiver.url);
    await bareDispatch(receiver.url);
    const baselines: Round[] = [];
    const rounds: Round[] = [];
    const dispatchBaselines: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      baselines.push(await bareUndici(receiver.url));
      rounds.push(await dispatcherThroughput(emu));
      dispatchBaselines.push(await bareDispatch(receiver.url));
    }
    await emu.close();
    expected += (3 * ROUNDS + 2) * TOTAL;
    const arrived = await receiverCount(receiver.child);
    if (arrived.distinctIds !== expected) throw new Error(`the receiver saw ${arrived.distinctIds} distinct webhook-ids, expected ${expected}`);
    const baseline = median(baselines.map((r) => r.perS));
    const throughput = median(rounds.map((r) => r.perS));

    const ratio = throughput / baseline;
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
    const figures = {
      bench: 'dispatch',
      deliveries_per_round: TOTAL,
      concurrency: CONCURRENCY,
      bare_undici_per_s: Math.round(baseline),
      dispatcher_per_s: Math.round(throughput),
      ratio: Math.round(ratio * 100) / 100,
      // Informational, steadier than throughput when other work shares the cores.
      bare_cpu_us_per_delivery: Math.round(median(baselines.map((r) => r.cpuUs))),
      bare_dispatch_per_s: Math.round(median(dispatchBaselines.map((r) => r.perS))),
      ratio_vs_bare_dispatch: Math.round((throughput / median(dispatchBaselines.map((r) => r.perS))) * 100) / 100,
      bare_dispatch_cpu_us_per_delivery: Math.round(median(dispatchBaselines.map((r) => r.cpuUs))),
      dispatcher_cpu_us_per_delivery: Math.round(median(rounds.map((r) => r.cpuUs))),
      latency_offered_per_s: RATE,
      latency_offered_actual_per_s: Math.round(offeredPerS),
      latency_p50_ms: p50,
      latency_p99_ms: p99,
      peak_rss_mb: mb(peakRssAll),
      rss_growth_mb: mb(peakRss - startRss),
      rss_growth_all_rounds_mb: mb(peakRssAll - startRss),
      rounds: ROUNDS,
      targets: { ratio: 0.6, latency_p99_ms: 50, rss_growth_mb: 50 },
      pass: ratio >= 0.6 && p99 < 50 && peakRss - startRss < 50 * 1024 * 1024,
    };
    const list = (xs: Round[]) => xs.map((x) => Math.round(x.perS)).join(', ');
    console.log(
      `bare undici loop:  ${figures.bare_undici_per_s} deliveries/s median of ${list(baselines)} (${TOTAL} at concurrency ${CONCURRENCY}, no persistence); ${figures.bare_cpu_us_per_delivery} µs CPU each`,
    );
    console.log(
      `dispatcher:        ${figures.dispatcher_per_s} deliveries/s median of ${list(rounds)} (persisted outbox, attempt log); ${figures.dispatcher_cpu_us_per_delivery} µs CPU each`,
    );
    console.log(
      `bare dispatch():   ${figures.bare_dispatch_per_s} deliveries/s median of ${list(dispatchBaselines)}, the dispatcher's client interface; ${figures.bare_dispatch_cpu_us_per_delivery} µs CPU each`,
    );
    console.log(`ratio:             ${figures.ratio} (target >= 0.6); ${figures.ratio_vs_bare_dispatch} against the dispatch() loop (informational)`);
    console.log(
      `latency at ${RATE}/s: p50 ${p50} ms, p99 ${p99} ms from scheduled arrival to first attempt, ${figures.latency_offered_actual_per_s}/s actually offered (target p99 < 50 ms)`,
    );
    console.log(
      `RSS:               growth ${figures.rss_growth_mb} MB over ${TOTAL + latencies.length} deliveries (target < 50 MB), ${figures.rss_growth_all_rounds_mb} MB over ${(ROUNDS + 1) * TOTAL + latencies.length}; peak ${figures.peak_rss_mb} MB; dispatcher only`,
    );
    console.log(`receiver:          ${arrived.distinctIds} distinct webhook-ids, as expected`);
    console.log(JSON.stringify(figures));
    return figures.pass;
  } finally {
    receiver.child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}
