import type { Page } from '@playwright/test';
import { expect, type Served, test, watchErrors } from './fixtures';

/**
 * A screen works as the account the user chose. When that account is deleted elsewhere (the API,
 * another window), the screen says so and asks which account to go on with: nothing goes out as
 * another account meanwhile.
 */

async function createAccount(page: Page, served: Served, name: string) {
  const res = await page.request.post(`${served.url}/emulator/accounts`, { data: { name } });
  return (await res.json()).data as { id: string; name: string; api_key: string };
}

const accountsNow = async (page: Page, served: Served) =>
  (await (await page.request.get(`${served.url}/emulator/accounts`)).json()).data as Array<{ id: string; name: string; is_default: boolean }>;

const messagesNow = async (page: Page, served: Served) =>
  (await (await page.request.get(`${served.url}/emulator/messages?limit=50`)).json()).data.messages as Array<{ account_id: string; subject: string }>;

test('Send: the account chosen is deleted through the API while the form is open; the page says so and sends nothing as another until asked', async ({
  served,
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const throwaway = await createAccount(page, served, 'Throwaway');
  // The only failure allowed: the form's suppression lookup for the recipients typed, when it goes out
  // after the deletion and before the page hears of it (the lookup's failure warns of nothing, as it should).
  const errors = watchErrors(page, [new RegExp(`status of 404 .*/emulator/suppressions\\?account_id=${throwaway.id}&`)]);
  await page.goto(`${served.url}/send?account=${throwaway.id}`);
  const switcher = page.getByRole('banner').getByLabel('Account');
  await expect(switcher).toHaveValue(throwaway.id);
  await expect(page.getByText('POST /v1/email/send as Throwaway')).toBeVisible();
  await page.getByLabel('To', { exact: true }).fill('ann@example.com');
  await page.getByLabel('Subject').fill('Meant for Throwaway');

  const deleted = await page.request.delete(`${served.url}/emulator/accounts/${throwaway.id}`);
  expect(deleted.status()).toBe(200);

  // A Send now must not go out as the default account (nor any other).
  const send = page.getByRole('button', { name: 'Send', exact: true });
  // The page hears of the deletion (live): it no longer says it sends as Throwaway.
  await expect(page.getByText('POST /v1/email/send as Throwaway')).toHaveCount(0);
  await send.click({ timeout: 2_000 }).catch(() => undefined);
  await expect(page.getByTestId('account-gone')).toContainText('The account “Throwaway” was deleted');
  expect(await messagesNow(page, served)).toEqual([]);
  await expect(send).toBeDisabled();
  await expect(page.getByTestId('account-gone')).toContainText('Nothing is done as another account until you choose one.');
  // The URL and the switcher still say which account the page worked as.
  expect(new URL(page.url()).searchParams.get('account')).toBe(throwaway.id);
  await expect(page.getByRole('banner').getByLabel('Account')).toHaveCount(0); // one account left: no switcher
  await page.screenshot({ path: test.info().outputPath('09-send-account-deleted.png') });

  // The user chooses: the default account, named on the button.
  const [defaultAccount] = (await accountsNow(page, served)).filter((a) => a.is_default);
  await page
    .getByTestId('account-gone')
    .getByRole('button', { name: `Work as ${defaultAccount!.name}` })
    .click();
  await expect(page.getByTestId('account-gone')).toHaveCount(0);
  expect(new URL(page.url()).searchParams.get('account')).toBe(defaultAccount!.id);
  await expect(page.getByText(`POST /v1/email/send as ${defaultAccount!.name}`)).toBeVisible();
  // The form kept what was typed; now the send goes out as the account chosen.
  await send.click();
  await expect(page.getByTestId('send-answer')).toBeVisible();
  const sent = await messagesNow(page, served);
  expect(sent.map((m) => [m.subject, m.account_id])).toEqual([['Meant for Throwaway', defaultAccount!.id]]);
  expect(errors).toEqual([]);
});

test('Messages: the account listed is deleted in another browser window; the list says so and offers all accounts or another', async ({
  served,
  page,
  browser,
}) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  const keep = await createAccount(page, served, 'Keeper');
  const throwaway = await createAccount(page, served, 'Throwaway');
  await page.goto(`${served.url}/messages?account=${throwaway.id}`);
  const switcher = page.getByRole('banner').getByLabel('Account');
  await expect(switcher).toHaveValue(throwaway.id);

  // Another window (its own browser context) deletes it from Settings.
  const other = await browser.newContext();
  const settings = await other.newPage();
  await settings.goto(`${served.url}/settings`);
  await settings.getByRole('button', { name: 'Delete Throwaway' }).click();
  await settings.getByTestId('confirm-dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(settings.getByTestId('accounts-notice')).toHaveText('Account “Throwaway” removed (it held no data)');
  await other.close();

  const notice = page.getByTestId('account-gone');
  await expect(notice).toContainText('The account “Throwaway” was deleted');
  // The switcher shows the deleted account as chosen, not another in its place.
  await expect(switcher).toHaveValue(throwaway.id);
  await expect(switcher.locator('option:checked')).toHaveText('Throwaway (deleted)');
  await page.screenshot({ path: test.info().outputPath('09-messages-account-deleted-elsewhere.png') });
  await notice.getByLabel('Choose an account').selectOption(keep.id);
  await expect(notice).toHaveCount(0);
  await expect(switcher).toHaveValue(keep.id);
  expect(errors).toEqual([]);
});

test('a link naming no account says so, and the screen acts as none until one is chosen', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/events?account=01NOSUCHACCOUNT0000000000`);
  const notice = page.getByTestId('account-gone');
  await expect(notice).toContainText('There is no account 01NOSUCHACCOUNT0000000000');
  await expect(page.getByRole('button', { name: /^Fire / })).toBeDisabled();
  await notice.getByRole('button', { name: 'Work as Default' }).click();
  await expect(notice).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Fire / })).toBeEnabled();
  expect(errors).toEqual([]);
});
