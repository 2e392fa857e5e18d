/**
 * mailyard/testing: waits the emulator filters and answers (long polls), the typed payload
 * of a filtered wait, the expect matchers, and advanceClock's settled answer. Real emulator, real
 * local webhook receiver, real HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Mailyard, startMailyard, WaitTimeoutError } from '../../src-main/testing/index';
import { type MailyardMatchers, mailyardMatchers } from '../../src-main/testing/matchers';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { rawRequest } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Assertion<T = any> extends MailyardMatchers<Promise<void>> {}
}
expect.extend(mailyardMatchers);

let yard: Mailyard;
let receiver: Receiver;
const everyEvent = Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true]));

const send = (to: string[], subject = 'Hello') =>
  yard.service.sendEmail({
    from: { email: 'app@shop.example' },
    to: to.map((email) => ({ email })),
    subject,
    content: [{ type: 'text/html', value: `<p>${subject}</p>` }],
  });

beforeAll(async () => {
  yard = await startMailyard({ apiKey: 'testing-waits-key-1' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await yard.stop();
  await receiver.close();
});
beforeEach(async () => {
  await yard.reset();
  receiver.requests.length = 0;
  receiver.answer = undefined;
  await yard.service.registerWebhook({ webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: everyEvent } });
});

describe('waits the emulator filters', () => {
  it('a filter object finds the one copy it names among a send to many', async () => {
    const to = Array.from({ length: 50 }, (_, i) => `user${i}@example.org`);
    const { ref_id } = await send(to, 'Your receipt');
    const message = await yard.waitForMessage({ ref_id, recipient: 'USER37@example.org' });
    expect(message).toMatchObject({ ref_id, recipient: { email: 'user37@example.org' }, subject: 'Your receipt' });
    expect(message.html).toContain('<p>Your receipt</p>');
    // subject is a case-insensitive substring; from and source exact.
    const bySubject = await yard.waitForMessage({ subject: 'RECEIPT', from: 'app@shop.example', source: 'api' });
    expect(bySubject.ref_id).toBe(ref_id);
    expect(bySubject.recipient.email).toBe('user0@example.org');
  });

  it('a wait started before the send resolves when the copy arrives', async () => {
    const waiting = yard.waitForMessage({ recipient: 'late@example.org' }, { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 100));
    const { ref_id } = await send(['late@example.org']);
    expect((await waiting).ref_id).toBe(ref_id);
  });

  it('waitForDelivery with a filter answers the event kind’s typed payload', async () => {
    const { ref_id } = await send(['bounce@sim.mailyard.test']);
    await yard.advanceClock(60_000);
    const bounce = await yard.waitForDelivery({ event: 'bounce', ref_id, status: 'succeeded' });
    // Typed per kind: bounce_type exists on a bounce's payload only (a compile error elsewhere).
    const kind: 'hard' | 'soft' = bounce.payload.bounce_type;
    expect(kind).toBe('hard');
    expect(bounce.payload.recipient.email).toBe('bounce@sim.mailyard.test');
    expect(bounce.attempt_log[0]!.response!.status).toBe(200);
    // The message's events are filterable too.
    const bounced = await yard.waitForMessage({ ref_id, event: 'bounce', status: 'bounced' });
    expect(bounced.events.map((e) => e.event)).toContain('bounce');
    // deliveries(filter) lists what the emulator finds, oldest first.
    expect((await yard.deliveries({ ref_id })).map((d) => d.event)).toContain('bounce');
  });

  it('a function predicate is tried on what the filter option narrows to', async () => {
    const first = await send(['ann@example.org'], 'One');
    await send(['ann@example.org'], 'Two');
    const m = await yard.waitForMessage((msg) => msg.html?.includes('Two') ?? false, { filter: { recipient: 'ann@example.org' } });
    expect(m.subject).toBe('Two');
    const none = await yard.waitForMessage((msg) => msg.subject === 'Two', { filter: { ref_id: first.ref_id }, timeoutMs: 200 }).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(WaitTimeoutError);
  });

  it('a filter that never matches times out naming the filter and the newest arrivals', async () => {
    // Nothing sent, nothing scheduled, a webhook for every kind: the set-up explains nothing, so nothing is added.
    const noDelivery = (await yard.waitForDelivery({ event: 'spam' }, { timeoutMs: 100 }).catch((e: unknown) => e)) as WaitTimeoutError;
    expect(noDelivery.message).toBe('waitForDelivery: no webhook delivery matched {"event":"spam"} within 100 ms.\nNo webhook delivery arrived at all.');
    const { ref_id } = await send(['ann@example.org'], 'Shipped');
    const error = (await yard.waitForMessage({ subject: 'Refund' }, { timeoutMs: 200 }).catch((e: unknown) => e)) as WaitTimeoutError;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error.message).toContain('waitForMessage: no captured message matched {"subject":"Refund"} within 200 ms.');
    expect(error.message).toContain(`to=ann@example.org from=app@shop.example subject="Shipped" status=`);
    expect(error.message).toContain(`ref_id=${ref_id}`);
  });
});

/** The message of the wait's time-out (it must time out). */
async function timeOut(wait: Promise<unknown>): Promise<string> {
  const error = await wait.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WaitTimeoutError);
  return (error as WaitTimeoutError).message;
}

describe('a time-out says why nothing can match, and how to change it', () => {
  it('an event kind no webhook of the account takes: none at all, or one without that kind', async () => {
    const { id: accountId } = (await yard.control.listAccounts()).data.find((a) => a.is_default)!;
    await yard.service.deleteWebhook({ event: 'EMAIL_EVENT' });
    await yard.fireEvent({ event: 'spam', recipient: 'ann@example.org' });
    const none = await timeOut(yard.waitForDelivery({ event: 'spam' }, { timeoutMs: 100 }));
    expect(none).toContain(
      `No webhook takes spam events, so no such delivery can arrive: account ${accountId} (the default account, the handle's) has no EMAIL_EVENT webhook.`,
    );
    expect(none).toContain(
      "Add one: yard.service.registerWebhook({ webhook_url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { spam: true } } }), or yard.createCatcher({ useAsWebhook: true })",
    );

    await yard.service.registerWebhook({
      webhook_url: receiver.url,
      event: 'EMAIL_EVENT',
      method: 'POST',
      webhook_options: { events: { delivery: true, bounce: true } },
    });
    await yard.fireEvent({ event: 'spam', recipient: 'ann@example.org' });
    const without = await timeOut(yard.waitForDelivery({ event: 'spam', recipient: 'ann@example.org' }, { timeoutMs: 100 }));
    expect(without).toContain(
      `account ${accountId} (the default account, the handle's) has an EMAIL_EVENT webhook (${receiver.url}) that takes delivery, bounce, not spam.`,
    );
    expect(without).toContain(
      "Enable it: yard.service.updateWebhook({ event: 'EMAIL_EVENT', webhook_options: { events: { delivery: true, bounce: true, spam: true } } })",
    );
    // A predicate narrowed by a filter, and the matcher, say the same.
    expect(await timeOut(yard.waitForDelivery((d) => d.status === 'succeeded', { filter: { event: 'spam' }, timeoutMs: 100 }))).toContain(
      'No webhook takes spam events',
    );
    const failure = await expect(yard)
      .toHaveDeliveredEvent('spam', {}, { timeoutMs: 100 })
      .then(
        () => null,
        (e: unknown) => e as Error,
      );
    expect(failure?.message).toContain('that takes delivery, bounce, not spam');
    // A kind the webhook takes: no such line.
    expect(await timeOut(yard.waitForDelivery({ event: 'bounce', ref_id: 'none' }, { timeoutMs: 100 }))).not.toContain('No webhook takes');
  });

  it('a recipient on the suppression list: its copies fail at once, with no events and no deliveries', async () => {
    await yard.service.unsubscribeEmail({ email: 'gone@example.org' });
    const { ref_id } = await send(['gone@example.org']);
    await yard.advanceClock(60_000);
    const { id: accountId } = (await yard.control.listAccounts()).data.find((a) => a.is_default)!;
    const lines = [
      `gone@example.org is on the suppression list of account ${accountId} (the default account, the handle's) since `,
      ' (api): its copies fail at once (status failed), with no events and no webhook deliveries.',
      `Lift it: yard.control.removeSuppression("gone@example.org", { account_id: "${accountId}" }).`,
    ];
    const delivery = await timeOut(yard.waitForDelivery({ event: 'delivery', recipient: 'gone@example.org' }, { timeoutMs: 100 }));
    for (const line of lines) expect(delivery).toContain(line);
    const delivered = await timeOut(yard.waitForMessage({ ref_id, recipient: 'GONE@example.org', status: 'delivered' }, { timeoutMs: 100 }));
    for (const line of lines) expect(delivered).toContain(line);
    // The failed copy itself is there to be found.
    expect((await yard.waitForMessage({ ref_id, recipient: 'gone@example.org', status: 'failed' })).ref_id).toBe(ref_id);
  });

  it('a paused clock: the scheduled events wait for it to move', async () => {
    await yard.control.setClock({ speed: 0 });
    try {
      const { ref_id } = await send(['ann@example.org']);
      const lines = ['The emulator clock is paused (speed 0): scheduled email events (the next at ', 'Move it: yard.advanceClock(ms)'];
      const delivery = await timeOut(yard.waitForDelivery({ event: 'delivery', ref_id }, { timeoutMs: 100 }));
      for (const line of lines) expect(delivery).toContain(line);
      const delivered = await timeOut(yard.waitForMessage({ ref_id, status: 'delivered' }, { timeoutMs: 100 }));
      for (const line of lines) expect(delivered).toContain(line);
      // A wait for the copy itself does not depend on the clock: no word of it.
      expect(await timeOut(yard.waitForMessage({ ref_id, subject: 'Other' }, { timeoutMs: 100 }))).not.toContain('clock');
    } finally {
      await yard.control.setClock({ speed: 1 });
    }
  });

  it('an event still ahead on a running clock: advanceClock brings it now', async () => {
    await yard.setRules([{ pattern: 'later@example.org', events: [{ event: 'delivery', delay_ms: 3_600_000 }] }]);
    const { ref_id } = await send(['later@example.org']);
    const message = await timeOut(yard.waitForDelivery({ event: 'delivery', ref_id }, { timeoutMs: 100 }));
    expect(message).toMatch(
      /Scheduled events are still ahead on the emulator clock \(the next at \S+, in 3600 s at speed 1\): if the one waited for is among them, yard\.advanceClock\(\d+\) brings it now\./,
    );
  });

  it('an account id no account has', async () => {
    const { id: accountId } = (await yard.control.listAccounts()).data.find((a) => a.is_default)!;
    const line = `There is no account 01NOSUCHACCOUNT, so nothing can match its account_id. The accounts: account ${accountId} (the default account, the handle's).`;
    expect(await timeOut(yard.waitForDelivery({ account_id: '01NOSUCHACCOUNT' }, { timeoutMs: 100 }))).toContain(line);
    expect(await timeOut(yard.waitForMessage({ account_id: '01NOSUCHACCOUNT' }, { timeoutMs: 100 }))).toContain(line);
  });
});

describe('the long poll routes', () => {
  it('answer at once with a match, hold until one arrives, or time out', async () => {
    const { ref_id } = await send(['ann@example.org']);
    const now = await rawRequest(yard.url, 'GET', `/emulator/messages/wait?ref_id=${ref_id}&wait_ms=5000`, {});
    expect(now.status).toBe(200);
    expect(now.json.data).toMatchObject({ timed_out: false, waited_ms: 0, messages: [{ ref_id, recipient: { email: 'ann@example.org' } }] });

    const empty = await rawRequest(yard.url, 'GET', '/emulator/messages/wait?recipient=nobody@example.org&wait_ms=150', {});
    expect(empty.json.data).toMatchObject({ timed_out: true, messages: [] });
    expect(empty.json.data.waited_ms).toBeGreaterThanOrEqual(140);

    const held = rawRequest(yard.url, 'GET', '/emulator/deliveries/wait?event=click&status=succeeded&wait_ms=10000', {});
    await new Promise((r) => setTimeout(r, 100));
    await yard.fireEvent({ event: 'click', recipient: 'ann@example.org' });
    const answered = await held;
    expect(answered.json.data).toMatchObject({ timed_out: false, deliveries: [{ event: 'click', status: 'succeeded' }] });
    expect(answered.json.data.waited_ms).toBeLessThan(10_000);
  });

  it('refuse bad filters with a 400 naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['/emulator/messages/wait?wait_ms=60000', 'wait_ms'],
      ['/emulator/messages/wait?status=lost', 'status'],
      ['/emulator/messages/wait?colour=red', 'colour'],
      ['/emulator/deliveries/wait?wait_ms=-1', 'wait_ms'],
      ['/emulator/deliveries/wait?limit=1000', 'limit'],
    ];
    for (const [path, field] of cases) {
      const res = await rawRequest(yard.url, 'GET', path, {});
      expect(res.status, path).toBe(400);
      expect(res.text, path).toContain(field);
    }
  });

  it('a wait in progress does not hold stop()', async () => {
    // The shutdown grace and the keep-alive time-out are longer than the test's time-out: a stop that
    // ran into either fails the test. The long poll answers at once and closes its connection instead.
    const other = await startMailyard({ shutdownGraceMs: 120_000, httpKeepAliveTimeoutMs: 120_000 });
    const held = rawRequest(other.url, 'GET', '/emulator/messages/wait?recipient=x@example.org&wait_ms=30000', {}).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await other.stop();
    await held;
  });
});

describe('expect matchers', () => {
  it('toHaveReceivedEmail and toHaveDeliveredEvent wait for what the emulator records', async () => {
    const { ref_id } = await send(['bounce@sim.mailyard.test'], 'Order 7');
    await expect(yard).toHaveReceivedEmail({ recipient: 'bounce@sim.mailyard.test', subject: 'Order 7' });
    await expect(yard).not.toHaveReceivedEmail({ subject: 'Order 8' });
    await yard.advanceClock(60_000);
    await expect(yard).toHaveDeliveredEvent('bounce', { ref_id });
    await expect(yard).not.toHaveDeliveredEvent('spam', { ref_id });
  });

  it('fail with what did arrive', async () => {
    await send(['ann@example.org'], 'Hi');
    const failure = await expect(yard)
      .toHaveReceivedEmail({ subject: 'Bye' }, { timeoutMs: 100 })
      .then(
        () => null,
        (e: unknown) => e as Error,
      );
    expect(failure?.message).toContain('expected a captured message to match {"subject":"Bye"}');
    expect(failure?.message).toContain('subject="Hi"');
    const notFailure = await expect(yard)
      .not.toHaveReceivedEmail({ subject: 'Hi' })
      .then(
        () => null,
        (e: unknown) => e as Error,
      );
    expect(notFailure?.message).toMatch(/expected no captured message to match \{"subject":"Hi"\}, but \S+ \(to ann@example\.org, "Hi"\) does/);
  });
});

describe('advanceClock', () => {
  it('resolves once the events it made due are recorded and their deliveries attempted, 100 runs in a row', async () => {
    await yard.reset();
    await yard.service.registerWebhook({ webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: everyEvent } });
    for (let run = 0; run < 100; run++) {
      const bounce = await send([`bounce+r${run}@sim.mailyard.test`]);
      const delivered = await send([`delivered+r${run}@sim.mailyard.test`]);
      const clock = await yard.advanceClock(60_000);
      // The receiver answers at once: nothing is left on the wire.
      expect(clock.in_flight, `run ${run}`).toBe(0);
      // No wait: the move answered after the events were recorded and their deliveries attempted.
      const deliveries = (await yard.control.listDeliveries({ ref_id: bounce.ref_id })).data.deliveries;
      expect(deliveries.find((d) => d.event === 'bounce')?.status, `run ${run}`).toBe('succeeded');
      const logs = await yard.service.getEmailLogs({ refId: delivered.ref_id });
      expect(logs.emailLogs[0]!.status, `run ${run}`).toBe('delivered');
    }
  });
});
