import { api, copiesOf, expect, registerWebhook, test, watchErrors } from './fixtures';

test('a template chosen in the picker, with substitutions: the captured copy has the substituted subject; Save as template adds one', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  const created = await api(page, served, 'POST', '/v1/email/template', {
    name: 'Order shipped',
    subject: 'Order {{order}} for {{name}}',
    content: [{ type: 'text/html', value: '<p id="body">Hi {{name}}, order {{order}} is on its way.</p>' }],
  });
  await page.goto(`${served.url}/send`);
  await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Order shipped' });
  await expect(page.getByLabel('Template', { exact: true })).toHaveValue(created.template_id);
  // Subject and HTML are left empty: the template's are sent.
  await expect(page.getByLabel('Subject')).toHaveValue('');
  await expect(page.getByLabel('HTML')).toHaveValue('');
  await expect(page.getByTestId('template-info')).toContainText(`Sends template_id ${created.template_id}`);
  await expect(page.getByTestId('template-info')).toContainText('Variables: {{order}}, {{name}}.');
  await page.getByLabel('To', { exact: true }).fill('ann@example.com');

  // Substitutions that are not JSON are said beside the field, and nothing can be sent.
  const substitutions = page.getByLabel('Substitutions (JSON)');
  await substitutions.fill('{"ann@example.com": ');
  await expect(page.getByTestId('substitutions-error')).toContainText('Substitutions are not valid JSON');
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
  await substitutions.fill('["Ann"]');
  await expect(page.getByTestId('substitutions-error')).toContainText('Substitutions must be a JSON object');
  await substitutions.fill('{"ann@example.com": {"name": "Ann"}, "*": {"order": "1042"}}');
  await expect(page.getByTestId('substitutions-error')).toHaveCount(0);
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const answer = page.getByTestId('send-answer');
  const refId = (await answer.getByTestId('send-ref-id').textContent())!;
  await answer.getByTestId('send-copies').getByRole('link', { name: 'ann@example.com' }).click();
  const [copy] = await copiesOf(page, served, refId);
  await expect(page).toHaveURL(`${served.url}/messages/${copy!.id}`);
  const detail = page.getByTestId('message-detail');
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText('Order 1042 for Ann');
  await expect(page.frameLocator('iframe[title="HTML preview"]').locator('#body')).toHaveText('Hi Ann, order 1042 is on its way.');
  await expect(page.getByTestId('message-list').getByRole('option')).toContainText('Order 1042 for Ann');

  // Save as template: the form's subject and content become a template, chosen in the picker at once.
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Send' }).click();
  await page.getByLabel('Subject').fill('Welcome, {{name}}');
  await page.getByLabel('HTML').fill('<p>Welcome aboard, {{name}}.</p>');
  await page.getByRole('button', { name: 'Save as template…' }).click();
  await page.getByLabel('Template name').fill('Welcome mail');
  await page.getByRole('button', { name: 'Save template' }).click();
  await expect(page.getByTestId('template-saved')).toContainText('Saved as template “Welcome mail”');
  const templates = (await api(page, served, 'GET', '/v1/email/templates')).data as Array<{
    template_id: string;
    name: string;
    subject: string;
    variables: string[];
  }>;
  const welcome = templates.find((t) => t.name === 'Welcome mail')!;
  expect(welcome).toMatchObject({ subject: 'Welcome, {{name}}', variables: ['name'] });
  await expect(page.getByLabel('Template', { exact: true })).toHaveValue(welcome.template_id);
  await expect(page.getByLabel('Template', { exact: true }).getByRole('option')).toHaveText([
    'none: the subject and content below',
    'Order shipped',
    'Welcome mail',
  ]);
  expect(errors).toEqual([]);
});

test('a send to two recipients answers one ref_id and lists its two copies; each copy links to the other; a delivery links to its copy', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  await registerWebhook(page, served, receiver.url, { delivery: true });
  // One of them is suppressed: its copy fails, saying why.
  await api(page, served, 'POST', '/v1/email/unsubscribe', { email: 'bob@example.com' });
  await page.goto(`${served.url}/send`);
  await page.getByLabel('To', { exact: true }).fill('ann@example.com, Bob <bob@example.com>');
  await page.getByLabel('Subject').fill('For both');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const answer = page.getByTestId('send-answer');
  const refId = (await answer.getByTestId('send-ref-id').textContent())!;
  expect(refId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  await expect(answer).toContainText(`"ref_id": "${refId}"`);
  await expect(answer).toContainText('2 copies, one per recipient');
  // The sender's domain is not a verified one: the real service would refuse it, and the answer says so (docs/warnings.md).
  await expect(answer.getByTestId('send-warnings')).toContainText(
    /unverified-sender: \S+ is not a verified domain of this account; the real service answers 403 Unauthorized From Email/,
  );
  await answer.getByTestId('send-warnings').screenshot({ path: test.info().outputPath('send-would-refuse.png') });
  const copies = await copiesOf(page, served, refId);
  expect(copies.map((c) => c.recipient.email)).toEqual(['ann@example.com', 'bob@example.com']);
  expect(new Set(copies.map((c) => c.id)).size).toBe(2);
  const listed = answer.getByTestId('send-copies').getByRole('listitem');
  await expect(listed).toHaveCount(2);
  await expect(listed.nth(0)).toContainText(copies[0]!.id);
  await expect(listed.nth(1)).toContainText(copies[1]!.id);

  // Bob's copy: its own id, the send's ref_id, why it failed, and Ann's copy among the send's other recipients.
  await answer.getByRole('link', { name: 'bob@example.com' }).click();
  await expect(page).toHaveURL(`${served.url}/messages/${copies[1]!.id}`);
  await expect(page.getByTestId('message-ref-id')).toHaveText(refId);
  await expect(page.getByTestId('message-id')).toHaveText(copies[1]!.id);
  await expect(page.getByTestId('message-status')).toHaveText('failed');
  await expect(page.getByTestId('message-failed-reason')).toContainText('suppress');
  // What the real service would refuse is stored with the send: its copy says it too, in the same words.
  // A badge on the title's line naming the rule (the preview keeps its room), opened for the words.
  const warnings = page.getByTestId('message-warnings');
  await expect(warnings.locator('summary')).toHaveText('1 warning');
  await expect(warnings.locator('summary')).toHaveAttribute('title', 'The real service would refuse this send: unverified-sender');
  await warnings.locator('summary').click();
  await expect(warnings).toContainText(/unverified-sender: \S+ is not a verified domain of this account/);
  await page.getByTestId('message-detail').screenshot({ path: test.info().outputPath('message-would-refuse.png') });
  const siblings = page.getByTestId('message-siblings');
  await expect(siblings).toContainText('Other recipients of this send (1)');
  await siblings.getByRole('link', { name: 'ann@example.com' }).click();
  await expect(page).toHaveURL(`${served.url}/messages/${copies[0]!.id}`);
  await expect(page.getByTestId('message-id')).toHaveText(copies[0]!.id);

  // The list of the send's copies: the search box holds the ref_id.
  await page.getByTestId('message-siblings').getByRole('link', { name: 'Every copy of this send in the list' }).click();
  await expect(page).toHaveURL(`${served.url}/messages?q=${refId}`);
  await expect(page.getByLabel('Search messages')).toHaveValue(refId);
  await expect(page.getByTestId('message-list').getByRole('option')).toHaveCount(2);

  // Ann's delivery carries the send's ref_id and links to Ann's copy.
  const [post] = await receiver.waitFor(1);
  expect(JSON.parse(post!.body)).toMatchObject({ event: 'delivery', ref_id: refId, recipient: { email: 'ann@example.com' } });
  await page.goto(`${served.url}/deliveries/${post!.headers['webhook-id']}`);
  const link = page.getByTestId('delivery-message').getByRole('link', { name: refId });
  // It links to the list of the send's copies until it knows which one the payload's recipient is.
  await expect(link).toHaveAttribute('href', `/messages/${copies[0]!.id}`);
  await link.click();
  await expect(page).toHaveURL(`${served.url}/messages/${copies[0]!.id}`);
  await expect(page.getByTestId('message-detail')).toContainText('ann@example.com');
  expect(errors).toEqual([]);
});

// A recipient the account has suppressed: the form says so before the send, naming why; the send still goes as the service takes it.
test('Send: a suppressed recipient is named before sending, with the suppression and its reply; the send goes, its copy failing as suppressed', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  const reply = '550 5.1.1 <gone@bounces.example>: Recipient address rejected: user unknown in virtual mailbox table';
  await page.request.put(`${served.url}/emulator/rules`, {
    data: { rules: [{ pattern: '*@bounces.example', events: [{ event: 'bounce', delay_ms: 1000, fields: { bounce_reason: reply } }] }] },
  });
  await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'app@example.com' },
    to: [{ email: 'gone@bounces.example' }],
    subject: 'First',
    content: [{ type: 'text/plain', value: 'hi' }],
  });
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${served.url}/send`);
  await page.getByLabel('To', { exact: true }).fill('ann@example.com');
  await page.getByLabel('Bcc').fill('Gone@bounces.example');
  const warning = page.getByTestId('send-suppressed');
  await expect(warning).toContainText('gone@bounces.example is on Default’s suppression list.');
  await expect(warning).toContainText('its copy fails as suppressed: no delivery, no events');
  await expect(warning.getByTestId('send-suppressed-address')).toHaveCount(1);
  await expect(warning.getByTestId('send-suppressed-address')).toContainText(`gone@bounces.example: hard bounce (“${reply}”), since`);
  await warning.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('14-send-suppressed-warning.png') });

  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('send-answer')).toBeVisible();
  const refId = (await page.getByTestId('send-ref-id').textContent())!;
  const copies = await copiesOf(page, served, refId);
  expect(copies.map((c) => [c.recipient.email, c.status])).toEqual([
    ['ann@example.com', 'queued'],
    ['Gone@bounces.example', 'failed'],
  ]);
  // An address no longer in the fields is no longer named.
  await page.getByLabel('Bcc').fill('');
  await expect(warning).toHaveCount(0);
  expect(errors).toEqual([]);
});
