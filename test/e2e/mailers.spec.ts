import { startRelayTarget } from '../helpers/relay-target';
import { expect, test, watchErrors } from './fixtures';

test('the Mailers screen adds an SMTP mailer, tests it against a real server with the status updated live, and deletes it', async ({ served, page }) => {
  const errors = watchErrors(page, [/status of 400/]);
  const target = await startRelayTarget({ user: 'ui-user', pass: 'ui-pass-123' });
  try {
    await page.goto(served.url);
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Mailers' }).click();
    await expect(page).toHaveURL(`${served.url}/mailers`);
    await expect(page.getByText('No mailers yet.')).toBeVisible();

    const form = page.getByRole('form', { name: 'Add a mailer' });
    // The service's own words for a bad field, beside it.
    await form.getByLabel('Name', { exact: true }).fill('Local relay');
    await form.getByLabel('Email', { exact: true }).fill('not-an-address');
    await form.getByRole('button', { name: 'Add SMTP mailer' }).click();
    await expect(form.getByRole('alert')).toHaveText('email must be an email address');

    await form.getByLabel('Email', { exact: true }).fill('app@example.com');
    await form.getByLabel('Port').fill(String(target.port));
    await form.getByLabel('Username').fill('ui-user');
    await form.getByLabel('Password').fill('ui-pass-123');
    await form.getByLabel('Security').selectOption('None');
    await form.getByRole('button', { name: 'Add SMTP mailer' }).click();

    const row = page.getByRole('table', { name: 'Mailers' }).getByRole('row').filter({ hasText: 'Local relay' });
    await expect(row.getByTestId('mailer-status')).toHaveText('untested');
    await expect(row).toContainText('password stored');
    await expect(page.getByText('ui-pass-123')).toHaveCount(0);

    await row.getByRole('button', { name: 'Test' }).click();
    await expect(row.getByRole('status')).toContainText('logged in as ui-user');
    await expect(row.getByTestId('mailer-status')).toHaveText('ok');
    expect(target.logins).toEqual([{ method: 'PLAIN', user: 'ui-user', ok: true }]);

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('No mailers yet.')).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    await target.close();
  }
});
