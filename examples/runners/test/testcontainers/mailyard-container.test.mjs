// node:test with Mailyard's image started by Testcontainers: `node --test test/testcontainers/`.
// Needs Docker or podman (DOCKER_HOST), and the image built as docs/containers.md says.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MailyardContainer } from 'mailyard/testcontainers';
import nodemailer from 'nodemailer';

/** @type {import('mailyard/testcontainers').StartedMailyardContainer} */
let mailyard;

before(async () => {
  mailyard = await new MailyardContainer().withApiKey('container-test-key-0001').start();
});
after(() => mailyard?.stop());

test('a message sent over SMTP is captured', async () => {
  const smtp = nodemailer.createTransport({ host: mailyard.smtp.host, port: mailyard.smtp.port });
  await smtp.sendMail({ from: 'shop@example.com', to: 'ann@example.com', subject: 'Your order', text: 'Thank you!' });
  const message = await mailyard.waitForMessage({ recipient: 'ann@example.com', subject: 'Your order' });
  assert.equal(message.from.email, 'shop@example.com');
  assert.equal(message.source, 'smtp');
});

test('a message sent through the API is captured, and its delivery event fires', async () => {
  const sent = await mailyard.service.sendEmail({
    from: { email: 'shop@example.com' },
    to: [{ email: 'bob@example.com' }],
    subject: 'Shipped',
    content: [{ type: 'text/plain', value: 'On its way.' }],
  });
  const message = await mailyard.waitForMessage({ recipient: 'bob@example.com' });
  assert.equal(message.ref_id, sent.ref_id);
  await mailyard.advanceClock(60_000); // delivery is due a second after the send, on the emulator's clock
  const delivered = await mailyard.waitForMessage({ recipient: 'bob@example.com', event: 'delivery' });
  assert.equal(delivered.id, message.id);
});
