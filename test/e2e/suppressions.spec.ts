import { expect, sendEmail, test, watchErrors } from './fixtures';

// Suppressions after a hard bounce and a spam complaint, their screen, and a suppressed copy's Events tab.
test('a hard bounce and a complaint suppress; the Suppressions screen lists them with reason and message, Remove lifts one after a confirm', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  await page.request.post(`${served.url}/emulator/clock`, { data: { speed: 0 } });
  // Rules bounce and complain about these addresses (the simulator's own are never suppressed by a bounce).
  await page.request.put(`${served.url}/emulator/rules`, {
    data: {
      rules: [
        { pattern: '*@bounces.example', events: [{ event: 'bounce', delay_ms: 1000 }] },
        {
          pattern: '*@complainers.example',
          events: [
            { event: 'delivery', delay_ms: 1000 },
            { event: 'spam', delay_ms: 1000 },
          ],
        },
      ],
    },
  });
  const bounced = await sendEmail(page, served, 'ann@bounces.example', 'Bounces');
  await sendEmail(page, served, 'bob@complainers.example', 'Complained about');
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });
  // The bounced address is suppressed now: its next message fails with no events.
  const again = await sendEmail(page, served, 'ann@bounces.example', 'Suppressed one');

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${served.url}/`);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Suppressions' }).click();
  await expect(page).toHaveURL(`${served.url}/suppressions`);
  const table = page.getByRole('table', { name: 'Suppressed addresses' });
  const rows = table.getByTestId('suppression');
  await expect(rows).toHaveCount(2);
  const bounceRow = rows.filter({ hasText: 'ann@bounces.example' });
  await expect(bounceRow).toContainText('hard bounce');
  await expect(bounceRow).toContainText('550 5.1.1');
  await expect(rows.filter({ hasText: 'bob@complainers.example' })).toContainText('spam complaint');
  await expect(bounceRow.getByRole('link', { name: 'the message' })).toHaveAttribute('href', `/messages/${bounced.id}`);

  const detail = page.getByTestId('message-detail');
  await page.goto(`${served.url}/messages/${bounced.id}`);
  await expect(detail.getByTestId('bounce-suppressed')).toHaveText(' · the address is suppressed for this account');

  // The suppressed copy's Events tab says so, and why.
  await page.goto(`${served.url}/messages/${again.id}`);
  await detail.getByRole('tab', { name: /Events/ }).click();
  await expect(detail.getByTestId('suppressed-copy')).toContainText('Suppressed');
  await expect(detail.getByTestId('suppressed-why')).toContainText('hard bounce');
  await expect(detail).not.toContainText('The simulation schedules them');

  // Remove asks first; Cancel keeps it, Remove lifts it.
  await page.goto(`${served.url}/suppressions`);
  await rows.filter({ hasText: 'ann@bounces.example' }).getByRole('button', { name: 'Remove ann@bounces.example' }).click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toContainText('Remove ann@bounces.example?');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(rows).toHaveCount(2);
  await rows.filter({ hasText: 'ann@bounces.example' }).getByRole('button', { name: 'Remove ann@bounces.example' }).click();
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(rows).toHaveCount(1);
  const left = await (await page.request.get(`${served.url}/emulator/suppressions`)).json();
  expect(left.data.suppressions.map((s: { email: string }) => s.email)).toEqual(['bob@complainers.example']);

  // The bounced copy's page says whether its address is suppressed now, as the list does.
  await page.goto(`${served.url}/messages/${bounced.id}`);
  await expect(detail.getByTestId('bounce-suppressed')).toHaveText(' · the address is not suppressed now');
  expect(errors).toEqual([]);
});
