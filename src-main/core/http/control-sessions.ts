import { randomBytes } from 'node:crypto';

/** How long a web UI login lasts, in wall time: a working day. */
export const CONTROL_SESSION_MS = 12 * 60 * 60 * 1000;

/** Logins held at once at most; one more ends the oldest (each login needs the key, so only a script logging in over and over gets here). */
export const MAX_CONTROL_SESSIONS = 1000;

/**
 * The web UI's logins. Each is a random id (32 bytes) that only this server holds, with the time it
 * ends; the login cookie carries the id and nothing else. Logout and expiry end it here, so a copied
 * cookie is worth nothing after either, and a restart ends every login (they live in memory). Time is
 * wall time, never the emulator clock: moving that must log no one out.
 */
export class ControlSessions {
  /** Each login's id and the wall time it ends, in the order they began. */
  private readonly ends = new Map<string, number>();

  constructor(
    private readonly now: () => number = Date.now,
    readonly lifetimeMs = CONTROL_SESSION_MS,
  ) {}

  /** A new login: its id, for the cookie. */
  begin(): string {
    const now = this.now();
    for (const [id, end] of this.ends) if (end <= now) this.ends.delete(id);
    if (this.ends.size >= MAX_CONTROL_SESSIONS) this.ends.delete(this.ends.keys().next().value!);
    const id = randomBytes(32).toString('base64url');
    this.ends.set(id, now + this.lifetimeMs);
    return id;
  }

  /** Whether `id` is a login that has neither ended nor expired. */
  holds(id: string): boolean {
    const end = this.ends.get(id);
    if (end === undefined) return false;
    if (end > this.now()) return true;
    this.ends.delete(id);
    return false;
  }

  end(id: string): void {
    this.ends.delete(id);
  }
}
