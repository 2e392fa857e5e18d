import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { Agent, request } from 'undici';
import { createEmulator, type EmulatorHandle } from '../../src-main/core/create-emulator';
import type { EmailEventPayload } from '../../src-shared/schemas/events';

/**
 * The dispatcher against a bare undici loop, same receiver, same concurrency, in one run:
 * 20,000 deliveries at concurrency 16 (throughput and RSS), then 1,000 events/s offered for 5 s
 * (latency from event creation to first attempt).
 */
const TOTAL = 20_000;
const CONCURRENCY = 16;
const RATE = 1_000;
const RATE_SECONDS = 5;
const ulid = monotonicFactory();

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

const ROUNDS = 3;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Peak RSS while `run` runs, sampled every 50 ms, against RSS after a collection before it. */
async function withRss<T>(run: () => Promise<T>): Promise<{ result: T; startRss: number; peakRss: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const startRss = process.memoryUsage().rss;
  let peakRss = startRss;
  const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  try {
    const result = await run();
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    return { result, startRss, peakRss };
  } finally {
    clearInterval(timer);
  }
}

async function bareUndici(url: string): Promise<number> {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 4_000 });
  let next = 0;
  const started = performance.now();
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
  await agent.close();
  return TOTAL / seconds;
}

async function startEmulator(url: string, dataDir: string): Promise<EmulatorHandle> {
  const emu = await createEmulator({
    httpPort: 0,
    smtpPort: 0,
    dataDir,
    logLevel: 'silent',
    perTargetConcurrency: CONCURRENCY,
    globalConcurrency: CONCURRENCY,
  });
  await emu.services.webhooks.register(emu.defaultAccount.id, {
    webhook_url: url,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: { delivery: true } },
  });
  return emu;
}

async function drained(emu: EmulatorHandle): Promise<void> {
  const { dispatcher } = emu.services;
  while (dispatcher.inFlightCount() > 0 || dispatcher.pendingCount() > 0) await new Promise((r) => setTimeout(r, 10));
}

async function dispatcherThroughput(emu: EmulatorHandle): Promise<number> {
  const started = performance.now();
  // Events arrive in bursts of 500, as a busy application's would, not all in one synchronous loop.
  for (let i = 0; i < TOTAL; i++) {
    emu.services.events.emitEmailEvent(emu.defaultAccount.id, payload(i));
    if (i % 500 === 499) await new Promise((r) => setImmediate(r));
  }
  await drained(emu);
  const seconds = (performance.now() - started) / 1000;
  const failed = emu.services.dispatcher.list({ status: 'failed', limit: 1 }).length + emu.services.dispatcher.list({ status: 'pending', limit: 1 }).length;
  if (failed > 0) throw new Error('some deliveries did not succeed');
  return TOTAL / seconds;
}

/** Offers RATE events per second for RATE_SECONDS; returns creation-to-first-attempt latencies (ms). */
async function dispatcherLatency(emu: EmulatorHandle): Promise<number[]> {
  const ids: string[] = [];
  const batch = RATE / 100;
  for (let tick = 0; tick < RATE_SECONDS * 100; tick++) {
    const due = performance.now() + 10;
    for (let i = 0; i < batch; i++) ids.push(emu.services.events.emitEmailEvent(emu.defaultAccount.id, payload(i)).deliveryId!);
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await drained(emu);
  return ids
    .map((id) => {
      const d = emu.services.dispatcher.find(id)!;
      return Date.parse(d.attempt_log[0]!.started_at) - Date.parse(d.created_at);
    })
    .sort((a, b) => a - b);
}

export default async function run(): Promise<boolean> {
  const receiver = await startReceiver();
  const dir = await mkdtemp(join(tmpdir(), 'mailyard-bench-'));
  try {
    // Warm both paths once (JIT, connections), then measure three interleaved rounds of each and
    // compare medians: this machine's two cores also run the receiver, and single runs swing ~10%.
    const emu = await startEmulator(receiver.url, join(dir, 'throughput'));
    await bareUndici(receiver.url);
    await dispatcherThroughput(emu);
    const baselines: number[] = [];
    const rounds: number[] = [];
    const { startRss, peakRss } = await withRss(async () => {
      for (let round = 0; round < ROUNDS; round++) {
        baselines.push(await bareUndici(receiver.url));
        rounds.push(await dispatcherThroughput(emu));
      }
    });
    await emu.close();
    const baseline = median(baselines);
    const throughput = median(rounds);

    const emu2 = await startEmulator(receiver.url, join(dir, 'latency'));
    const latencies = await dispatcherLatency(emu2);
    await emu2.close();

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
      latency_offered_per_s: RATE,
      latency_p50_ms: p50,
      latency_p99_ms: p99,
      peak_rss_mb: mb(peakRss),
      rss_growth_mb: mb(peakRss - startRss),
      rounds: ROUNDS,
      targets: { ratio: 0.6, latency_p99_ms: 50, rss_growth_mb: 50 },
      pass: ratio >= 0.6 && p99 < 50 && peakRss - startRss < 50 * 1024 * 1024,
    };
    const list = (xs: number[]) => xs.map((x) => Math.round(x)).join(', ');
    console.log(`bare undici loop:  ${figures.bare_undici_per_s} deliveries/s median of ${list(baselines)} (${TOTAL} at concurrency ${CONCURRENCY}, no persistence)`);
    console.log(`dispatcher:        ${figures.dispatcher_per_s} deliveries/s median of ${list(rounds)} (persisted outbox, attempt log)`);
    console.log(`ratio:             ${figures.ratio} (target >= 0.6)`);
    console.log(`latency at ${RATE}/s: p50 ${p50} ms, p99 ${p99} ms (creation to first attempt; target p99 < 50 ms)`);
    console.log(`RSS:               peak ${figures.peak_rss_mb} MB, growth ${figures.rss_growth_mb} MB during the run (target < 50 MB)`);
    console.log(JSON.stringify(figures));
    return figures.pass;
  } finally {
    receiver.child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}
