import type { Locator } from '@playwright/test';
import { expect, test, watchErrors } from './fixtures';

/** API paths and zod's own wording: what a message beside a field must never show. */
const NOT_WORDS = /\b(?:to|from|cc|bcc|custom_args|rules|advance_ms)\.[\w.]+|Too (?:small|big): expected|Invalid (?:key|input|option)/;

/**
 * The message about `input`: the element its aria-describedby names, which must sit inside `container`
 * (the field's own box), say `words` and carry no API path or zod wording.
 */
async function expectBeside(input: Locator, container: Locator, words: RegExp | string) {
  await expect(input).toHaveAttribute('aria-describedby', /\S/);
  const id = (await input.getAttribute('aria-describedby'))!.split(/\s+/)[0]!;
  const message = container.locator(`[id="${id}"]`);
  await expect(message).toBeVisible();
  await expect(message).toContainText(words);
  await expect(message).not.toHaveText(NOT_WORDS);
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  return message;
}

test('Send: each refused address is said beside its own field, in words, not as API paths at the bottom', async ({ served, page }) => {
  const errors = watchErrors(page, [/status of 400/]);
  await page.goto(`${served.url}/send`);
  const form = page.getByRole('form', { name: 'Send a test email' });
  const fromField = form.locator('label.field', { hasText: 'From' });
  const toField = form.locator('label.field', { hasText: /^To/ });
  await fromField.getByRole('textbox').fill('not-an-address');
  await toField.getByRole('textbox').fill('ann@example.com, nope');
  await form.getByRole('button', { name: 'Send', exact: true }).click();

  await expectBeside(fromField.getByRole('textbox'), fromField, /“not-an-address” is not an email address/);
  await expectBeside(toField.getByRole('textbox'), toField, /the 2nd address \(“nope”\) is not an email address/);
  // Below the form: which fields, never the paths (nor the same problem twice).
  const alert = form.getByTestId('send-error');
  await expect(alert).toHaveText('Not sent: check From, To.');
  await expect(alert).not.toContainText('from.email');
  expect(errors).toEqual([]);
});

test('Send: a custom argument too long is refused beside Custom args, with its limit', async ({ served, page }) => {
  watchErrors(page, [/status of 400/]);
  await page.goto(`${served.url}/send`);
  const form = page.getByRole('form', { name: 'Send a test email' });
  await form.locator('label.field', { hasText: /^To/ }).getByRole('textbox').fill('ann@example.com');
  const argsField = form.locator('label.field', { hasText: 'Custom args' });
  await argsField.getByRole('textbox').fill(`order=${'x'.repeat(1001)}`);
  await form.getByRole('button', { name: 'Send', exact: true }).click();
  const message = await expectBeside(argsField.getByRole('textbox'), argsField, 'the value of “order” must be at most 1000 characters');
  await expect(message).not.toContainText('must be strings');
});

test('Simulation rules: an empty pattern is said beside that rule’s pattern, in words', async ({ served, page }) => {
  const errors = watchErrors(page, [/status of 400/]);
  await page.goto(`${served.url}/simulation`);
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.getByRole('button', { name: 'Save rules' }).click();
  const rule = page.getByTestId('rule').first();
  const pattern = rule.getByPlaceholder('*@acme.test');
  const message = await expectBeside(pattern, rule.locator('.rule-field'), 'The pattern must not be empty');
  await expect(message).not.toContainText('Too small');
  await expect(page.getByTestId('rules-error')).not.toContainText('rules.0');

  // Fields that are not JSON: beside that event's fields, before anything is sent.
  await pattern.fill('*@qa.test');
  const fields = rule.getByLabel('Event fields');
  await fields.fill('{"bounce_type": ');
  await page.getByRole('button', { name: 'Save rules' }).click();
  await expectBeside(fields, rule.locator('.rule-event').first(), /The fields are not valid JSON/);
  expect(errors).toEqual([]);
});

test('Clock: a jump over the limit is said beside the seconds field, with the limit in words', async ({ served, page }) => {
  const errors = watchErrors(page, [/status of 400/]);
  await page.goto(`${served.url}/simulation`);
  const seconds = page.getByLabel('Jump seconds');
  // Far over 366 days, and more milliseconds than a safe integer holds.
  await seconds.fill('99999999999999');
  await page.getByRole('button', { name: 'Jump', exact: true }).click();
  const message = await expectBeside(seconds, page.getByTestId('jump-field'), 'A jump must be at most 366 days');
  await expect(message).not.toContainText('whole number');
  expect(errors).toEqual([]);
});

test('Fire event: overrides that are not JSON are said beside the overrides, not in the preview panel', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/events`);
  const overrides = page.getByLabel('Field overrides');
  await overrides.fill('{"bounce_type": ');
  const field = page.locator('label.field', { has: overrides });
  await expectBeside(overrides, field, /Field overrides are not valid JSON/);
  const preview = page.locator('section', { has: page.getByRole('heading', { name: 'Payload preview' }) });
  await expect(preview).not.toContainText('not valid JSON');
  await expect(page.getByRole('button', { name: /^Fire / })).toBeDisabled();
  expect(errors).toEqual([]);
});
