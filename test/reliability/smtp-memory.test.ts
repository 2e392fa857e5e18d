import { type ChildProcess, fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { holdBoundMs } from '../helpers/under-load';

/**
 * Large SMTP messages from many clients at once keep the emulator's memory bounded: the bytes of
 * messages in flight are capped (smtpInFlightBytes, 100 MiB by default), so large messages take turns
 * (the others held back by TCP meanwhile), and only the start of a body is parsed for the search. 16
 * clients sending 24 MB each at once grew RSS by 1.6 GB before (health answered after up to 8 s);
 * 240-265 MB now (its mail thread up before the baseline), every message stored. The load runs in a process of its own, on 127.0.0.1, so
 * this process's memory is the emulator's.
 */
const CLIENTS = 16;
/** A 17.6 MB attachment, base64: a 24 MB message. */
const ATTACHMENT_BYTES = 17_600_000;
/** What the peak RSS may grow by while the 16 messages arrive and are stored (16 x 24 MB is 385 MB of raw mail alone). */
const RSS_GROWTH_BOUND = 400 * 1024 * 1024;
/**
 * How long /emulator/health may take to answer at most meanwhile, as a share of the time the load
 * took in the same run (before, health waited up to 8 s: large messages were held and parsed whole).
 */
const HEALTH_SHARE = 0.25;

let emu: TestEmulator | undefined;
let load: ChildProcess | undefined;

afterEach(async () => {
  load?.kill();
  load = undefined;
  await emu?.cleanup();
  emu = undefined;
});

interface ClientResult {
  attempts: number;
  codes: number[];
  final: string;
}

describe('SMTP sink: memory of large messages in flight', () => {
  it(`${CLIENTS} clients sending 24 MB at once: peak RSS growth under ${RSS_GROWTH_BOUND / 1024 / 1024} MB, every message stored, health answered`, async () => {
    emu = await startEmulator();
    const e = emu;
    load = fork(new URL('./smtp-load.mjs', import.meta.url));
    const child = load;
    const messages: unknown[] = [];
    const waiters: Array<(m: unknown) => void> = [];
    child.on('message', (m) => {
      const w = waiters.shift();
      if (w) w(m);
      else messages.push(m);
    });
    const next = () => (messages.length ? Promise.resolve(messages.shift()) : new Promise<unknown>((r) => waiters.push(r)));

    // The mail thread starts on the first mail (from source it loads through jiti: some 45 MB here):
    // the baseline is an emulator with it up, so the growth is the messages'.
    expect(await e.handle.services.mailThread.warm()).toBe(true);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    (globalThis as { gc?: () => void }).gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    let slowestHealthMs = 0;
    let healthFailures = 0;
    let running = true;
    const healthProbe = (async () => {
      while (running) {
        const started = performance.now();
        const res = await fetch(`${e.url}/emulator/health`).catch(() => null);
        if (res?.status !== 200) healthFailures++;
        await res?.arrayBuffer();
        slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    child.send({ port: e.handle.ports.smtp, clients: CLIENTS, attachmentBytes: ATTACHMENT_BYTES, retryMs: 250, deadlineMs: 45_000 });
    const composed = (await next()) as { composed: number };
    expect(composed.composed).toBeGreaterThan(24_000_000);
    const done = (await next()) as { results: ClientResult[]; seconds: number };
    running = false;
    await healthProbe;
    clearInterval(sampler);
    loop.disable();

    const growthMb = Math.round((peak - baseline) / 1024 / 1024);
    const deferred = done.results.reduce((n, r) => n + r.codes.filter((c) => c === 451 || c === 421).length, 0);
    console.log(
      JSON.stringify({
        test: 'smtp-memory',
        clients: CLIENTS,
        message_bytes: composed.composed,
        baseline_rss_mb: Math.round(baseline / 1024 / 1024),
        peak_rss_growth_mb: growthMb,
        deferrals: deferred,
        seconds: Math.round(done.seconds * 10) / 10,
        slowest_health_ms: Math.round(slowestHealthMs),
        health_bound_ms: Math.round(holdBoundMs(done, HEALTH_SHARE)),
        loop_delay_max_ms: Math.round(loop.max / 1e6),
      }),
    );
    for (const r of done.results) expect(r.final, JSON.stringify(r.codes)).toMatch(/^250 /);
    const list = await e.request('GET', '/emulator/messages?limit=50');
    expect(list.json.data.messages).toHaveLength(CLIENTS);
    expect(healthFailures).toBe(0);
    expect(peak - baseline).toBeLessThan(RSS_GROWTH_BOUND);
    expect(slowestHealthMs).toBeLessThanOrEqual(holdBoundMs(done, HEALTH_SHARE));
  });
});
