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

/**
 * Sends one request to the emulator while a second client asks /emulator/health every 20 ms, and
 * measures what it cost: time, data directory growth, RSS peak, the event loop's longest hold.
 */
export function measureRequest(emu: TestEmulator, method: string, path: string, body: unknown): Promise<LoadFigures> {
  return measureWhile(emu, () => emu.request(method, path, { body }));
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
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  let res: T;
  try {
    res = await work();
  } finally {
    running = false;
    loop.disable();
  }
  const seconds = (performance.now() - t0) / 1000;
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
