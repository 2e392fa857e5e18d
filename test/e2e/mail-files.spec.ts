import { readFile } from 'node:fs/promises';
import { expect, test, watchErrors } from './fixtures';

const eml = (n: number, to: string, body: string) =>
  `From: Shop <shop@example.com>\r\nTo: ${to}\r\nSubject: ${n === 0 ? 'receipt' : `customer case ${n}`}\r\nMessage-ID: <m${n}@example.com>\r\nDate: Mon, 5 Jan 2026 09:0${n}:00 +0000\r\n\r\n${body}\r\n`;

// mboxrd: the second message's body line "From the warehouse" is quoted in the file.
const mbox = [1, 2, 3]
  .map(
    (n) =>
      `From shop@example.com Mon Jan  5 09:0${n}:00 2026\n${eml(n, `case${n}@example.org`, n === 2 ? '>From the warehouse: delayed.' : `case ${n} text`).replace(/\r\n/g, '\n')}\n`,
  )
  .join('');

test('mail dropped and picked on Messages is imported (a bad file named), and Export downloads a search as an mbox', async ({ served, page }) => {
  const errors = watchErrors(page, [/Failed to load resource: the server responded with a status of 400/]);
  await page.goto(`${served.url}/messages`);
  const list = page.getByTestId('message-list');

  // Two .eml files dragged over the screen: it says what a drop does; dropped on the list.
  const dropped = await page.evaluateHandle(
    (files: Array<[string, string]>) => {
      const data = new DataTransfer();
      for (const [name, text] of files) data.items.add(new File([text], name, { type: 'message/rfc822' }));
      return data;
    },
    [
      ['one.eml', eml(0, 'ann@example.org', 'Thank you for your order.')],
      ['two.eml', eml(0, 'bob@example.org', 'Your parcel is on its way.')],
    ] as Array<[string, string]>,
  );
  // The screen is empty: the files are dropped on whatever shows (the window takes them).
  const screen = page.getByTestId('messages-toolbar');
  await screen.dispatchEvent('dragenter', { dataTransfer: dropped });
  await expect(page.getByTestId('mail-import-drop')).toHaveText('Drop .eml or mbox files to import them');
  await screen.dispatchEvent('drop', { dataTransfer: dropped });
  await expect(page.getByTestId('mail-import-drop')).toHaveCount(0);
  await expect(page.getByTestId('mail-import-result')).toHaveText(/^Imported 2 messages \(2 copies\)\./);
  await page.getByTestId('mail-import-result').getByRole('button', { name: 'Close' }).click();

  // The mbox and a file that is no message, through the picker.
  await page.getByTestId('mail-import-files').setInputFiles([
    { name: 'cases.mbox', mimeType: 'application/mbox', buffer: Buffer.from(mbox) },
    { name: 'notes.eml', mimeType: 'message/rfc822', buffer: Buffer.from('just some words, no header\n') },
  ]);
  const result = page.getByTestId('mail-import-result');
  await expect(result).toContainText('Imported 3 messages (3 copies); 1 was not imported:');
  await expect(result.getByRole('listitem')).toHaveText(['notes.eml: raw is not a message: it has no header fields']);

  await expect(list.getByRole('option')).toHaveCount(5);

  await page.getByLabel('Search messages').fill('subject:"customer case"');
  await expect(list.getByRole('option')).toHaveCount(3);
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export 3 matches' }).click();
  const file = await (await download).path();
  const written = await readFile(file, 'latin1');
  expect(written).toContain('\n>From the warehouse: delayed.\n');
  expect(written.match(/^Subject: .*$/gm)).toEqual(['Subject: customer case 1', 'Subject: customer case 2', 'Subject: customer case 3']);
  expect(written.match(/^From shop@example\.com /gm)).toHaveLength(3);
  expect(errors).toEqual([]);
});
