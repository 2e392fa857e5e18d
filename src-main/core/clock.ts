/**
 * The source of time for everything that stamps or schedules. Injected, never imported as a global.
 * Scheduled work waits on `setTimer` in emulated time, so speeding the clock up or jumping it ahead
 * makes due work run at once; nothing schedules on wall time directly.
 */
export interface Clock {
  /** Milliseconds since the epoch, as the emulator sees it. */
  now(): number;
  /** Calls `fn` once emulated time reaches `at`. Returns a function that cancels the timer. */
  setTimer(at: number, fn: () => void): () => void;
}

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

export interface ClockState {
  now: number;
  speed: number;
  /** How far emulated time is ahead of wall time. */
  offsetMs: number;
}

/** Largest delay setTimeout accepts; longer waits are re-armed when it fires. */
const MAX_TIMEOUT = 2 ** 31 - 1;

interface Timer {
  at: number;
  fn: () => void;
  handle?: ReturnType<typeof setTimeout>;
}

/**
 * Emulated time: wall time plus an offset, running at `speed` (1 = real time, 60 = a minute per
 * second, 0 = paused). `advance(ms)` jumps ahead. Every change re-arms the pending timers.
 */
export class EmulatorClock implements Clock {
  private anchorWall: number;
  private anchorEmu: number;
  private currentSpeed = 1;
  private readonly timers = new Set<Timer>();
  private readonly listeners = new Set<(state: ClockState) => void>();

  constructor(
    offsetMs = 0,
    private readonly wall: () => number = Date.now,
  ) {
    this.anchorWall = wall();
    this.anchorEmu = this.anchorWall + offsetMs;
  }

  now(): number {
    return this.at(this.wall());
  }

  /** The emulated time at wall time `wall`. */
  private at(wall: number): number {
    return Math.floor(this.anchorEmu + (wall - this.anchorWall) * this.currentSpeed);
  }

  get speed(): number {
    return this.currentSpeed;
  }

  state(): ClockState {
    // One reading of the wall clock for both: a busy machine may let it move between two.
    const wall = this.wall();
    const now = this.at(wall);
    return { now, speed: this.currentSpeed, offsetMs: now - wall };
  }

  setSpeed(speed: number): void {
    if (!(speed >= 0) || !Number.isFinite(speed)) throw new RangeError('speed must be a finite number >= 0');
    this.rebase();
    this.currentSpeed = speed;
    this.changed();
  }

  /** Jumps emulated time forward. Time never goes back, so scheduled work keeps its order. */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError('advance must be a finite number >= 0');
    this.rebase();
    this.anchorEmu += ms;
    this.changed();
  }

  /**
   * Back to wall time at real speed: the one move that takes time back, for a reset that has wiped
   * every piece of scheduled work first.
   */
  reset(): void {
    this.anchorWall = this.wall();
    this.anchorEmu = this.anchorWall;
    this.currentSpeed = 1;
    this.changed();
  }

  setTimer(at: number, fn: () => void): () => void {
    const timer: Timer = { at, fn };
    this.timers.add(timer);
    this.arm(timer);
    return () => {
      clearTimeout(timer.handle);
      this.timers.delete(timer);
    };
  }

  /** Called after every speed change or jump (for example to persist the offset). */
  onChange(listener: (state: ClockState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Cancels every timer (on shutdown). */
  dispose(): void {
    for (const t of this.timers) clearTimeout(t.handle);
    this.timers.clear();
    this.listeners.clear();
  }

  private rebase(): void {
    const wall = this.wall();
    this.anchorEmu = this.anchorEmu + (wall - this.anchorWall) * this.currentSpeed;
    this.anchorWall = wall;
  }

  private arm(timer: Timer): void {
    clearTimeout(timer.handle);
    timer.handle = undefined;
    const remaining = timer.at - this.now();
    if (remaining <= 0) {
      // Due now: run on the next tick, never synchronously inside the caller.
      timer.handle = setTimeout(() => this.fire(timer), 0);
      return;
    }
    if (this.currentSpeed === 0) return; // paused: only a jump or a speed change makes it due
    const wallDelay = Math.min(Math.ceil(remaining / this.currentSpeed), MAX_TIMEOUT);
    timer.handle = setTimeout(() => (timer.at <= this.now() ? this.fire(timer) : this.arm(timer)), wallDelay);
  }

  private fire(timer: Timer): void {
    if (!this.timers.delete(timer)) return;
    timer.fn();
  }

  private changed(): void {
    for (const t of this.timers) this.arm(t);
    const state = this.state();
    for (const l of this.listeners) l(state);
  }
}

/**
 * One alarm on the emulator clock: `set(at)` (re)arms it for the emulated time `at` (null disarms);
 * it rings once. Workers use it to wake for their next scheduled work.
 */
export class ClockAlarm {
  private cancel: (() => void) | undefined;
  private at: number | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ring: () => void,
  ) {}

  set(at: number | null): void {
    if (at === null) {
      this.clear();
      return;
    }
    if (at === this.at) return;
    this.clear();
    this.at = at;
    this.cancel = this.clock.setTimer(at, () => {
      this.at = undefined;
      this.cancel = undefined;
      this.ring();
    });
  }

  clear(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.at = undefined;
  }
}
