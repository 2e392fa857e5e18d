import { api, expect, test, watchErrors } from './fixtures';

test("Settings: choosing an account's webhook payload shape sends its next event in that shape; another account keeps its own", async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/accounts`, { data: { name: 'Second' } });
  await api(page, served, 'POST', '/v1/webhook/register', {
    webhook_url: receiver.url,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: { open: true } },
  });

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/settings`);
  const mine = page.getByRole('combobox', { name: 'Webhook payload of Default' });
  const second = page.getByRole('combobox', { name: 'Webhook payload of Second' });
  await expect(mine).toHaveValue('spec');
  await mine.selectOption('mailer-events');
  await expect(mine).toHaveValue('mailer-events');
  await expect(second).toHaveValue('spec');

  // The account's record says so, and its next event arrives in the newer guide's shape.
  const accounts = (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Array<{ name: string; payload_format: string }>;
  expect(accounts.map((a) => [a.name, a.payload_format])).toEqual([
    ['Default', 'mailer-events'],
    ['Second', 'spec'],
  ]);
  await page.request.post(`${served.url}/emulator/events`, { data: { event: 'open' } });
  const [req] = await receiver.waitFor(1);
  expect(JSON.parse(req!.body)).toMatchObject({ mailer_events: { event: 'MAIL_OPENED', user_agent: expect.any(String) } });

  // A reload shows the choice kept.
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Webhook payload of Default' })).toHaveValue('mailer-events');
  expect(errors).toEqual([]);
});
