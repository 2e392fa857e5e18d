import type { Logger } from 'pino';

/** How long a worker stopped by a full disk waits before it tries again (wall time). */
export const STORE_FULL_RETRY_MS = 1_000;

/** The words a request refused for a full disk gets (HTTP 507, SMTP 451). */
export const STORE_FULL_MESSAGE =
  'The disk of the data directory is full: nothing new can be stored. Free some space (or reset the emulator); Mailyard goes on by itself once there is room';

/** Whether `err` says the store could not write for lack of space (SQLite's SQLITE_FULL, a file write's ENOSPC). */
export function isStoreFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

export interface StoreSpaceState {
  full: boolean;
  /** When the disk was first found full, while it is. */
  since: string | null;
}

/**
 * Whether the store has room to write, as the last writes found it. A worker whose write fails for a
 * full disk reports it here (`failed`), keeps what it had not committed, and tries again after
 * STORE_FULL_RETRY_MS; the first write that succeeds afterwards reports room again (`wrote`). Each
 * change is logged once and announced, so the UI can say the disk is full.
 */
export class StoreSpace {
  private fullSince: number | null = null;
  private readonly listeners = new Set<(state: StoreSpaceState) => void>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  state(): StoreSpaceState {
    return { full: this.fullSince !== null, since: this.fullSince === null ? null : new Date(this.fullSince).toISOString() };
  }

  /** Reports a failed write; true when it failed for a full disk (the caller waits and tries again). */
  failed(err: unknown): boolean {
    if (!isStoreFull(err)) return false;
    if (this.fullSince === null) {
      this.fullSince = this.now();
      this.logger.error({ err }, 'the disk of the data directory is full: new mail, sends and events are refused, and the workers wait for space');
      this.changed();
    }
    return true;
  }

  /** Reports a write that succeeded (cheap when the disk was not full). */
  wrote(): void {
    if (this.fullSince === null) return;
    this.fullSince = null;
    this.logger.warn('the data directory has room again: the workers go on');
    this.changed();
  }

  onChange(listener: (state: StoreSpaceState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    const state = this.state();
    for (const l of this.listeners) l(state);
  }
}
