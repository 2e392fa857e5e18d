/**
 * `MAILYARD_BENCH_SMOKE=1` runs every benchmark at a tiny size. `npm test` does (test/integration/
 * benchmarks.test.ts), so a benchmark that stops running (a schema change, a renamed option) fails the
 * tests instead of going unseen. Its figures mean nothing then, and its targets are not checked.
 */
export const SMOKE = process.env.MAILYARD_BENCH_SMOKE === '1';

/** `full` normally, `smoke` in a smoke run. */
export const sized = <T>(full: T, smoke: T): T => (SMOKE ? smoke : full);

/** The `p`th percentile of `xs` (nearest rank; `xs` is not changed). */
export const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
