import { expect, test, watchErrors } from './fixtures';

// The rule's move button was a bare "↑": a screen reader user heard "upwards arrow" and could not tell what it moves.
test('Simulation: a rule’s move-up button is named for the rule it moves, and moves it', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/simulation`);
  for (const pattern of ['*@first.test', '*@second.test']) {
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByTestId('rule').last().getByPlaceholder('*@acme.test').fill(pattern);
  }
  await expect(page.getByRole('button', { name: 'Move rule 1 up' })).toBeDisabled();
  await page.getByRole('button', { name: 'Move rule 2 up' }).click();
  await expect(page.getByTestId('rule').first().getByPlaceholder('*@acme.test')).toHaveValue('*@second.test');
  expect(errors).toEqual([]);
});
