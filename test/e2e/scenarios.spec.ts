import { expect, test, watchErrors } from './fixtures';
import { openScenarioFile, progressCount, trafficScenario } from './scenario-journey';

test('Scenarios: a bad file gets its problems by line and field beside the text', async ({ served, page }) => {
  await page.goto(`${served.url}/scenarios`);
  const text = page.getByLabel('Scenario (YAML or JSON)');
  // Line 6: a share over 100%.
  await text.fill('version: 1\nname: Broken\nclock: { speed: 60 }\noutcomes:\n  - match:\n      share: 1.5\n    fate: hard_bounce\n');
  await page.getByRole('button', { name: 'Validate' }).click();
  const problems = page.getByTestId('scenario-problems');
  await expect(problems).toBeVisible();
  await expect(problems).toContainText('outcomes.0.match.share');
  await expect(problems.getByRole('button', { name: /^Line 6/ })).toBeVisible();
  await expect(text).toHaveAttribute('aria-invalid', 'true');
  // Nothing ran.
  await expect(page.getByTestId('scenario-progress')).toHaveCount(0);
});

test('Scenarios journey: open a file, run it, watch progress move, open the report', async ({ served, receiver, page }) => {
  test.setTimeout(90_000);
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1360, height: 900 });
  await page.goto(`${served.url}/`);
  // The header is settled (the version and status shown) before the click: nothing moves under it.
  await expect(page.getByRole('status').filter({ hasText: 'Running' })).toBeVisible();
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Scenarios' }).click();
  await expect(page).toHaveURL(`${served.url}/scenarios`);
  await expect(page.getByTestId('scenario-runs')).toHaveCount(0);

  // 12 sends an emulated minute at the 60x clock: the 60 sends take about five seconds, several of
  // the page's one-second polls (at 10 a second they could all be sent between two polls).
  await openScenarioFile(page, 'checkout.yaml', trafficScenario(receiver.url).replace('rate: 10/s', 'rate: 12/m'));
  await page.getByRole('button', { name: 'Validate' }).click();
  await expect(page.getByTestId('scenario-outcome')).toHaveText('Valid: “Checkout traffic”');

  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const progress = page.getByTestId('scenario-progress');
  await expect(progress).toBeVisible();
  await expect(progress).toContainText('Checkout traffic');
  // Progress moves while it runs: sends counted up, the bar past 0%, more sends later than first seen.
  await expect.poll(() => progressCount(page, 'sends'), { timeout: 20_000 }).toBeGreaterThan(0);
  const first = await progressCount(page, 'sends');
  await expect.poll(() => progressCount(page, 'sends'), { timeout: 20_000 }).toBeGreaterThan(first);
  await expect.poll(async () => Number((await page.getByTestId('scenario-bar').getAttribute('value')) ?? 0)).toBeGreaterThan(0);
  await expect(page.getByTestId('progress-sends')).toContainText('/ 60');

  // It ends with a verdict and its report: totals, expectations, the charts in the sandboxed frame.
  await expect(page.getByTestId('scenario-status')).toHaveText(/passed|failed/, { timeout: 60_000 });
  const report = page.getByTestId('scenario-report');
  await expect(report).toBeVisible();
  await expect(report.getByTestId('scenario-verdict')).toHaveText(/PASS|FAIL/);
  await expect(page.getByTestId('progress-sends')).toHaveText('60 / 60');
  await expect(report.getByTestId('scenario-expectations')).toContainText('acknowledgedAll');
  await expect(report.getByTestId('scenario-expectations')).toContainText('maxSendsPerRecipient');
  const frame = page.getByTestId('scenario-report-frame');
  await expect(frame).toHaveAttribute('sandbox', 'allow-scripts');
  const charts = page.frameLocator('[data-testid="scenario-report-frame"]');
  // Only its plots: the page itself shows the verdict and the tables above.
  await expect(charts.locator('#verdict')).toBeHidden();
  await expect(charts.locator('#chart-events canvas')).toBeVisible();
  await expect(charts.locator('#chart-sends canvas')).toBeVisible();
  await expect(charts.locator('#chart-response-histogram canvas')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('scenario-report.png'), fullPage: true });

  // The downloads are the run's reports.
  const [download] = await Promise.all([page.waitForEvent('download'), report.getByRole('link', { name: 'Download HTML report' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^scenario-.+\.html$/);
  const json = await page.request.get(`${served.url}${await report.getByRole('link', { name: 'Download JSON report' }).getAttribute('href')}`);
  expect(((await json.json()) as { data: { totals: { sends: number } } }).data.totals.sends).toBe(60);

  // The run is listed among past runs.
  await expect(page.getByTestId('scenario-runs').getByRole('button')).toHaveCount(1);
  await expect(page.getByTestId('scenario-runs')).toContainText('Checkout traffic');
  expect(errors).toEqual([]);
});

test('Scenarios: Stop ends a run under way; it is listed as stopped', async ({ served, receiver, page }) => {
  test.setTimeout(60_000);
  await page.goto(`${served.url}/scenarios`);
  // A long run: 5,000 sends at 5 a second would take over 16 minutes.
  await page
    .getByLabel('Scenario (YAML or JSON)')
    .fill(trafficScenario(receiver.url, 'Long run').replace('count: 60', 'count: 5000').replace('rate: 10/s', 'rate: 5/s'));
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('scenario-status')).toHaveText(/starting|running/);
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeDisabled();
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(page.getByTestId('scenario-status')).toHaveText('stopped', { timeout: 20_000 });
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0);
  await expect(page.getByTestId('scenario-runs')).toContainText('Long run');
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeEnabled();
});

test('Scenarios: a violated expectation is listed with a link to the message that shows it', async ({ served, receiver, page }) => {
  test.setTimeout(60_000);
  await page.goto(`${served.url}/scenarios`);
  // Three sends to one address, where at most one is expected.
  const source = trafficScenario(receiver.url, 'Too many sends')
    .replace('count: 60', 'count: 3')
    .replace('to: "user{n}@example.test"', 'to: "same@example.test"');
  await page.getByLabel('Scenario (YAML or JSON)').fill(source);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const report = page.getByTestId('scenario-report');
  await expect(report.getByTestId('scenario-verdict')).toHaveText('FAIL', { timeout: 40_000 });
  const violations = report.getByTestId('scenario-violations');
  await expect(violations).toContainText('maxSendsPerRecipient');
  await expect(violations).toContainText('same@example.test');
  const link = violations.getByRole('link', { name: 'message' }).first();
  const href = await link.getAttribute('href');
  expect(href).toMatch(/^\/messages\/[^/]+$/);
  await link.click();
  await expect(page).toHaveURL(`${served.url}${href}`);
  await expect(page.getByTestId('message-detail')).toContainText('same@example.test');
});

test('Scenarios: traffic only, with no app and no webhook, is INCONCLUSIVE: each expectation that judged nothing is named, none reads passed', async ({
  served,
  page,
}) => {
  test.setTimeout(60_000);
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${served.url}/scenarios`);
  await page.getByLabel('Scenario (YAML or JSON)').fill(`version: 1
name: Nothing to judge
clock: { speed: 60 }
traffic: { count: 6, rate: 20/s }
outcomes:
  - match: { pattern: "user1@*" }
    fate: hard_bounce
expect:
  receiver: { acknowledgedAll: true }
  app: { noSendAfterHardBounce: true }
`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('scenario-status')).toHaveText('inconclusive', { timeout: 40_000 });
  const report = page.getByTestId('scenario-report');
  await expect(report.getByTestId('scenario-verdict')).toHaveText('INCONCLUSIVE');
  await expect(report.getByTestId('scenario-inconclusive')).toContainText('2 expectations judged nothing: acknowledgedAll (no event went to a webhook');
  await expect(report.getByTestId('scenario-inconclusive')).toContainText('noSendAfterHardBounce (there is no app');
  const rows = report.getByTestId('scenario-expectations').getByRole('row');
  await expect(rows.filter({ hasText: 'acknowledgedAll' })).toContainText('not judged');
  await expect(rows.filter({ hasText: 'noSendAfterHardBounce' })).toContainText('not judged');
  await expect(report.getByTestId('scenario-expectations')).not.toContainText('passed');
  // The events happened (five deliveries and a bounce); no webhook took them.
  const total = (label: string) =>
    report
      .getByLabel('Totals')
      .locator('div')
      .filter({ hasText: new RegExp(`^${label}`) })
      .locator('dd');
  await expect(total('Events')).toHaveText('6');
  await expect(total('Webhook deliveries')).toHaveText('0');
  await expect(total('Delivery attempts')).toHaveText('0');
  await expect(page.getByTestId('scenario-runs')).toContainText('inconclusive');
  await report.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('scenario-inconclusive.png'), fullPage: true });
  expect(errors).toEqual([]);
});

test('Scenarios: before a run the page says how far it will move the emulator clock every account shares; after, the report says how far it did', async ({
  served,
  receiver,
  page,
}) => {
  test.setTimeout(60_000);
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${served.url}/scenarios`);
  // Three sends a minute apart at 60x: about two emulated minutes in two seconds.
  await page.getByLabel('Scenario (YAML or JSON)').fill(`version: 1
name: Moves the clock
clock: { speed: 60 }
duration: 15m
webhook: { url: ${receiver.url} }
traffic: { count: 3, rate: 1/m }
expect:
  receiver: { acknowledgedAll: true }
`);
  await expect(page.getByTestId('scenario-clock-note')).toHaveText(
    'Running it moves the emulator clock, which every account shares, 15 min 00 s forward in about 15 s (60×): it ends about 14 min 45 s ahead of the wall clock, further if retries are still due at its duration. The clock is never moved back.',
  );
  const offset = async () => ((await (await page.request.get(`${served.url}/emulator/clock`)).json()).data as { offset_ms: number }).offset_ms;
  const before = await offset();
  await page.screenshot({ path: test.info().outputPath('scenario-clock-note.png') });
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const report = page.getByTestId('scenario-report');
  await expect(report.getByTestId('scenario-verdict')).toHaveText('PASS', { timeout: 40_000 });
  const moved = page.getByTestId('scenario-clock-move');
  await expect(moved).toContainText('The emulator clock, which every account shares, moved 2 min');
  await expect(moved).toContainText('It is not moved back.');
  // The emulator's clock is that much further ahead of the wall clock, and stays so after the run.
  const json = (await (await page.request.get(`${served.url}/emulator/scenarios/runs`)).json()).data[0] as { id: string };
  const { clock } = (await (await page.request.get(`${served.url}/emulator/scenarios/runs/${json.id}/report`)).json()).data as {
    clock: { movedMs: number; aheadMs: number };
  };
  expect(clock.movedMs).toBeGreaterThanOrEqual(120_000);
  expect(Math.abs((await offset()) - before - clock.aheadMs)).toBeLessThan(5_000);
  await page.evaluate(() => document.getElementById('scenario-report-title')?.scrollIntoView());
  await page.screenshot({ path: test.info().outputPath('scenario-clock-move.png') });
  expect(errors).toEqual([]);
});
