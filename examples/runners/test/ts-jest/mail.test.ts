// jest with ts-jest, TypeScript compiled to CommonJS with `moduleResolution: node10` (tsconfig.json):
// `npx jest --preset ts-jest test/ts-jest`.
import { createHash } from 'node:crypto';
import { type Delivery, type Mailyard, startMailyard } from 'mailyard/testing';
import { createMailApp } from '../../app/mail-app.cjs';

let yard: Mailyard;
let app: ReturnType<typeof createMailApp>;

beforeAll(async () => {
  yard = await startMailyard();
});
afterAll(() => yard.stop());

beforeEach(async () => {
  await yard.reset();
  app = createMailApp({ apiUrl: yard.url, apiKey: yard.apiKey, smtp: yard.smtp });
  await app.start();
});
afterEach(() => app.stop());

/** The webhook delivery of `event` for `refId` that the app answered 2xx. */
const handled = (event: string, refId: string): Promise<Delivery> =>
  yard.waitForDelivery((d) => d.event === event && d.ref_id === refId && d.status === 'succeeded');
test('a welcome email is captured and delivered', async () => {
  const refId = await app.sendWelcome('ann@example.org');
  const message = await yard.waitForMessage((m) => m.ref_id === refId);
  expect(message.subject).toBe('Welcome!');
  expect(message.html).toContain('Welcome aboard.');
  await yard.advanceClock(60_000); // delivery is due 1 s after the send, on the emulator's clock
  await handled('delivery', refId);
  expect(app.events.map((e) => e.event)).toEqual(['delivery']);
});

test('a hard bounce suppresses the address', async () => {
  const refId = await app.sendWelcome('bounce@sim.mailyard.test');
  await yard.advanceClock(60_000);
  const bounce = await handled('bounce', refId);
  expect(bounce.payload.bounce_type).toBe('hard');
  expect(app.suppressed.get('bounce@sim.mailyard.test')).toBe('bounced');
});

test('a soft bounce reaches the app after a retry once the clock moves', async () => {
  app.failNextWebhooks(1);
  const refId = await app.sendWelcome('soft-bounce@sim.mailyard.test');
  await yard.advanceClock(60_000);
  const failed = await yard.waitForDelivery((d) => d.event === 'bounce' && d.ref_id === refId && d.status === 'pending' && d.attempts === 1);
  expect(failed.last_status_code).toBe(500);
  await yard.advanceClock(5_000); // the retry schedule's first delay
  const bounce = await handled('bounce', refId);
  expect(bounce.attempt_log.map((a) => a.response?.status)).toEqual([500, 200]);
  expect(bounce.payload.bounce_type).toBe('soft');
  expect(app.suppressed.has('soft-bounce@sim.mailyard.test')).toBe(false);
});

test('a spam complaint suppresses the address', async () => {
  const refId = await app.sendWelcome('spam@sim.mailyard.test');
  await yard.advanceClock(60_000);
  await handled('spam', refId);
  expect(app.suppressed.get('spam@sim.mailyard.test')).toBe('complained');
});

test('an invoice sent over SMTP is captured with its attachment', async () => {
  const pdf = Buffer.from('%PDF-1.4\n% an invoice\n%%EOF\n');
  await app.sendInvoice('cy@example.org', pdf);
  const message = await yard.waitForMessage((m) => m.subject === 'Your invoice');
  expect(message.recipient.email).toBe('cy@example.org');
  expect(message.text).toContain('Your invoice is attached.');
  expect(message.attachments).toHaveLength(1);
  expect(message.attachments[0]).toMatchObject({ filename: 'invoice.pdf', content_type: 'application/pdf', size: pdf.length });
  const bytes = await fetch(`${yard.url}/emulator/messages/${message.id}/attachments/0`).then((r) => r.arrayBuffer());
  expect(createHash('sha256').update(Buffer.from(bytes)).digest('hex')).toBe(createHash('sha256').update(pdf).digest('hex'));
});
