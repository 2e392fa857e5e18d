import { expect, test, watchErrors } from './fixtures';
import { trafficScenario } from './scenario-journey';

// Each run makes an account of its own; two of one scenario named alike cannot be told apart in the switcher.
test('Scenarios: each run’s account is named with the run’s start, so two runs of one scenario differ', async ({ served, receiver, page }) => {
  test.setTimeout(90_000);
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${served.url}/scenarios`);
  const source = trafficScenario(receiver.url, 'Long run').replace('count: 60', 'count: 5000').replace('rate: 10/s', 'rate: 5/s');
  for (let run = 0; run < 2; run++) {
    await page.getByLabel('Scenario (YAML or JSON)').fill(source);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page.getByTestId('scenario-status')).toHaveText(/starting|running/);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect(page.getByTestId('scenario-status')).toHaveText('stopped', { timeout: 20_000 });
    // The run's time is to the second: the next run starts in another one.
    await page.waitForTimeout(1100);
  }
  const accounts = (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Array<{ name: string }>;
  const runs = accounts.map((a) => a.name).filter((n) => n.startsWith('scenario: Long run'));
  expect(runs).toHaveLength(2);
  for (const name of runs) expect(name).toMatch(/^scenario: Long run · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  expect(new Set(runs).size).toBe(2);
  // The header's switcher offers both, each with its whole name on hover.
  await page.reload();
  const switcher = page.getByRole('banner').getByLabel('Account');
  for (const name of runs) await expect(switcher.locator('option', { hasText: name })).toHaveAttribute('title', name);
  expect(errors).toEqual([]);
});
