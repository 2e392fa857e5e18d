import nodemailer from 'nodemailer';
import { expect, test, watchErrors } from './fixtures';

test("Messages: a paperclip on rows with attachments (live ones too), and Mailpit's larger:, smaller:, reply-to:, addressed: in the search", async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: served.smtpPort, secure: false, ignoreTLS: true });
  const report = (subject: string) => ({
    from: 'Robot <robot@example.com>',
    to: 'dan@example.org',
    replyTo: 'Support Desk <help@shop.test>',
    subject,
    text: 'the numbers are attached',
    attachments: [{ filename: 'numbers.csv', content: 'a,b\n'.repeat(5000) }],
  });
  await smtp.sendMail(report('Monthly report'));
  await smtp.sendMail({ from: 'Robot <robot@example.com>', to: 'eve@example.org', subject: 'Short note', text: 'hi' });

  await page.goto(`${served.url}/messages`);
  const list = page.getByTestId('message-list');
  const row = (subject: string) => list.getByRole('option').filter({ hasText: subject }).locator('.mrow');
  await expect(list.getByRole('option')).toHaveCount(2);
  await expect(row('Monthly report').getByRole('img', { name: 'has attachments' })).toBeVisible();
  await expect(row('Short note').getByRole('img', { name: 'has attachments' })).toHaveCount(0);

  // One arriving while the list is open has its paperclip at once.
  await smtp.sendMail(report('Weekly report'));
  await expect(row('Weekly report').getByRole('img', { name: 'has attachments' })).toBeVisible();
  await page.screenshot({ path: 'test-results/paperclip.png' });

  const search = page.getByLabel('Search messages');
  const shows = async (q: string, subjects: string[]) => {
    await search.fill(q);
    await expect(list.getByRole('option')).toHaveCount(subjects.length);
    for (const s of subjects) await expect(list).toContainText(s);
  };
  await shows('larger:10k', ['Monthly report', 'Weekly report']);
  // A listed row whose status then changes stays: its size, which a row cannot tell, was the search's to match.
  const weekly = (await (await page.request.get(`${served.url}/emulator/messages?q=${encodeURIComponent('subject:weekly')}`)).json()).data.messages[0] as {
    ref_id: string;
  };
  const fired = await page.request.post(`${served.url}/emulator/events`, { data: { event: 'bounce', ref_id: weekly.ref_id, recipient: 'dan@example.org' } });
  expect(fired.ok(), await fired.text()).toBe(true);
  await expect(row('Weekly report').getByText('hard bounce')).toBeVisible();
  await expect(list.getByRole('option')).toHaveCount(2);
  await shows('smaller:10K', ['Short note']);
  await shows('-larger:10k', ['Short note']);
  await shows('reply-to:help@shop.test subject:monthly', ['Monthly report']);
  await shows('addressed:eve@example.org', ['Short note']);
  await shows('addressed:"support desk"', ['Monthly report', 'Weekly report']);
  await search.fill('larger:lots');
  await expect(page.getByText('larger:lots is not a size: searched as text')).toBeVisible();
  await page.screenshot({ path: 'test-results/search-sizes.png' });
  expect(errors).toEqual([]);
});
