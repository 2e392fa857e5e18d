import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeDataDir, PRIVATE_FILE_MODE } from './data-dir';
import { isSameProcess, type ProcessToken, tokenOf } from './process-identity';

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

interface Holder extends ProcessToken {
  pid: number;
  /** A random id of the taking, so a process releases only the lock it wrote. */
  id?: string;
}

/**
 * The lock file: the holder's process id on the first line (as earlier versions wrote it), then
 * `boot=... start=... id=...` (what tells a live process with that id from the holder).
 */
function formatLock(holder: Holder): string {
  const token = (['boot', 'start', 'id'] as const).filter((k) => holder[k] !== undefined).map((k) => `${k}=${holder[k]}`);
  return `${holder.pid}\n${token.join(' ')}\n`;
}

function holderOf(file: string): Holder | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const [first = '', second = ''] = text.split('\n');
  const pid = Number.parseInt(first, 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const holder: Holder = { pid };
  for (const pair of second.trim().split(/\s+/)) {
    const [key, value] = pair.split('=');
    if ((key === 'boot' || key === 'start' || key === 'id') && value) holder[key] = value;
  }
  return holder;
}

/**
 * Whether the process a lock names still holds it: it runs, and it is that process. A zombie, a
 * process that reused the id (a later boot, another start time, or, for a lock without a start time,
 * a program that is not a Mailyard: a container restarted on a persistent volume) does not.
 */
function holds(holder: Holder, dir: string): boolean {
  if (holder.pid === process.pid) return heldHere.has(dir);
  return running(holder.pid) && isSameProcess(holder.pid, holder);
}

/**
 * Takes the data directory for this process, so two emulators never share one store: both would send
 * every pending webhook and run every scheduled event, and the SQLite file would be written by two
 * schedulers at once. The lock is a file naming the process (id, boot and start time), created
 * exclusively. A lock left by a process that no longer runs (after a crash or kill -9), a zombie, or
 * a process that only has the same id, is taken over at once. Returns the release.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  const file = join(dir, LOCK_FILE);
  makeDataDir(dir);
  const mine: Holder = { pid: process.pid, ...tokenOf(process.pid), id: randomBytes(8).toString('hex') };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
      try {
        writeSync(fd, formatLock(mine));
      } finally {
        closeSync(fd);
      }
      heldHere.add(dir);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        heldHere.delete(dir);
        const now = holderOf(file);
        if (now?.pid === mine.pid && now.id === mine.id) unlinkSync(file);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = holderOf(file);
      if (holder !== undefined && holds(holder, dir)) throw new DataDirInUseError(dir, holder.pid);
      if (attempt > 0) throw err;
      // Stale (its process is gone, or is not the one that took it) or unreadable: taken over.
      unlinkSync(file);
    }
  }
}
