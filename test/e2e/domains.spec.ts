import { expect, test } from './fixtures';

test('the Domains screen adds a domain, shows its mailer_id and records by name, verifies it and sets the next outcome', async ({ served, page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The browser logs the refused add and the failed verification (400s on purpose below); anything else is a bug.
  page.on('console', (m) => m.type() === 'error' && !/status of 400/.test(m.text()) && errors.push(m.text()));

  await page.goto(served.url);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Domains' }).click();
  await expect(page).toHaveURL(`${served.url}/domains`);
  await expect(page.getByText('No sending domains yet.')).toBeVisible();

  // A bad name is refused with the service's words.
  await page.getByLabel('Domain', { exact: true }).fill('localhost');
  await page.getByRole('button', { name: 'Add domain' }).click();
  await expect(page.getByRole('alert')).toHaveText('domain must have at least two labels (for example example.com)');

  await page.getByLabel('Domain', { exact: true }).fill('ui.example');
  await page.getByRole('button', { name: 'Add domain' }).click();
  const card = page.getByTestId('domain-ui.example');
  await expect(card.getByRole('heading', { name: 'ui.example' })).toBeVisible();
  await expect(card.locator('.card-head .badge')).toHaveText('pending');
  await expect(card.locator('.records tbody tr')).toHaveCount(3);

  // The screen shows what getDomain answers: the mailer_id, and each record under its name.
  const api = await page.request.get(`${served.url}/v1/domain/ui.example`, { headers: { authorization: `Bearer ${served.apiKey}` } });
  const domain = await api.json();
  expect(domain.mailer_id).toMatch(/^domain_[0-9A-HJKMNP-TV-Z]{26}$/);
  await expect(page.getByTestId('notice')).toHaveText(`ui.example added (mailer_id ${domain.mailer_id}): publish its records, then verify it`);
  await expect(card.getByTestId('domain-mailer-id').locator('code')).toHaveText(domain.mailer_id);
  for (const name of ['spf', 'dkim', 'return_path']) {
    const row = card.getByTestId(`record-${name}`);
    await expect(row.locator('td').first()).toHaveText(name);
    await expect(row.locator('td').nth(1)).toHaveText(domain.sending_records[name].type);
    await expect(row.locator('td').nth(2).locator('code')).toHaveText(domain.sending_records[name].key);
  }

  // The copy buttons copy exactly the mailer_id and the DKIM record the API gives.
  await card.getByRole('button', { name: `Copy mailer_id: ${domain.mailer_id}` }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(domain.mailer_id);
  const dkim = domain.sending_records.dkim;
  await card.getByRole('button', { name: `Copy value: ${dkim.value}` }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(dkim.value);

  await card.getByRole('button', { name: 'Verify now' }).click();
  await expect(card.locator('.card-head .badge')).toHaveText('verified');
  await expect(page.getByTestId('notice')).toHaveText('Domain verified successfully');

  const outcome = card.getByRole('form', { name: 'Verification outcome of ui.example' });
  await outcome.getByRole('combobox').selectOption('failed');
  await outcome.getByPlaceholder('SPF record missing').fill('DKIM record not published');
  await outcome.getByRole('button', { name: 'Set outcome' }).click();
  await expect(outcome).toContainText('now: failed');
  await card.getByRole('button', { name: 'Verify now' }).click();
  await expect(card.locator('.card-head .badge')).toHaveText('failed');
  await expect(card.getByTestId('domain-reason')).toHaveText('DKIM record not published');
  // The service's 400 in words, with the records that did not check out (the reason is on the card, once).
  await expect(page.getByRole('alert')).toHaveText('ui.example did not verify: Invalid DNS records (spf, dkim, return_path)');
  await expect(card.getByTestId('record-dkim').locator('.badge')).toHaveText('failed');

  await card.getByText('History (2)').click();
  await expect(card.locator('.history li')).toHaveCount(2);

  page.once('dialog', (d) => void d.accept());
  await card.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('No sending domains yet.')).toBeVisible();

  // The screen is a deep link, and the header status shows there too.
  await page.goto(`${served.url}/domains`);
  await expect(page.getByRole('status')).toHaveText('Running');
  await expect(page.getByRole('link', { name: 'Domains' })).toHaveAttribute('aria-current', 'page');
  expect(errors).toEqual([]);
});
