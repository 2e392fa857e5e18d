import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The file in a data directory that names the process using it. */
export const LOCK_FILE = 'mailyard.lock';

/** Another running Mailyard uses the data directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the data directory ${dataDir} is in use by another Mailyard (process ${pid}). Stop that one, or choose ` +
        `another directory with --data-dir. If no Mailyard is running, delete ${join(dataDir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** Data directories this process holds (a lock naming this process's id may be a stale one from an earlier process). */
const heldHere = new Set<string>();

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the data directory for this process, so two emulators never share one store: both would send
 * every pending webhook and run every scheduled event, and the SQLite file would be written by two
 * schedulers at once. The lock is a file naming the process id, created exclusively. A lock left by a
 * process that no longer runs (after a crash or kill -9) is taken over at once. Returns the release.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  const file = join(dir, LOCK_FILE);
  mkdirSync(dir, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      heldHere.add(dir);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        heldHere.delete(dir);
        if (holderOf(file) === process.pid) unlinkSync(file);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = holderOf(file);
      const inUse = holder !== undefined && (holder === process.pid ? heldHere.has(dir) : running(holder));
      if (inUse) throw new DataDirInUseError(dir, holder);
      if (attempt > 0) throw err;
      // Stale (its process is gone) or unreadable: taken over.
      unlinkSync(file);
    }
  }
}
