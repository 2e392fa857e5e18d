import { expect, sendEmail, test, watchErrors } from './fixtures';

test("Overview's figures are the header's account's, named as such, and change with the switcher", async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  const acme = (await (await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Acme Shop (production)' } })).json()).data as {
    id: string;
    api_key: string;
  };
  await sendEmail(page, served, 'ann@example.com', 'From Default');
  for (const to of ['bob@example.com', 'cy@example.com']) {
    const sent = await page.request.post(`${served.url}/v1/email/send`, {
      headers: { authorization: `Bearer ${acme.api_key}` },
      data: { from: { email: 'hello@acme.test' }, to: [{ email: to }], subject: 'From Acme', content: [{ type: 'text/plain', value: 'Hi' }] },
    });
    expect(sent.ok()).toBe(true);
  }
  await page.goto(served.url);
  const switcher = page.getByRole('banner').getByRole('combobox', { name: 'Account' });
  await expect(switcher).toHaveValue(/.+/);
  await expect(page.getByTestId('stat-messages')).toHaveText('1');
  await expect(page.getByTestId('stats-account')).toContainText('Default');

  await switcher.selectOption({ label: 'Acme Shop (production)' });
  await expect(page.getByTestId('stat-messages')).toHaveText('2');
  await expect(page.getByTestId('stats-account')).toContainText('Acme Shop (production)');
  // The delivery events follow on the emulator clock; the chart counts them, the account's alone.
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 5_000 } });
  await expect(page.getByTestId('stat-events')).toHaveText('2');
  await expect(page.getByRole('figure', { name: /Email events per minute over the last hour: 2 in all/ })).toBeVisible();
  // A reload keeps the account (it is in the URL).
  await page.reload();
  await expect(page.getByTestId('stat-messages')).toHaveText('2');
  expect(errors).toEqual([]);
});

test("Overview's chart is readable at demo size: the width of the page, labels of 12 px or more", async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await sendEmail(page, served, 'click@sim.mailyard.test', 'Charted');
  await page.goto(served.url);
  const chart = page.getByRole('figure', { name: /events per minute/i });
  await expect(chart).toBeVisible();
  const box = (await chart.locator('svg').boundingBox())!;
  expect(box.width).toBeGreaterThanOrEqual(800);
  expect(box.height).toBeGreaterThanOrEqual(150);
  const ticks = chart.locator('svg text');
  expect(await ticks.count()).toBeGreaterThanOrEqual(6);
  for (const tick of await ticks.all()) expect((await tick.boundingBox())!.height).toBeGreaterThanOrEqual(12);
  expect(errors).toEqual([]);
});
