import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { RawResponse, TestEmulator } from './emulator';

/** The bytes of a data directory's files (the database, its WAL and the rest). */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

export interface LoadFigures<T = RawResponse> {
  /** The request's answer (or what the work returned). */
  res: T;
  seconds: number;
  diskGrowthBytes: number;
  /** The RSS peak over the start, as sampled between health checks. */
  rssGrowthMb: number;
  /** The longest /emulator/health took while the request ran (each one must answer 200). */
  healthWorstMs: number;
  healthChecks: number;
  /** The longest the event loop was held while the request ran. */
  eventLoopMaxMs: number;
}

/** How often the event-loop monitor's timer fires, in ms. */
const LOOP_RESOLUTION_MS = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The longest the event loop may be held (and /emulator/health wait) while work ran: `share` of the
 * work's own time in the same run. Other work on the machine slows a hold and the whole alike, so a
 * busy laptop meets the bound as an idle one does, while work done in one piece (one hold about as
 * long as the whole) fails it whatever the machine.
 */
export function holdBoundMs(figures: Pick<LoadFigures<unknown>, 'seconds'>, share: number): number {
  return figures.seconds * 1000 * share;
}

/**
 * Sends one request to the emulator while a second client asks /emulator/health every 20 ms, and
 * measures what it cost: time, data directory growth, RSS peak, the event loop's longest hold.
 */
export function measureRequest(emu: TestEmulator, method: string, path: string, body: unknown): Promise<LoadFigures> {
  return measureWhile(emu, () => emu.request(method, path, { body }));
}

/** A send measured with its bounds on holding the event loop, set against the same run (see measureSend). */
export interface MeasuredSend extends LoadFigures {
  /** The same send to one recipient, measured just before. */
  reference: LoadFigures;
  /** The longest hold of the event loop allowed, in ms. */
  holdBoundMs: number;
  /** The longest wait of /emulator/health allowed, in ms. */
  healthBoundMs: number;
}

/**
 * Sends `body` (a /v1/email/send body) once to its first recipient alone, then as given, measuring each
 * (measureRequest). The bounds are set against the same run: the send's longest hold of the event loop
 * (and /emulator/health's longest wait) may be the one-recipient send's, which holds what no send can
 * split (parsing and checking the body), plus `share` of the send's own time. A send whose copies are
 * made in one piece holds the loop about all of its time, whatever the machine.
 */
export async function measureSend(emu: TestEmulator, body: { to: unknown[] }, share: number): Promise<MeasuredSend> {
  const reference = await measureRequest(emu, 'POST', '/v1/email/send', { ...body, to: body.to.slice(0, 1) });
  if (reference.res.status !== 200) throw new Error(`the one-recipient send answered ${reference.res.status}: ${reference.res.text.slice(0, 300)}`);
  const m = await measureRequest(emu, 'POST', '/v1/email/send', body);
  return {
    ...m,
    reference,
    holdBoundMs: reference.eventLoopMaxMs + holdBoundMs(m, share),
    healthBoundMs: reference.healthWorstMs + holdBoundMs(m, share),
  };
}

/** Does `work` while a second client asks /emulator/health every 20 ms, and measures what it cost (as measureRequest). */
export async function measureWhile<T>(emu: TestEmulator, work: () => Promise<T>): Promise<LoadFigures<T>> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const diskBefore = await dirBytes(emu.dataDir);
  let rssPeak = rssBefore;
  let healthWorstMs = 0;
  let healthChecks = 0;
  let running = true;
  const probe = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await emu.request('GET', '/emulator/health');
      if (res.status !== 200) throw new Error(`/emulator/health answered ${res.status} while the request ran`);
      healthWorstMs = Math.max(healthWorstMs, performance.now() - t0);
      healthChecks++;
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  // The monitor records a hold when its timer next fires, and its first firing only starts the count:
  // it fires before the work starts and again after it ends, or a work done in one synchronous piece
  // would read as no hold at all.
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  await sleep(2 * LOOP_RESOLUTION_MS);
  const t0 = performance.now();
  let res: T;
  let seconds: number;
  try {
    res = await work();
  } finally {
    seconds = (performance.now() - t0) / 1000;
    running = false;
    await sleep(2 * LOOP_RESOLUTION_MS);
    loop.disable();
  }
  await probe;
  return {
    res,
    seconds,
    diskGrowthBytes: (await dirBytes(emu.dataDir)) - diskBefore,
    rssGrowthMb: (rssPeak - rssBefore) / 1e6,
    healthWorstMs,
    healthChecks,
    eventLoopMaxMs: loop.max / 1e6,
  };
}
