import { defineConfig } from 'vitest/config';

/** `npm run test:reliability`: the reliability suite alone (it is part of `npm test` too). */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
