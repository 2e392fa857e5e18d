// @ts-check
/**
 * The shop's email flows, offline: Mailyard stands in for the email service (mailyard/testing),
 * the shop is configured exactly as in production, only MAIL_API_URL points at Mailyard.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startMailyard } from 'mailyard/testing';
import { configFromEnv } from '../src/config.js';
import { createShop } from '../src/shop.js';

/** @type {import('mailyard/testing').Mailyard} */
let yard;
/** @type {ReturnType<typeof createShop>} */
let shop;

before(async () => {
  yard = await startMailyard({ apiKey: 'shop-test-key-0001' });
  process.env.MAIL_API_URL = yard.url;
  process.env.MAIL_API_KEY = yard.apiKey;
  process.env.MAIL_WEBHOOK_SECRET = 'whsec-shop-test';
});

after(async () => {
  await shop?.stop();
  await yard.stop();
});

beforeEach(async () => {
  await shop?.stop();
  await yard.reset();
  shop = createShop(configFromEnv());
  await shop.start(0);
});

/** The webhook delivery of `event` for `refId` that the shop answered 2xx. */
const delivered = (/** @type {string} */ event, /** @type {string | null} */ refId) =>
  yard.waitForDelivery((d) => d.event === event && d.ref_id === refId && d.status === 'succeeded');

describe('order confirmation', () => {
  it('is sent through the API, captured, and marked delivered by the webhook', async () => {
    const order = await shop.placeOrder('ann@example.org', '€42.00');
    assert.equal(order.emailStatus, 'sent');
    assert.ok(order.refId);

    const message = await yard.waitForMessage((m) => m.ref_id === order.refId);
    assert.equal(message.subject, `Order #${order.id} confirmed`);
    assert.equal(message.from.email, 'orders@shop.example');
    assert.match(message.html ?? '', /total €42\.00/);

    await yard.advanceClock(60_000);
    await delivered('delivery', order.refId);
    assert.equal(shop.store.orders[0]?.emailStatus, 'delivered');
    const logs = await shop.api.logsOf(order.refId);
    assert.deepEqual(
      logs.map((l) => [l.recipientAddress, l.status]),
      [['ann@example.org', 'delivered']],
    );
  });
});

describe('a hard bounce', () => {
  it('suppresses the address: the next order sends nothing', async () => {
    const first = await shop.placeOrder('bounce@sim.mailyard.test', '€10.00');
    await yard.advanceClock(60_000);
    const bounce = await delivered('bounce', first.refId);
    assert.equal(bounce.payload.bounce_type, 'hard');
    assert.equal(shop.store.suppressionOf('bounce@sim.mailyard.test'), 'bounced');
    assert.equal(shop.store.orders[0]?.emailStatus, 'bounced');

    const second = await shop.placeOrder('bounce@sim.mailyard.test', '€11.00');
    assert.equal(second.emailStatus, 'not sent (bounced)');
    assert.equal((await yard.messages()).length, 1);
  });
});

describe('the webhook receiver', () => {
  it('answers 500 while it cannot record an event; the service retries and the event is handled once', async () => {
    const retried = await shop.placeOrder('cy@example.org', '€5.00');
    // The database fails while the delivery event comes in: the receiver answers 500.
    shop.store.failWrites(1);
    await yard.advanceClock(60_000);
    const failed = await yard.waitForDelivery((d) => d.event === 'delivery' && d.ref_id === retried.refId && d.attempts === 1 && d.status === 'pending');
    assert.equal(failed.last_status_code, 500);
    assert.equal(shop.receiver.failed, 1);
    assert.equal(retried.emailStatus, 'sent');

    // The retry schedule's first delay is 5 s of emulator time.
    await yard.advanceClock(5_000);
    const done = await delivered('delivery', retried.refId);
    assert.deepEqual(
      done.attempt_log.map((a) => a.response?.status),
      [500, 200],
    );
    assert.equal(retried.emailStatus, 'delivered');
    assert.equal(shop.receiver.handled.filter((e) => e.event === 'delivery').length, 1);
  });

  it('passes the certifier, acting on a duplicate once and on each different event', async () => {
    const url = (await yard.service.listWebhooks()).data[0]?.webhook_url;
    assert.ok(url);
    const report = await yard.checkReceiver(url, {
      headers: { 'X-Webhook-Secret': 'whsec-shop-test' },
      // What the receiver has acted on so far: the certifier reads it around the duplicate and the pairs of events.
      effects: () => shop.receiver.handled.length,
    });
    assert.deepEqual(
      report.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.detail}`),
      [],
    );
    assert.deepEqual(
      report.checks.filter((c) => c.processed).map((c) => [c.id, c.processed?.observed]),
      [
        ['duplicate', 1],
        ['out-of-order', 2],
        ['same-kind-twice', 2],
      ],
    );
  });

  it('refuses a request without the shared secret', async () => {
    const url = (await yard.service.listWebhooks()).data[0]?.webhook_url;
    assert.ok(url);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"event":"spam","ref_id":"x","recipient":{"email":"a@b.example"}}',
    });
    assert.equal(res.status, 401);
    assert.equal(shop.receiver.refused, 1);
    assert.equal(shop.store.suppressionOf('a@b.example'), undefined);
  });
});

describe('a spam complaint', () => {
  it('stops the newsletter for that address, and a repeated event is handled once', async () => {
    const { sent } = await shop.sendNewsletter(['spam@sim.mailyard.test', 'dan@example.org']);
    const refId = sent.get('spam@sim.mailyard.test') ?? null;
    await yard.advanceClock(60_000);
    await delivered('spam', refId);
    assert.equal(shop.store.suppressionOf('spam@sim.mailyard.test'), 'complained');

    // The same event again (the service delivers at least once; Retry now sends it again, with its
    // webhook-id): the receiver takes it as a duplicate.
    const complaint = await delivered('spam', refId);
    const again = (await yard.control.retryDelivery(complaint.id)).data.attempt;
    assert.equal(again.request.headers['webhook-id'], complaint.id);
    assert.equal(again.response?.body, 'duplicate');
    assert.equal(shop.receiver.duplicates, 1);
    assert.equal(shop.receiver.handled.filter((e) => e.event === 'spam').length, 1);

    const next = await shop.sendNewsletter(['spam@sim.mailyard.test', 'dan@example.org']);
    assert.deepEqual(next.skipped, ['spam@sim.mailyard.test']);
    assert.deepEqual([...next.sent.keys()], ['dan@example.org']);
  });
});

describe('unsubscribe', () => {
  it('the one-click link of the message unsubscribes; the webhook suppresses the address', async () => {
    const { sent } = await shop.sendNewsletter(['eve@example.org']);
    const refId = sent.get('eve@example.org') ?? null;
    const message = await yard.waitForMessage((m) => m.ref_id === refId);
    const header = message.headers.find((h) => h.name.toLowerCase() === 'list-unsubscribe')?.value ?? '';
    const link = /<(http[^>]+)>/.exec(header)?.[1];
    assert.ok(link, `a List-Unsubscribe link in ${JSON.stringify(header)}`);

    // What the recipient's mail client does on "Unsubscribe" (RFC 8058 one-click).
    const res = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    assert.equal(res.status, 200);
    await delivered('unsubscribe', refId);
    assert.equal(shop.store.suppressionOf('eve@example.org'), 'unsubscribed');
    assert.deepEqual((await shop.sendNewsletter(['eve@example.org'])).skipped, ['eve@example.org']);
  });
});

describe('a test that waits in vain', () => {
  it('fails with a message that lists what did arrive', async () => {
    await shop.placeOrder('fay@example.org', '€1.00');
    await assert.rejects(
      yard.waitForMessage((m) => m.recipient.email === 'gus@example.org', { timeoutMs: 200 }),
      (/** @type {Error} */ err) => {
        assert.equal(err.name, 'WaitTimeoutError');
        assert.match(err.message, /1 captured message arrived/);
        assert.match(err.message, /to=fay@example\.org .*subject="Order #1001 confirmed"/);
        return true;
      },
    );
  });
});
