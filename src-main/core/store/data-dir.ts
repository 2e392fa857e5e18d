import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * The data directory holds API keys, webhook signing secrets, DKIM private keys, the key of mailer
 * secrets and every captured message: what Mailyard creates there is its owner's only. A mode given
 * at creation is never widened by the umask (it only takes bits away), so nothing is ever readable by
 * others, not even between a create and a chmod.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the data directory (and any missing parent) owner-only; one that exists is left as it is. Returns whether it was made now. */
export function makeDataDir(dir: string): boolean {
  return mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE }) !== undefined;
}

/**
 * Creates an empty file owner-only when it does not exist; one that exists is left as it is. SQLite
 * creates a database's `-wal` and `-shm` files with the database file's own mode, so a database file
 * made here first gets private companions without a umask change or a chmod race.
 */
export function makePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
}

/**
 * Makes the data directory if it is missing; for one that already existed, a warning when other users
 * have any access to it (read, or enter and read files by name). Mode bits mean nothing on Windows.
 */
export function prepareDataDir(dir: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (makeDataDir(dir) || platform === 'win32') return undefined;
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return (
    `the data directory ${dir} is open to other users (mode ${mode.toString(8).padStart(4, '0')}): it holds API keys, ` +
    `webhook and DKIM secrets and every captured message. Make it private: chmod 700 ${shellWord(dir)}`
  );
}

/** A path as one word of a POSIX shell command line. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
