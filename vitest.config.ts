import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The reliability suite (test/reliability) holds bounds on time measured against the same run; it
    // runs on its own, one file at a time (`npm run test:reliability`, CI after `npm test`), so a busy
    // machine running this suite's files side by side never turns `npm test` red.
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests start real listeners; keep the two cores of CI busy but not oversubscribed.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
