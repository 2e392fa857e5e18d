import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test, watchErrors } from './fixtures';
import { openScenarioFile, progressCount } from './scenario-journey';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'examples/scenarios');

/** A scenarios folder of this test file's own: an app that fails at once, and where markers would go. */
const FOLDER = mkdtempSync(join(tmpdir(), 'mailyard-e2e-scenarios-'));
const MARKERS = mkdtempSync(join(tmpdir(), 'mailyard-e2e-markers-'));
writeFileSync(
  join(FOLDER, 'crash.yaml'),
  `version: 1
name: an app that cannot start
clock: { speed: 60 }
duration: 2m
app:
  command: "node -e \\"console.error('cannot reach the mail API'); process.exit(3)\\""
expect:
  app: { noSendAfterHardBounce: true }
`,
);

/**
 * The verdict `mailyard scenario run` gives each example: CI runs every one of them with the CLI of the
 * installed package (.ci/run, "scenarios") and holds it to this, so the screen's verdict is the CLI's.
 */
const CLI_VERDICT: Record<string, 'PASS' | 'FAIL'> = {
  'complaint-flow': 'PASS',
  'duplicates-and-reordering': 'PASS',
  'failing-keeps-sending': 'FAIL',
  'hard-bounce-suppression': 'PASS',
  'receiver-outage-catch-up': 'PASS',
};

async function openListed(page: Page, path: string) {
  await page.getByRole('button', { name: `Open ${path}` }).click();
  await expect(page.getByTestId('scenario-run-as')).toContainText(`Runs as the file ${path}`);
}

test.describe('Scenarios from the folders Mailyard was started with', () => {
  test.use({ serveArgs: ['--scenarios', EXAMPLES, '--scenarios', FOLDER] });

  for (const name of Object.keys(CLI_VERDICT)) {
    test(`the example ${name} runs with its app from the Scenarios screen and gets the CLI's verdict`, async ({ served, page }) => {
      test.setTimeout(120_000);
      const errors = watchErrors(page);
      await page.goto(`${served.url}/scenarios`);
      const files = page.getByTestId('scenario-files');
      await expect(files).toContainText(`scenarios/${name}.yaml`);
      await openListed(page, `scenarios/${name}.yaml`);
      await expect(page.getByTestId('scenario-run-as')).toContainText('starting its app');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await expect(page.getByTestId('scenario-status')).toHaveText(/passed|failed|inconclusive|error/, { timeout: 90_000 });
      const verdict = CLI_VERDICT[name]!;
      await expect(page.getByTestId('scenario-status')).toHaveText(verdict === 'PASS' ? 'passed' : 'failed');
      await expect(page.getByTestId('scenario-verdict')).toHaveText(verdict);
      // The app ran: it sent, its own output is in the log, and the bar is full.
      expect(await progressCount(page, 'sends')).toBeGreaterThan(0);
      // Each line of the log once, the run's end included, after the live reads and the last one.
      await expect(page.getByTestId('scenario-log').getByText('webhook receiver registered')).toHaveCount(1);
      await expect(page.getByTestId('scenario-log')).toContainText(`run ${verdict === 'PASS' ? 'passed' : 'failed'}, verdict ${verdict.toLowerCase()}`);
      await expect(page.getByTestId('scenario-percent')).toHaveText('100%');
      if (name === 'failing-keeps-sending') {
        await expect(page.getByTestId('scenario-violations')).toContainText('gone@bounce.example');
        await page.screenshot({ path: test.info().outputPath('scenario-failing-example.png'), fullPage: true });
      }
      expect(errors).toEqual([]);
    });
  }

  test('an app that exits at once: the run ends in error with its exit code, and its stderr is in the log', async ({ served, page }) => {
    await page.goto(`${served.url}/scenarios`);
    const id = basename(FOLDER);
    await openListed(page, `${id}/crash.yaml`);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page.getByTestId('scenario-status')).toHaveText('error', { timeout: 20_000 });
    const progress = page.getByTestId('scenario-progress');
    await expect(progress.getByRole('alert')).toContainText('exited with code 3');
    await expect(progress.getByRole('alert')).toContainText('cannot reach the mail API');
    await expect(page.getByTestId('scenario-log')).toContainText('app stderr cannot reach the mail API');
    await expect(page.getByTestId('scenario-percent')).toHaveText('100%');
    await expect(page.getByTestId('scenario-verdict')).toHaveText('FAIL');
    // Nothing the app did was judged: its expectation reads so, never "passed".
    const expectations = page.getByTestId('scenario-expectations');
    await expect(expectations.getByRole('row', { name: /noSendAfterHardBounce/ })).toContainText('not judged');
    await expect(expectations).toContainText('not judged: the run ended in error');
    await expect(expectations).not.toContainText('passed');
    await page.screenshot({ path: test.info().outputPath('scenario-app-error.png'), fullPage: true });
  });

  test('an opened file that is edited runs as text: with an app, it is refused and its command never runs', async ({ served, page }) => {
    await page.goto(`${served.url}/scenarios`);
    await openListed(page, 'scenarios/hard-bounce-suppression.yaml');
    const marker = join(MARKERS, 'edited-ran');
    const text = page.getByLabel('Scenario (YAML or JSON)');
    const edited = (await text.inputValue()).replace(
      'command: node ../shop/src/scenario-app.js',
      `command: "node -e \\"require('fs').writeFileSync('${marker}', 'ran')\\""`,
    );
    await text.fill(edited);
    await expect(page.getByTestId('scenario-run-as')).toContainText('This scenario starts an app: it runs only as a file');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page.getByTestId('scenario-outcome')).toContainText('cannot start an app');
    await expect(page.getByTestId('scenario-progress')).toHaveCount(0);
    await page.waitForTimeout(1000);
    expect(existsSync(marker)).toBe(false);
  });
});

test.describe('Scenarios without a scenarios folder', () => {
  test('the screen says how to allow one; a scenario with an app opened from this computer is refused and its command never runs', async ({ served, page }) => {
    await page.goto(`${served.url}/scenarios`);
    await expect(page.getByTestId('scenario-no-folders')).toContainText('--scenarios DIR');
    const marker = join(MARKERS, 'uploaded-ran');
    const source = `version: 1
name: uploaded app
clock: { speed: 60 }
duration: 1m
app:
  command: "node -e \\"require('fs').writeFileSync('${marker}', 'ran')\\""
expect:
  app: { maxSendsPerRecipient: 1 }
`;
    await openScenarioFile(page, 'uploaded.yaml', source);
    await page.getByRole('button', { name: 'Validate' }).click();
    await expect(page.getByTestId('scenario-outcome')).toHaveText('Valid: “uploaded app”');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page.getByTestId('scenario-outcome')).toContainText('cannot start an app');
    await expect(page.getByTestId('scenario-outcome')).toContainText('--scenarios DIR');
    await page.waitForTimeout(1000);
    expect(existsSync(marker)).toBe(false);
    expect(((await (await page.request.get(`${served.url}/emulator/scenarios/runs`)).json()) as { data: unknown[] }).data).toEqual([]);
  });
});
