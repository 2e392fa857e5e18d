/**
 * `MAILYARD_BENCH_SMOKE=1` runs every benchmark at a tiny size. `npm test` does (test/integration/
 * benchmarks.test.ts), so a benchmark that stops running (a schema change, a renamed option) fails the
 * tests instead of going unseen. Its figures mean nothing then, and its targets are not checked.
 */
export const SMOKE = process.env.MAILYARD_BENCH_SMOKE === '1';

/**
 * `npm run bench:guard` (MAILYARD_BENCH_GUARD=1) runs the intake benchmarks in a short form and checks
 * floors well below their targets (see test/bench/guard.mjs): CI fails on a change that makes intake
 * two or three times slower, not on ordinary noise.
 */
export const GUARD = process.env.MAILYARD_BENCH_GUARD === '1';

/** `full` normally, `smoke` in a smoke run, `guard` (default `full`) in a guard run. */
export const sized = <T>(full: T, smoke: T, guard: T = full): T => (SMOKE ? smoke : GUARD ? guard : full);

/** The `p`th percentile of `xs` (nearest rank; `xs` is not changed). */
export const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
