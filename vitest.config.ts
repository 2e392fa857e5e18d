import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A poll (expect.poll) passes as soon as what it waits for is there; on a busy machine that can take
    // more than vitest's default second (an imported message's delivery event did), never 10.
    expect: { poll: { timeout: 10_000 } },
    // Integration tests start real listeners; keep the two cores of CI busy but not oversubscribed.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    // The reliability suite (test/reliability) holds bounds on time measured against the same run; it
    // runs on its own, one file at a time (`npm run test:reliability`, CI after `npm test`), so a busy
    // machine running this suite's files side by side never turns `npm test` red.
    projects: [
      // Unit tests mock modules (vi.mock) and globals: each file imports its modules afresh.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // Integration tests mock nothing: they start emulators, listeners and processes of their own and
      // stop them. A worker imports the emulator's modules once for all the files it runs, not once a
      // file (that import was a fifth of the suite's CPU time).
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], isolate: false } },
    ],
  },
});
