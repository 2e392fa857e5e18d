import type { Readable } from 'node:stream';

/**
 * The bytes of messages arriving or being stored at once, all connections together. A message takes
 * its bytes as they arrive and gives them back once it is stored (or refused); one whose next chunk
 * would pass the budget is refused as a whole (the sink answers 451, try again later), so the memory
 * of messages in flight stays bounded however many clients send at once.
 */
export class InFlightBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` when they fit; false (nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** What is free now. */
  get free(): number {
    return this.limit - this.used;
  }

  get inUse(): number {
    return this.used;
  }
}

/** How reading one DATA ended: the message (its bytes held in the budget until `release`), or why not. */
export type DataOutcome = { kind: 'message'; raw: Buffer; release: () => void } | { kind: 'too-large' } | { kind: 'busy' };

/**
 * Reads a DATA stream to its end, its bytes taken from `budget` as they arrive. Past the size limit,
 * or once the budget cannot take a chunk, what was kept is dropped (and given back) and the rest is
 * read through and dropped; the stream is always read to its end, so the client gets its answer.
 */
export function readData(stream: Readable & { sizeExceeded?: boolean }, limit: number, budget: InFlightBudget): Promise<DataOutcome> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let held = 0;
    let refused = false;
    let ended = false;
    const giveBack = () => {
      budget.give(held);
      held = 0;
      chunks = [];
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused || size > limit) {
        if (held > 0) giveBack();
        return;
      }
      if (!budget.take(chunk.length)) {
        refused = true;
        giveBack();
        return;
      }
      held += chunk.length;
      chunks.push(chunk);
    });
    stream.once('end', () => {
      ended = true;
      if (size > limit || stream.sizeExceeded) {
        giveBack();
        return resolve({ kind: 'too-large' });
      }
      if (refused) return resolve({ kind: 'busy' });
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      chunks = [];
      let released = false;
      resolve({
        kind: 'message',
        raw,
        release: () => {
          if (released) return;
          released = true;
          giveBack();
        },
      });
    });
    stream.once('error', (err) => {
      if (ended) return;
      giveBack();
      reject(err);
    });
  });
}
