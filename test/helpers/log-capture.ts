import { Writable } from 'node:stream';
import pino from 'pino';

/** A logger for the emulator (`seams.logger`) that keeps its lines, as pino writes them, from `level` (default `warn`) up. */
export function logCapture(level: 'info' | 'warn' = 'warn') {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level }, stream) };
}
