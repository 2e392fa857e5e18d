/**
 * Real (wall) time for the IMAP connector's network waits: reconnection delays and the connection
 * set-up deadline. These are about a server's load, not scheduled work, so they never run on the
 * emulator clock (at speed 100,000 a 2 s delay would be 20 microseconds). Injected, so a test can
 * check the schedule without sleeping through it.
 */
export interface WallScheduler {
  /** Milliseconds on a monotonic wall clock. */
  now(): number;
  /** Calls `fn` once after `delayMs` of wall time; the answer cancels it. */
  after(delayMs: number, fn: () => void): () => void;
}

/** The process's own timers. They do not keep the process alive. */
export function systemWallScheduler(): WallScheduler {
  return {
    now: () => performance.now(),
    after(delayMs, fn) {
      const timer = setTimeout(fn, delayMs);
      timer.unref();
      return () => clearTimeout(timer);
    },
  };
}

/** `work`, or `timeoutError()` once `ms` of wall time have passed without it settling. */
export async function withinWallTime<T>(wall: WallScheduler, ms: number, work: Promise<T>, timeoutError: () => Error): Promise<T> {
  let cancel: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    cancel = wall.after(ms, () => reject(timeoutError()));
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    cancel?.();
  }
}

/** The first reconnection delay; each failure in a row doubles it. */
export const FIRST_RECONNECT_MS = 1000;
/** The longest reconnection delay. */
export const MAX_RECONNECT_MS = 5 * 60_000;
/** A connection that stayed up this long ends the run of failures: the next delay is the first again. */
export const STABLE_CONNECTION_MS = 60_000;

/** Reconnection delays after `failures` failures in a row: 1 s, 2 s, 4 s, ... at most 5 minutes. */
export function reconnectDelay(failures: number): number {
  return Math.min(FIRST_RECONNECT_MS * 2 ** Math.min(30, Math.max(0, failures - 1)), MAX_RECONNECT_MS);
}

/**
 * Counts the failures in a row of one IMAP configuration's connection. A connection attempt that
 * fails, and a working connection that closes before it was up for `STABLE_CONNECTION_MS`, both
 * count: a server that refuses (`* BYE Too many connections`) or drops every session at once is
 * retried ever less often, never in a loop.
 */
export class ReconnectBackoff {
  private failures = 0;
  /** Wall time the current connection came up; undefined while not connected. */
  private upSince: number | undefined;

  constructor(private readonly wall: WallScheduler) {}

  /** A connection is up (logged in, inbox open). */
  connected(): void {
    this.upSince = this.wall.now();
  }

  /** A connection attempt failed or a connection closed: the wall-time delay before the next attempt. */
  failed(): number {
    if (this.upSince !== undefined && this.wall.now() - this.upSince >= STABLE_CONNECTION_MS) this.failures = 0;
    this.upSince = undefined;
    this.failures++;
    return reconnectDelay(this.failures);
  }
}
