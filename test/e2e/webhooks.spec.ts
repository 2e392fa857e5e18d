import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { closedPort } from '../helpers/receiver';
import { api, expect, test, watchErrors } from './fixtures';

test('register a webhook: the API validation messages inline as worded, then a correct one, edit and delete', async ({ served, receiver, page }) => {
  // The refused registrations are 400 and 422 answers on purpose.
  const errors = watchErrors(page, [/status of 4\d\d/]);
  await page.goto(`${served.url}/webhooks`);
  const card = page.getByTestId('webhook-EMAIL_EVENT');
  await expect(card).toContainText('not registered');

  // No event enabled: the spec's message, verbatim.
  await card.getByLabel('Webhook URL').fill(receiver.url);
  await card.getByRole('button', { name: 'Register' }).click();
  // Said once, beside the events, the alert only pointing there: the same error twice reads as two problems.
  await expect(card.getByTestId('error-webhook_options')).toContainText('at least one of webhook_options.events must be true');
  await expect(card.getByText('at least one of webhook_options.events must be true')).toHaveCount(1);
  await expect(card.getByRole('alert')).toHaveText('Not saved: see the field marked above.');

  // A bad URL and a reserved header: each problem beside its field, the first as the message.
  await card.getByLabel('Webhook URL').fill('ftp://example.com/hooks');
  await card.getByRole('checkbox', { name: 'bounce' }).check();
  await card.getByRole('button', { name: 'Add header' }).click();
  await card.getByLabel('Header name').fill('Host');
  await card.getByLabel('Header value').fill('evil.example');
  await card.getByRole('button', { name: 'Register' }).click();
  await expect(card.getByTestId('error-webhook_url')).toHaveText('must be an absolute http or https URL');
  await expect(card.getByTestId('error-headers')).toHaveText('Host: may not be set: the emulator sets this header itself');
  await expect(card.getByRole('alert')).toHaveText('Not saved: see the 2 problems marked above.');
  await expect(card.getByText('must be an absolute http or https URL')).toHaveCount(1);

  // A receiver nobody listens on: the reachability check's 422.
  await card.getByRole('button', { name: 'Remove header' }).click();
  await card.getByLabel('Webhook URL').fill(`http://127.0.0.1:${await closedPort()}/hooks`);
  await card.getByRole('button', { name: 'Register' }).click();
  await expect(card.getByTestId('error-webhook_url')).toContainText('connection refused by 127.0.0.1:');
  await expect(card.getByText(/connection refused by/)).toHaveCount(1);

  // Then correctly: a real receiver, two events, a custom header.
  await card.getByLabel('Webhook URL').fill(receiver.url);
  await card.getByRole('checkbox', { name: 'delivery' }).check();
  await card.getByRole('button', { name: 'Add header' }).click();
  await card.getByLabel('Header name').fill('X-Secret');
  await card.getByLabel('Header value').fill('s3cret');
  await card.getByRole('button', { name: 'Register' }).click();
  await expect(card.getByTestId('webhook-notice')).toHaveText('Webhook created successfully');
  await expect(card.getByRole('alert')).toHaveCount(0);
  await expect(card).toContainText('registered');
  const listed = await api(page, served, 'GET', '/v1/webhook');
  expect(listed.data[0]).toMatchObject({
    event: 'EMAIL_EVENT',
    webhook_url: receiver.url,
    method: 'POST',
    headers: { 'X-Secret': 's3cret' },
    webhook_options: { events: { delivery: true, bounce: true, open: false } },
  });

  // Edit: the method and one more event.
  await card.getByLabel('Method').selectOption('PUT');
  await card.getByRole('checkbox', { name: 'click' }).check();
  await card.getByRole('button', { name: 'Save changes' }).click();
  await expect(card.getByTestId('webhook-notice')).toHaveText('Webhook updated successfully');
  expect((await api(page, served, 'GET', '/v1/webhook')).data[0]).toMatchObject({ method: 'PUT', webhook_options: { events: { click: true } } });

  // A DOMAIN_VERIFICATION webhook has no event toggles.
  const domain = page.getByTestId('webhook-DOMAIN_VERIFICATION');
  await expect(domain.getByRole('checkbox')).toHaveCount(0);
  await domain.getByLabel('Webhook URL').fill(receiver.url);
  await domain.getByRole('button', { name: 'Register' }).click();
  await expect(domain.getByTestId('webhook-notice')).toHaveText('Webhook created successfully');

  page.once('dialog', (d) => void d.accept());
  await card.getByRole('button', { name: 'Delete' }).click();
  await expect(card.getByTestId('webhook-notice')).toHaveText('Webhook deleted successfully');
  expect((await api(page, served, 'GET', '/v1/webhook')).data.map((w: { event: string }) => w.event)).toEqual(['DOMAIN_VERIFICATION']);

  // The signing secret: generated, shown, then off.
  await page.getByRole('button', { name: 'Generate a secret' }).click();
  await expect(page.getByTestId('signing-secret')).toContainText('whsec_');
  await page.getByRole('button', { name: 'Stop signing' }).click();
  await expect(page.getByText('Requests are not signed.')).toBeVisible();
  expect(errors).toEqual([]);
});

test('the account signing secret: generate, show, rotate, stop signing', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/webhooks`);
  const card = page.getByRole('region', { name: 'Signing secret' });
  await expect(card).toContainText('Requests are not signed.');
  await card.getByRole('button', { name: 'Generate a secret' }).click();
  const secret = card.getByTestId('signing-secret');
  await expect(secret).toContainText('whsec_');
  await card.getByRole('button', { name: 'Show' }).click();
  await expect(secret).toHaveText(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const first = await secret.textContent();
  await card.getByRole('button', { name: 'Rotate' }).click();
  await expect(secret).toHaveText(/^whsec_/);
  await expect(secret).not.toHaveText(first!);
  await card.getByRole('button', { name: 'Stop signing' }).click();
  await expect(card).toContainText('Requests are not signed.');
  expect(errors).toEqual([]);
});

test('webhooks at 375 px: no wider than the window, the event checkboxes do not overlap, an error said once', async ({ served, page }) => {
  const errors = watchErrors(page, [/status of 4\d\d/]);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${served.url}/webhooks`);
  const card = page.getByTestId('webhook-EMAIL_EVENT');
  await card.getByRole('button', { name: 'Add header' }).click();
  await expect(card.getByRole('checkbox')).toHaveCount(EMAIL_EVENT_KINDS.length);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  // Each event's label (box and name, the name's full width) apart from every other.
  const boxes = await card.locator('label.toggle').evaluateAll((labels) =>
    labels.map((l) => {
      const range = document.createRange();
      range.selectNodeContents(l);
      const r = range.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }),
  );
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      const overlap = a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      expect(overlap, `event labels ${JSON.stringify(a)} and ${JSON.stringify(b)} overlap`).toBe(false);
    }
    expect(a.right).toBeLessThanOrEqual(375);
  }
  // A bad URL: its words once, beside the field.
  await card.getByLabel('Webhook URL').fill('ftp://example.com/hooks');
  await card.getByRole('checkbox', { name: 'bounce' }).check();
  await card.getByRole('button', { name: 'Remove header' }).click();
  await card.getByRole('button', { name: 'Register' }).click();
  await expect(card.getByTestId('error-webhook_url')).toHaveText('must be an absolute http or https URL');
  await expect(card.getByText('must be an absolute http or https URL')).toHaveCount(1);
  await expect(card.getByRole('alert')).toHaveText('Not saved: see the field marked above.');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(errors).toEqual([]);
});
