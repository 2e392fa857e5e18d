// Prints one closing line for the whole suite, "N passed, N failed, N skipped", from the JSON
// reports vitest and Playwright wrote. Exits non-zero if a report is missing or anything failed.
import { readFileSync } from 'node:fs';

const read = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`summary: cannot read ${file}: ${err.message}`);
    process.exit(1);
  }
};

const vitest = read('test-results/vitest.json');
const playwright = read('test-results/playwright.json');
const passed = vitest.numPassedTests + (playwright.stats.expected ?? 0);
const failed = vitest.numFailedTests + (playwright.stats.unexpected ?? 0) + (playwright.stats.flaky ?? 0);
const skipped = vitest.numPendingTests + vitest.numTodoTests + (playwright.stats.skipped ?? 0);
console.log(
  `unit+integration: ${vitest.numPassedTests} passed, ${vitest.numFailedTests} failed; ui: ${playwright.stats.expected} passed, ${playwright.stats.unexpected} failed`,
);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
