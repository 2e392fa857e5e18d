/**
 * Waiting for what the emulator records (webhook deliveries, captured messages) to match a
 * predicate: checked at once, again whenever the emulator announces a change (its live bus), and
 * every `pollMs` besides. A time-out names what did arrive, so a failing test says what happened.
 */

export interface WaitOptions {
  /** How long to wait before failing (default 5000 ms of wall time). */
  timeoutMs?: number;
  /** Re-check at least this often even when no change was announced (default 100 ms). */
  pollMs?: number;
}

/** A `waitFor...` helper gave up: `arrived` holds every record it saw at the end, oldest first. */
export class WaitTimeoutError<T = unknown> extends Error {
  constructor(
    message: string,
    readonly arrived: T[],
  ) {
    super(message);
    this.name = 'WaitTimeoutError';
  }
}

export interface WaitSpec<T> {
  /** What is waited for, in words: "webhook delivery", "captured message". */
  what: string;
  /** The helper's name for messages: "waitForDelivery". */
  helper: string;
  /** Everything recorded so far, oldest first. */
  collect: () => Promise<T[]>;
  /** One line per record in the time-out message. */
  describe: (record: T) => string;
  /** Resolves the next time the emulator announces a change; the returned function stops listening. */
  subscribe: (changed: () => void) => () => void;
}

/** At most this many records are listed in a time-out message (the error's `arrived` has them all). */
const LISTED = 20;

export async function waitForMatch<T>(
  spec: WaitSpec<T>,
  predicate: (record: T) => boolean | Promise<boolean>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const pollMs = options.pollMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let changes = 0;
  let wake: (() => void) | undefined;
  const unsubscribe = spec.subscribe(() => {
    changes++;
    wake?.();
  });
  let firstError: unknown;
  let errors = 0;
  let last: T[] = [];
  try {
    for (;;) {
      const seenChanges = changes;
      last = await spec.collect();
      errors = 0;
      firstError = undefined;
      for (const record of last) {
        let matched = false;
        try {
          matched = await predicate(record);
        } catch (err) {
          // A predicate that throws on a record it did not expect (a payload without `recipient`, say)
          // does not match it; the time-out message reports the first such error.
          errors++;
          firstError ??= err;
        }
        if (matched) return record;
      }
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (changes !== seenChanges) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(pollMs, left));
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    }
  } finally {
    unsubscribe();
  }
  throw new WaitTimeoutError(timeoutMessage(spec, timeoutMs, last, errors, firstError), last);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function timeoutMessage<T>(spec: WaitSpec<T>, timeoutMs: number, arrived: T[], errors: number, firstError: unknown): string {
  const lines = [`${spec.helper}: no ${spec.what} matched within ${timeoutMs} ms.`];
  if (arrived.length === 0) lines.push(`No ${spec.what} arrived at all.`);
  else {
    lines.push(`${plural(arrived.length, spec.what)} arrived (oldest first):`);
    const shown = arrived.length > LISTED ? arrived.slice(-LISTED) : arrived;
    if (shown.length < arrived.length) lines.push(`  ... ${arrived.length - shown.length} older ones not listed (see the error's \`arrived\`)`);
    for (const record of shown) lines.push(`  - ${spec.describe(record)}`);
  }
  if (errors > 0) {
    const detail = firstError instanceof Error ? `${firstError.name}: ${firstError.message}` : String(firstError);
    lines.push(`The predicate threw for ${plural(errors, 'record')} (taken as no match); the first error: ${detail}`);
  }
  return lines.join('\n');
}
