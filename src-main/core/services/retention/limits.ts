export { parseMaxAge } from '../../../../src-shared/retention';

/**
 * The copies a store in a data directory keeps when no limit is given: the desktop app stays open for
 * weeks, and its store must not grow without end. 20,000 is a few weeks of a busy app's test mail (500
 * copies a working day for 40 days) and well past anything one test run or demo looks back at; at the
 * 5 KB sends docs/benchmarks.md measures (about 5 KB a copy once compacted) it is about 100 MB of disk.
 * Mailpit keeps 500 by default; a larger default suits a tool that also keeps events and deliveries to
 * inspect. A store in memory keeps everything unless told (it ends with the process).
 */
export const DEFAULT_MAX_MESSAGES = 20_000;

/** The limits in force: 0 is no limit. */
export interface RetentionLimits {
  maxMessages: number;
  maxAgeMs: number;
}

/** The limits at start: given ones win, then those saved from the Settings screen, then the defaults (see DEFAULT_MAX_MESSAGES). */
export function startLimits(
  given: { maxMessages?: number; maxAge?: number },
  saved: Partial<RetentionLimits> | undefined,
  persistent: boolean,
): RetentionLimits {
  return {
    maxMessages: given.maxMessages ?? saved?.maxMessages ?? (persistent ? DEFAULT_MAX_MESSAGES : 0),
    maxAgeMs: given.maxAge ?? saved?.maxAgeMs ?? 0,
  };
}
