import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/reliability/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests start real listeners; keep the two cores of CI busy but not oversubscribed.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
