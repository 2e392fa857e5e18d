import { readFile } from 'node:fs/promises';
import { api, expect, test, watchErrors } from './fixtures';

test('a delivery with a large payload shows its first part, says it is truncated, and downloads the whole', async ({ served, receiver, page, context }) => {
  const errors = watchErrors(page);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url });
  await api(page, served, 'POST', '/v1/inbound/domain', { domain: 'in.example.com', url: receiver.url, method: 'POST', wildcard: true });
  const text = 'A long inbound message. '.repeat(20_000); // 480 KB
  const routed = await page.request.post(`${served.url}/emulator/inbound`, {
    data: { from: { email: 'a@example.org' }, to: ['big@in.example.com'], subject: 'big one', text },
  });
  const deliveryId = (await routed.json()).data.recipients[0].delivery_id as string;
  const [sent] = await receiver.waitFor(1);

  await page.goto(`${served.url}/deliveries/${deliveryId}`);
  const detail = page.getByTestId('delivery-detail');
  await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');
  const notice = detail.getByTestId('payload-truncated');
  await expect(notice).toContainText('Payload truncated');
  await expect(notice).toContainText('the first 256 KiB shown');
  await expect(detail.getByTestId('delivery-payload')).toContainText('"event":"inbound"');
  await expect(detail.getByTestId('attempt').first()).toContainText('The first 8 KiB of');

  // The download is the payload as it was sent, byte for byte.
  const [download] = await Promise.all([page.waitForEvent('download'), notice.getByTestId('payload-download').click()]);
  expect(download.suggestedFilename()).toBe(`delivery-${deliveryId}.json`);
  expect(await readFile((await download.path())!, 'utf8')).toBe(sent!.body);

  // Copy as curl sends that file, not the part shown.
  await detail.getByRole('button', { name: /^Copy as curl/ }).click();
  // Signed by the emulator when pressed: the command reaches the clipboard a moment later.
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain(`--data-binary '@delivery-${deliveryId}.json'`);
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).not.toContain('--data-raw');
  expect(errors).toEqual([]);
});
