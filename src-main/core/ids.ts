import { getRandomValues } from 'node:crypto';
import { monotonicFactory, type ULIDFactory } from 'ulid';

/**
 * A random source for ULIDs that draws from the system CSPRNG in blocks: the ulid library asks for one
 * random number per character, and a system call for each was a measurable part of every send.
 */
function pooledRandom(size = 2048): () => number {
  const pool = new Uint32Array(size);
  let next = size;
  return () => {
    if (next === size) {
      getRandomValues(pool);
      next = 0;
    }
    return pool[next++]! / 0x1_0000_0000;
  };
}

const tokenRandom = pooledRandom(512);

/** 64 random bits as 16 hex digits (MIME boundaries), from a pooled random source. */
export function randomHex64(): string {
  const word = () =>
    Math.floor(tokenRandom() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  return word() + word();
}

/** ULIDs in creation order even within one millisecond (lists page by them), from a pooled random source. */
export function monotonicUlids(): ULIDFactory {
  return monotonicFactory(pooledRandom());
}
