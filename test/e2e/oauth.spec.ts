import { startRelayTarget } from '../helpers/relay-target';
import { api, expect, test, watchErrors } from './fixtures';

test('OAuth login from the Mailers screen: the consent page opens, approving stores the token, the row and the flat configuration show it on', async ({
  served,
  page,
  context,
}) => {
  const errors = watchErrors(page, []);
  const target = await startRelayTarget({ user: 'ui-user', pass: 'ui-pass-123' });
  try {
    const created = await api(page, served, 'POST', '/v1/smtpbasic/verify', {
      name: 'OAuth relay',
      email: 'app@example.com',
      config_type: 'smtp',
      connection_type: 'oauth',
      config: { host: '127.0.0.1', port: target.port, username: 'ui-user', secure: 'None' },
    });
    const mailerId = created.data.mailer_id as string;
    await page.goto(`${served.url}/mailers`);
    const row = page.getByRole('table', { name: 'Mailers' }).getByRole('row').filter({ hasText: 'OAuth relay' });
    await expect(row).not.toContainText('OAuth token');

    // The button asks oauthLogin for {success, url} and opens the url: the offline consent page.
    const opened = context.waitForEvent('page');
    await row.getByRole('button', { name: 'OAuth login' }).click();
    const consent = await opened;
    await consent.waitForLoadState();
    await expect(consent.getByRole('heading', { name: 'Sign in with Mailyard' })).toBeVisible();
    await expect(consent.getByText('mailyard-ui')).toBeVisible();
    await consent.getByRole('button', { name: 'Approve' }).click();
    await expect(consent.getByRole('heading', { name: 'Login successful' })).toBeVisible();
    await expect(consent.getByText('OAuth relay')).toBeVisible();

    // The row follows live; the configuration answers the real page's flat shape.
    await expect(row).toContainText('OAuth token (on)');
    const config = await api(page, served, 'GET', `/v1/oauth/${mailerId}`);
    expect(config).toMatchObject({ active: true, mailer_id: mailerId, connection_type: 'oauth', email: 'app@example.com' });
    expect(errors).toEqual([]);
  } finally {
    await target.close();
  }
});
