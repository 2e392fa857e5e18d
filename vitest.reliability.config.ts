import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: the reliability suite (load, memory, event-loop and time-out checks),
 * one file at a time; not part of `npm test`, CI runs it after `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
