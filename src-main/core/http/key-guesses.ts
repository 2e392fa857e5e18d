import type { FastifyBaseLogger } from 'fastify';

/** How many wrong control keys are taken, and over what window (docs/limits.md). */
export interface KeyGuessLimits {
  /** Wrong keys from one client address within the window; the next key it sends is answered 429. */
  perAddress: number;
  /** Wrong keys from all addresses together within the window; past it every key is answered 429. */
  inAll: number;
  windowMs: number;
}

export const KEY_GUESS_LIMITS: KeyGuessLimits = { perAddress: 10, inAll: 100, windowMs: 60_000 };

/** Why a key is not checked now, and for how long. */
export interface KeyThrottled {
  retryAfterMs: number;
  /** Whose wrong keys filled the window: this address's, or everyone's. */
  by: 'address' | 'all';
  limits: KeyGuessLimits;
}

/** Times of wrong keys within the window, oldest first (no more than the bound they are checked against). */
class Window {
  readonly times: number[] = [];
  prune(now: number, windowMs: number): void {
    while (this.times.length > 0 && this.times[0]! <= now - windowMs) this.times.shift();
  }
}

/**
 * Slows guessing of the control key: the wrong keys of each client address, and of all together, are
 * counted over a sliding window; once one is full, every key sent (the right one too, or a guess would
 * show by being let in) is answered 429 until its oldest wrong key leaves the window. Logins already
 * made go on: their cookies are not keys. The log gets a line at the first wrong key after a quiet
 * while and one when keys are throttled, then a summary a window later (the wrong keys, the keys
 * refused unchecked, from which addresses), never a line per attempt.
 */
export class KeyGuesses {
  private readonly byAddress = new Map<string, Window>();
  private readonly all = new Window();
  /** Since the pending summary was begun: wrong keys, keys answered 429 unchecked, and from which addresses (the first ten). */
  private wrongKeys = 0;
  private refused = 0;
  private readonly from = new Set<string>();
  private summary: NodeJS.Timeout | undefined;

  constructor(
    private readonly now: () => number,
    private readonly log: FastifyBaseLogger,
    private readonly limits: KeyGuessLimits = KEY_GUESS_LIMITS,
  ) {}

  /** Whether a key from `address` may be checked now; when not, the refusal is counted for the summary. */
  throttled(address: string): KeyThrottled | undefined {
    const now = this.now();
    const { windowMs, perAddress, inAll } = this.limits;
    this.all.prune(now, windowMs);
    const mine = this.byAddress.get(address);
    mine?.prune(now, windowMs);
    let retryAfterMs = 0;
    let by: KeyThrottled['by'] = 'address';
    if (mine && mine.times.length >= perAddress) retryAfterMs = mine.times[mine.times.length - perAddress]! + windowMs - now;
    if (this.all.times.length >= inAll) {
      const wait = this.all.times[this.all.times.length - inAll]! + windowMs - now;
      if (wait > retryAfterMs) [retryAfterMs, by] = [wait, 'all'];
    }
    if (retryAfterMs <= 0) return undefined;
    this.refused++;
    this.summed(address);
    return { retryAfterMs, by, limits: this.limits };
  }

  /** Counts a wrong key from `address`. */
  wrong(address: string): void {
    const now = this.now();
    const { windowMs, perAddress, inAll } = this.limits;
    let mine = this.byAddress.get(address);
    if (!mine) {
      this.forgetQuiet(now);
      mine = new Window();
      this.byAddress.set(address, mine);
    }
    mine.prune(now, windowMs);
    this.all.prune(now, windowMs);
    if (!this.summary) this.log.warn({ remote: address }, `wrong control key from ${address} (those that follow are summed up every ${windowMs / 1000} s)`);
    this.wrongKeys++;
    this.summed(address);
    mine.times.push(now);
    if (mine.times.length > perAddress) mine.times.shift();
    this.all.times.push(now);
    if (this.all.times.length > inAll) this.all.times.shift();
    if (mine.times.length === perAddress) this.throttling(address, `${perAddress} wrong control keys from ${address} within ${windowMs / 1000} s`);
    else if (this.all.times.length === inAll) this.throttling(address, `${inAll} wrong control keys from all addresses within ${windowMs / 1000} s`);
  }

  /** Ends the pending summary's timer (the listener closes). */
  close(): void {
    clearTimeout(this.summary);
    this.summary = undefined;
  }

  private throttling(address: string, why: string): void {
    this.log.warn({ remote: address }, `${why}: keys are answered 429 for up to ${this.limits.windowMs / 1000} s`);
  }

  /** Counts `address` in the pending summary, begun (a window from now) if none is. */
  private summed(address: string): void {
    if (this.from.size < 10) this.from.add(address);
    if (this.summary) return;
    this.summary = setTimeout(() => {
      this.summary = undefined;
      const from = [...this.from];
      // The first wrong key was logged by itself: a summary says more than that one alone.
      if (this.wrongKeys > 1 || this.refused > 0) {
        this.log.warn(
          { wrong: this.wrongKeys, refused: this.refused, remotes: from },
          `${this.wrongKeys} wrong control keys and ${this.refused} more answered 429 unchecked in ${this.limits.windowMs / 1000} s, from ${from.join(', ')}`,
        );
      }
      this.wrongKeys = 0;
      this.refused = 0;
      this.from.clear();
    }, this.limits.windowMs);
    this.summary.unref();
  }

  /** Drops addresses whose wrong keys have all left the window (so the map stays as small as the window's guesses). */
  private forgetQuiet(now: number): void {
    if (this.byAddress.size < this.limits.inAll) return;
    for (const [address, window] of this.byAddress) {
      window.prune(now, this.limits.windowMs);
      if (window.times.length === 0) this.byAddress.delete(address);
    }
  }
}
