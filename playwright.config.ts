import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  throw new Error(`Chromium not found at ${chromium}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH`);
}

/**
 * UI tests in real headless Chromium against `mailyard serve`. The browser is Debian's Chromium
 * (CHROMIUM_PATH to use another); Playwright's own browser download is not used.
 */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  // Each test starts its own `mailyard serve` (free ports, its own data): two files run side by side,
  // one per core, which took the suite from about 9.5 to about 5 minutes in CI.
  workers: 2,
  timeout: 30_000,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  outputDir: 'test-results/playwright',
  use: {
    headless: true,
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromium,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    },
  },
});
