import nodemailer from 'nodemailer';
import { expect, test, watchErrors } from './fixtures';

test.use({ serveArgs: ['--enable-chaos'] });

test('Simulation: an SMTP chaos trigger saved on the screen refuses RCPT TO with its code; All off accepts again', async ({ served, page }, info) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/simulation`);
  const chaos = page.getByRole('region', { name: 'SMTP chaos' });
  await chaos.getByLabel('Recipient reply code').fill('550');
  await chaos.getByLabel('Recipient probability').fill('100');
  await chaos.getByRole('button', { name: 'Save triggers' }).click();
  await expect(chaos.getByRole('status')).toHaveText('Saved: 1 of 3 triggers on.');
  await chaos.screenshot({ path: info.outputPath('smtp-chaos.png') });
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: served.smtpPort, secure: false, ignoreTLS: true });
  const mail = { from: 'app@example.com', to: 'ann@example.com', subject: 'Chaos', text: 'x' };
  await expect(smtp.sendMail(mail)).rejects.toMatchObject({ responseCode: 550, command: 'RCPT TO' });
  await chaos.getByRole('button', { name: 'All off' }).click();
  await expect(chaos.getByLabel('Recipient probability')).toHaveValue('0');
  await smtp.sendMail(mail);
  expect(errors).toEqual([]);
});
