/**
 * Waiting for what the emulator records (webhook deliveries, captured messages) to match a
 * predicate: checked at once, again whenever the emulator announces a change (its live bus), and
 * every `pollMs` besides. A time-out names what did arrive, so a failing test says what happened,
 * and why nothing may ever match when the emulator's set-up says so (diagnose.ts).
 */

export interface WaitOptions {
  /** How long to wait before failing (default 5000 ms of wall time). */
  timeoutMs?: number | undefined;
  /** With a function predicate: re-check at least this often even when no change was announced (default 100 ms). */
  pollMs?: number | undefined;
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
  /** On a time-out: why nothing may ever match, read from the emulator's set-up (diagnose.ts). */
  explain?: () => Promise<string[]>;
}

/** At most this many records are listed in a time-out message (the error's `arrived` has them all). */
const LISTED = 20;

export async function waitForMatch<T>(spec: WaitSpec<T>, predicate: (record: T) => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<T> {
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
  const lines = [timeoutMessage(spec, timeoutMs, last, errors, firstError), ...(await explanation(spec.explain))];
  throw new WaitTimeoutError(lines.join('\n'), last);
}

/** The explanation's lines; none when the emulator could not be asked (the time-out is the news). */
async function explanation(explain: (() => Promise<string[]>) | undefined): Promise<string[]> {
  try {
    return (await explain?.()) ?? [];
  } catch {
    return [];
  }
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

/** One long poll: what matches now, or after up to `waitMs` (empty when nothing did). */
export type LongPoll<S> = (waitMs: number) => Promise<S[]>;

/** One long poll holds a request this long at most; a longer wait asks again. */
const LONG_POLL_SLICE_MS = 10_000;

/**
 * Waits on the emulator: long polls with the filter until one matches or the time is up. Each poll
 * costs what the filter's lookup costs there, whatever the store holds.
 */
export async function waitOnServer<S, T>(
  spec: {
    helper: string;
    what: string;
    filter: object;
    recent: () => Promise<S[]>;
    describe: (record: S) => string;
    explain?: () => Promise<string[]>;
  },
  poll: LongPoll<S>,
  detail: (match: S) => Promise<T>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = Math.max(0, deadline - Date.now());
    const found = await poll(Math.min(left, LONG_POLL_SLICE_MS));
    if (found.length > 0) return detail(found[0]!);
    if (Date.now() >= deadline) break;
  }
  const recent = await spec.recent();
  const lines = [`${spec.helper}: no ${spec.what} matched ${JSON.stringify(spec.filter)} within ${timeoutMs} ms.`];
  if (recent.length === 0) lines.push(`No ${spec.what} arrived at all.`);
  else {
    lines.push(`The newest ${plural(recent.length, spec.what)} (oldest first):`);
    for (const record of recent) lines.push(`  - ${spec.describe(record)}`);
  }
  lines.push(...(await explanation(spec.explain)));
  throw new WaitTimeoutError(lines.join('\n'), recent);
}
