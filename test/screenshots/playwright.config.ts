import { defineConfig } from '@playwright/test';
import base from '../../playwright.config';

/**
 * `npx playwright test -c test/screenshots`: the README's screenshots (docs/*.png), taken against a
 * seeded `mailyard serve` in light and dark. Not part of `npm test`.
 */
export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: '**/*.shoot.ts',
  timeout: 120_000,
  reporter: [['list']],
  outputDir: '../../test-results/screenshots',
});
