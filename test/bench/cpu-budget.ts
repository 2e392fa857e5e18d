import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * What a rate costs the machine: the intake benchmarks measure CPU per message in this process (the
 * server under test, all its threads) and in the load process, so they can say how many cores a target
 * rate takes at that cost. A ratio target that needs more cores than the machine has is out of reach
 * whatever runs on which thread; only less work per message gets there.
 */

/** The cores this process may use. */
export const CORES = availableParallelism();

let ticksPerSecond: number | undefined;

/**
 * CPU time of this process's main thread so far, in µs (Linux: /proc, 10 ms resolution at the usual
 * 100 ticks a second), or null where /proc is not there. process.cpuUsage() counts every thread.
 */
export function mainThreadCpuUs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses: utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticksPerSecond ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond;
  } catch {
    return null;
  }
}

/** CPU of this process, all threads, and of its main thread, from this call until `stop()`, in µs. */
export function cpuMeter(): { stop(): { all: number; main: number | null } } {
  const all = process.cpuUsage();
  const main = mainThreadCpuUs();
  return {
    stop() {
      const used = process.cpuUsage(all);
      const mainNow = mainThreadCpuUs();
      return { all: used.user + used.system, main: main === null || mainNow === null ? null : mainNow - main };
    },
  };
}

/** Cores that `perSecond` messages take at `cpuUsPerMessage` (the server's and the load's together), two decimals. */
export const coresFor = (perSecond: number, cpuUsPerMessage: number): number => Math.round(((perSecond * cpuUsPerMessage) / 1e6) * 100) / 100;
