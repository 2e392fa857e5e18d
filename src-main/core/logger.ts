import pino, { type Logger } from 'pino';

/** One structured logger, to stderr (stdout carries the start-up lines). */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined }, pino.destination({ fd: 2, sync: false }));
}
