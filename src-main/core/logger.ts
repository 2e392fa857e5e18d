import type { Logger } from 'pino';
import { lazyRequire } from './lazy-load';

// Required at the first logger made (an emulator's start), not with the package: importing
// `mailyard/testing` in every test file pays for none of it.
const pino = lazyRequire<typeof import('pino')>('pino');

/** One structured logger, to stderr (stdout carries the start-up lines). */
export function createLogger(level: string): Logger {
  const { pino: make, destination } = pino();
  return make({ level, base: undefined }, destination({ fd: 2, sync: false }));
}
