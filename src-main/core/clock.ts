/**
 * The source of time for everything that stamps or schedules. Injected, never imported as a global,
 * so that the emulator clock (speed, jump ahead) can replace it.
 */
export interface Clock {
  /** Milliseconds since the epoch, as the emulator sees it. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
