import type { Database } from 'better-sqlite3';

/**
 * Until the emulator whose store `db` reads (a read-only handle on its database file) has settled: its
 * scheduled events emitted (a copy's simulated delivery comes a second after it) and its stored copies
 * indexed. A benchmark waits for this after each of the emulator's rounds: in one process, that work
 * would otherwise fall into the next round of its baseline and slow it, and the emulator's CPU per
 * message would leave it out. Fails after `timeoutMs`.
 */
export async function settled(db: Database, timeoutMs = 60_000): Promise<void> {
  const left = db.prepare<[], { n: number }>('SELECT (SELECT COUNT(*) FROM scheduled_events) + (SELECT COUNT(*) FROM search_pending) AS n');
  const until = Date.now() + timeoutMs;
  for (let n = left.get()!.n; n > 0; n = left.get()!.n) {
    if (Date.now() > until) throw new Error(`mailyard did not settle within ${timeoutMs / 1000} s (${n} events or index entries left)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
