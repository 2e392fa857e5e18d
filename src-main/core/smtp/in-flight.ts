import type { Readable } from 'node:stream';

interface Waiter {
  bytes: number;
  granted: () => void;
  urgent: boolean;
}

/**
 * The bytes of messages arriving or being stored at once, all connections together. Bytes are taken
 * at once when they fit, or waited for in turn (first come, first served, the urgent before the
 * others): what is given back goes to the longest waiting first.
 */
export class InFlightBudget {
  private used = 0;
  private readonly waiters: Waiter[] = [];
  /** Messages holding room for a whole message: each finishes without waiting, so bytes will come back. */
  largeHolders = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` when they fit; with `inTurn`, only when nobody waits either. False (nothing taken) otherwise. */
  take(bytes: number, inTurn = false): boolean {
    if ((inTurn && this.waiters.length > 0) || this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  /** Waits its turn for `bytes` (never more than the limit); `granted` runs once they are taken. Answers a cancel. */
  wait(bytes: number, granted: () => void, urgent = false): () => void {
    const waiter: Waiter = { bytes: Math.min(bytes, this.limit), granted, urgent };
    const at = urgent ? this.waiters.findIndex((w) => !w.urgent) : -1;
    if (at >= 0) this.waiters.splice(at, 0, waiter);
    else this.waiters.push(waiter);
    this.grant();
    return () => {
      const at = this.waiters.indexOf(waiter);
      if (at >= 0) this.waiters.splice(at, 1);
      this.grant();
    };
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
    this.grant();
  }

  get inUse(): number {
    return this.used;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  private grant(): void {
    while (this.waiters.length > 0 && this.used + this.waiters[0]!.bytes <= this.limit) {
      const waiter = this.waiters.shift()!;
      this.used += waiter.bytes;
      waiter.granted();
    }
  }
}

/** How reading one DATA ended: the message (its bytes held in the budget until `release`), or why not. */
export type DataOutcome =
  | {
      kind: 'message';
      raw: Buffer;
      /** The message with `line` before its first byte, without copying a message joined from chunks again (see joined). */
      prepend: (line: Buffer) => Buffer;
      release: () => void;
    }
  | { kind: 'too-large' }
  | { kind: 'busy' };

/** Room kept before a message's bytes when its chunks are joined, for a line intake adds at its start (a Message-ID line is about 70 bytes). */
const HEADROOM = 128;

/**
 * A message's chunks as one buffer, with HEADROOM before it: `prepend` writes a short line there and
 * answers the widened view, so a 24 MB message without a Message-ID is copied once, not twice. A
 * message of one chunk is not copied at all (and a line is prepended by copying it).
 */
function joined(chunks: Buffer[], size: number): { raw: Buffer; prepend: (line: Buffer) => Buffer } {
  if (chunks.length === 1) {
    const raw = chunks[0]!;
    return { raw, prepend: (line) => Buffer.concat([line, raw]) };
  }
  const whole = Buffer.allocUnsafe(HEADROOM + size);
  let at = HEADROOM;
  for (const chunk of chunks) at += chunk.copy(whole, at);
  const raw = whole.subarray(HEADROOM);
  const prepend = (line: Buffer): Buffer => {
    if (line.length > HEADROOM) return Buffer.concat([line, raw]);
    line.copy(whole, HEADROOM - line.length);
    return whole.subarray(HEADROOM - line.length);
  };
  return { raw, prepend };
}

/** A message up to this size takes its bytes from the budget as they arrive; a larger one waits for room for the largest message. */
export const SMALL_MESSAGE_BYTES = 1024 * 1024;

/**
 * Reads a DATA stream to its end, its bytes held in `budget`. A message takes its bytes as they
 * arrive while it is small; once it grows past SMALL_MESSAGE_BYTES it waits its turn (the stream
 * paused, so TCP holds the client back) until the budget has room for a whole message of `limit`
 * bytes, and holds that room until it is stored: however many clients send large messages at once,
 * at most budget/limit of them are in memory. A small message waits (first) when the budget is full
 * and a large one holds room (it will give it back); when only small ones fill it, it is refused
 * (`busy`, the rest read through and dropped). Past the size limit, what was kept is dropped.
 */
export function readData(stream: Readable & { sizeExceeded?: boolean }, limit: number, budget: InFlightBudget): Promise<DataOutcome> {
  const small = Math.min(SMALL_MESSAGE_BYTES, limit);
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    /** Bytes this message holds in the budget. */
    let held = 0;
    let large = false;
    let refused = false;
    let ended = false;
    let cancelWait: (() => void) | null = null;
    const giveBack = () => {
      cancelWait?.();
      cancelWait = null;
      if (large) budget.largeHolders--;
      large = false;
      budget.give(held);
      held = 0;
      chunks = [];
    };
    const becomeLarge = (more: number) => {
      held += more;
      large = true;
      budget.largeHolders++;
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused || size > limit) {
        if (held > 0 || cancelWait) giveBack();
        return;
      }
      chunks.push(chunk);
      if (large) return;
      if (size <= small) {
        if (budget.take(chunk.length)) {
          held += chunk.length;
        } else if (budget.largeHolders > 0) {
          stream.pause();
          cancelWait = budget.wait(
            chunk.length,
            () => {
              cancelWait = null;
              held += chunk.length;
              stream.resume();
            },
            true,
          );
        } else {
          refused = true;
          giveBack();
        }
        return;
      }
      // Grown past small: room for a whole message, in turn (what it holds so far counts).
      const more = limit - held;
      if (budget.take(more, true)) return becomeLarge(more);
      stream.pause();
      cancelWait = budget.wait(more, () => {
        cancelWait = null;
        becomeLarge(more);
        stream.resume();
      });
    });
    stream.once('end', () => {
      ended = true;
      if (size > limit || stream.sizeExceeded) {
        giveBack();
        return resolve({ kind: 'too-large' });
      }
      if (refused) return resolve({ kind: 'busy' });
      const { raw, prepend } = joined(chunks, size);
      chunks = [];
      let released = false;
      resolve({
        kind: 'message',
        raw,
        prepend,
        release: () => {
          if (released) return;
          released = true;
          giveBack();
        },
      });
    });
    const abandon = (err?: Error) => {
      if (ended) return;
      giveBack();
      if (err) reject(err);
    };
    stream.once('error', abandon);
    stream.once('close', () => abandon());
  });
}
