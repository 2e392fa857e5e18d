// mocha: `npx mocha test/mocha`. No configuration.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startMailyard } from 'mailyard/testing';
import { createMailApp } from '../../app/mail-app.cjs';

/** @type {import('mailyard/testing').Mailyard} */
let yard;
/** @type {ReturnType<typeof createMailApp>} */
let app;

before(async () => {
  yard = await startMailyard();
});
after(() => yard.stop());

beforeEach(async () => {
  await yard.reset();
  app = createMailApp({ apiUrl: yard.url, apiKey: yard.apiKey, smtp: yard.smtp });
  await app.start();
});
afterEach(() => app.stop());

/** The webhook delivery of `event` for `refId` that the app answered 2xx. */
const handled = (/** @type {string} */ event, /** @type {string} */ refId) =>
  yard.waitForDelivery((d) => d.event === event && d.ref_id === refId && d.status === 'succeeded');

it('a welcome email is captured and delivered', async () => {
  const refId = await app.sendWelcome('ann@example.org');
  const message = await yard.waitForMessage((m) => m.ref_id === refId);
  assert.equal(message.subject, 'Welcome!');
  assert.match(message.html ?? '', /Welcome aboard\./);
  await yard.advanceClock(60_000); // delivery is due 1 s after the send, on the emulator's clock
  await handled('delivery', refId);
  assert.deepEqual(
    app.events.map((e) => e.event),
    ['delivery'],
  );
});

it('a hard bounce suppresses the address', async () => {
  const refId = await app.sendWelcome('bounce@sim.mailyard.test');
  await yard.advanceClock(60_000);
  const bounce = await handled('bounce', refId);
  assert.equal(bounce.payload.bounce_type, 'hard');
  assert.equal(app.suppressed.get('bounce@sim.mailyard.test'), 'bounced');
});

it('a soft bounce reaches the app after a retry once the clock moves', async () => {
  app.failNextWebhooks(1);
  const refId = await app.sendWelcome('soft-bounce@sim.mailyard.test');
  await yard.advanceClock(60_000);
  const failed = await yard.waitForDelivery((d) => d.event === 'bounce' && d.ref_id === refId && d.status === 'pending' && d.attempts === 1);
  assert.equal(failed.last_status_code, 500);
  await yard.advanceClock(5_000); // the retry schedule's first delay
  const bounce = await handled('bounce', refId);
  assert.deepEqual(
    bounce.attempt_log.map((a) => a.response?.status),
    [500, 200],
  );
  assert.equal(bounce.payload.bounce_type, 'soft');
  assert.equal(app.suppressed.has('soft-bounce@sim.mailyard.test'), false);
});

it('a spam complaint suppresses the address', async () => {
  const refId = await app.sendWelcome('spam@sim.mailyard.test');
  await yard.advanceClock(60_000);
  await handled('spam', refId);
  assert.equal(app.suppressed.get('spam@sim.mailyard.test'), 'complained');
});

it('an invoice sent over SMTP is captured with its attachment', async () => {
  const pdf = Buffer.from('%PDF-1.4\n% an invoice\n%%EOF\n');
  await app.sendInvoice('cy@example.org', pdf);
  const message = await yard.waitForMessage((m) => m.subject === 'Your invoice');
  assert.equal(message.recipient.email, 'cy@example.org');
  assert.match(message.text ?? '', /Your invoice is attached\./);
  assert.equal(message.attachments.length, 1);
  const [attachment] = message.attachments;
  assert.deepEqual([attachment?.filename, attachment?.content_type, attachment?.size], ['invoice.pdf', 'application/pdf', pdf.length]);
  const bytes = await fetch(`${yard.url}/emulator/messages/${message.id}/attachments/0`).then((r) => r.arrayBuffer());
  assert.equal(createHash('sha256').update(Buffer.from(bytes)).digest('hex'), createHash('sha256').update(pdf).digest('hex'));
});
