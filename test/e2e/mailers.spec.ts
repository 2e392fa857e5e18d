import { hasDovecot, startDovecot } from '../helpers/dovecot';
import { startRelayTarget } from '../helpers/relay-target';
import { api, expect, test, watchErrors } from './fixtures';

test('the Mailers screen adds an SMTP mailer only after a real login (a refusal shows the server answer), tests it with the status updated live, and deletes it', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page, [/status of 400/, /status of 422/]);
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
    await form.getByLabel('Security').selectOption('TlsWhenAvailable');
    await expect(form.getByTestId('secure-hint')).toHaveText('STARTTLS when the server offers it, plain otherwise');

    // A wrong password: the server's own answer beside the form, and nothing saved.
    await form.getByLabel('Password').fill('wrong-pass');
    await form.getByRole('button', { name: 'Add SMTP mailer' }).click();
    await expect(form.getByRole('alert')).toHaveText(
      'Not saved: the server did not accept the connection or the login: 535 5.7.8 Authentication credentials invalid',
    );
    await expect(page.getByText('No mailers yet.')).toBeVisible();

    await form.getByLabel('Password').fill('ui-pass-123');
    await form.getByRole('button', { name: 'Add SMTP mailer' }).click();
    await expect(form.getByRole('alert')).toHaveCount(0);
    const row = page.getByRole('table', { name: 'Mailers' }).getByRole('row').filter({ hasText: 'Local relay' });
    // Saved after a real login: already known to work.
    await expect(row.getByTestId('mailer-status')).toHaveText('ok');
    await expect(row).toContainText('TlsWhenAvailable');
    await expect(row).toContainText('password stored');
    await expect(page.getByText('ui-pass-123')).toHaveCount(0);

    await row.getByRole('button', { name: 'Test' }).click();
    await expect(row.getByRole('status')).toContainText('logged in as ui-user');
    await expect(row.getByTestId('mailer-status')).toHaveText('ok');
    // The test server offers no STARTTLS: each login went over the plain connection.
    expect(target.logins).toEqual([
      { method: 'PLAIN', user: 'ui-user', ok: false, secure: false },
      { method: 'PLAIN', user: 'ui-user', ok: true, secure: false },
      { method: 'PLAIN', user: 'ui-user', ok: true, secure: false },
    ]);

    // Its password removed: the real service requires one, and the row says so until an update gives it back.
    await expect(row.getByTestId('mailer-warnings')).toHaveCount(0);
    const mailers = (await api(page, served, 'GET', '/emulator/mailers')).data as Array<{ mailer_id: string; name: string }>;
    await api(page, served, 'PUT', '/v1/smtp', { mailer_id: mailers.find((m) => m.name === 'Local relay')!.mailer_id, config: { password: null } });
    await expect(row.getByTestId('mailer-warnings')).toContainText(
      'smtp-without-credentials: config.password is missing; the real service answers 400 config.password is required',
    );
    await row.screenshot({ path: test.info().outputPath('mailer-would-refuse.png') });

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('No mailers yet.')).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    await target.close();
  }
});

// Without Debian's dovecot-imapd this test is skipped on a developer's machine; in CI it always runs.
test('an IMAP mailer shows the messages it takes from the inbox as they arrive, with their webhook post and raw source', async ({ served, page, receiver }) => {
  test.skip(!hasDovecot && !process.env.CI, 'dovecot-imapd is not installed');
  const errors = watchErrors(page);
  const dovecot = await startDovecot({ alice: 'alice-secret' });
  try {
    const mailer = (
      await api(page, served, 'POST', '/v1/imap', {
        name: 'Support inbox',
        email: 'alice@example.org',
        config_type: 'imap',
        connection_type: 'basic',
        config: { host: '127.0.0.1', port: dovecot.port, username: 'alice', password: 'alice-secret', secure: 'None' },
        webhook: { url: receiver.url, method: 'POST' },
      })
    ).data as { mailer_id: string };
    await page.goto(`${served.url}/mailers`);
    const row = page.getByTestId(`mailer-${mailer.mailer_id}`);
    await expect(row.getByTestId('mailer-status')).toHaveText('connected');
    await row.getByRole('button', { name: 'Messages' }).click();
    const panel = page.getByTestId(`mailer-messages-${mailer.mailer_id}`);
    await expect(panel).toContainText('No messages taken from this inbox yet.');

    await dovecot.deliver(
      'alice',
      'From: Carol <carol@example.net>\r\nTo: alice@example.org\r\nSubject: Where is my order?\r\nMessage-ID: <order-1@example.net>\r\n\r\nHello\r\n',
    );
    const listed = panel.getByRole('table', { name: 'Messages taken from the inbox' }).getByRole('row').filter({ hasText: 'Where is my order?' });
    await expect(listed).toContainText('carol@example.net');
    await expect(panel.getByTestId('imap-count')).toHaveText('1 message taken from the inbox');
    const eml = listed.getByRole('link', { name: '.eml' });
    const source = await page.request.get(`${served.url}${await eml.getAttribute('href')}`);
    expect(source.headers()['content-type']).toBe('message/rfc822');
    expect(await source.text()).toContain('Subject: Where is my order?');

    // The post went to the configuration's webhook; its delivery is one click away.
    const [post] = await receiver.waitFor(1);
    await listed.getByRole('link', { name: 'delivery' }).click();
    await expect(page).toHaveURL(`${served.url}/deliveries/${post!.headers['webhook-id']}`);
    await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');
    await expect(page.getByTestId('delivery-payload')).toContainText('"subject": "Where is my order?"');
    expect(errors).toEqual([]);
  } finally {
    await dovecot.cleanup();
  }
});
