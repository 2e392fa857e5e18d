import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../src-main/core/dispatch/retry-policy';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../../src-shared/events';
import { EMAIL_EVENT_PAYLOADS } from '../../src-shared/schemas/events';
import { deliveryHelpers, emulatorAndReceiverPerTest, registerHook, settle } from '../helpers/deliveries';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import type { Receiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;
const cleanups = emulatorAndReceiverPerTest((e, r) => {
  emu = e;
  receiver = r;
});

const { pauseClock, advance, attemptsOf } = deliveryHelpers(() => emu);

describe('delivering an event', () => {
  it('sends the payload with the configured method and headers and the contract headers, and records the attempt', async () => {
    await registerHook(emu.service, receiver.url, { method: 'PUT', headers: { 'X-Webhook-Secret': 's3cret', Authorization: 'Bearer r' } });
    const fired = (await emu.control.fireEvent({ event: 'delivery', recipient: 'ann@example.com' })).data;
    expect(fired.sent).toBe(true);
    const [req] = await receiver.waitFor(1);
    expect(req!.method).toBe('PUT');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['user-agent']).toMatch(/^Mailyard\/\d+\.\d+\.\d+$/);
    expect(req!.headers['webhook-id']).toBe(fired.delivery_id);
    expect(Math.abs(Number(req!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(req!.headers['x-webhook-secret']).toBe('s3cret');
    expect(req!.headers.authorization).toBe('Bearer r');
    expect(req!.headers['webhook-signature']).toBeUndefined();
    const body = JSON.parse(req!.body);
    expect(body).toEqual(fired.payload);
    expect(EMAIL_EVENT_PAYLOADS.delivery.parse(body).recipient.email).toBe('ann@example.com');

    const d = await attemptsOf(fired.delivery_id!, 1);
    expect(d.status).toBe('succeeded');
    expect(d.next_attempt_at).toBeNull();
    const attempt = d.attempt_log[0]!;
    expect(attempt).toMatchObject({ number: 1, trigger: 'scheduled', outcome: 'succeeded', error: null });
    expect(attempt.request).toMatchObject({ method: 'PUT', url: receiver.url, body: req!.body });
    expect(attempt.request.headers['webhook-id']).toBe(fired.delivery_id);
    expect(attempt.response).toMatchObject({ status: 200, body: '{"ok":true}', truncated: false });
    expect(attempt.response!.headers['content-type']).toBe('application/json');
  });

  it.each(['GET', 'DELETE'])('sends the JSON body with %s too', async (method) => {
    await registerHook(emu.service, receiver.url, { method });
    const fired = (await emu.control.fireEvent({ event: 'open' })).data;
    const [req] = await receiver.waitFor(1);
    expect(req!.method).toBe(method);
    expect(JSON.parse(req!.body)).toEqual(fired.payload);
  });

  it('never sends a kind the webhook filter disables, and says why', async () => {
    await registerHook(emu.service, receiver.url, { events: { delivery: true } });
    for (const kind of EMAIL_EVENT_KINDS.filter((k) => k !== 'delivery')) {
      const fired = (await emu.control.fireEvent({ event: kind })).data;
      expect(fired).toMatchObject({
        sent: false,
        delivery_id: null,
        reason: `the EMAIL_EVENT webhook does not have ${kind} enabled in webhook_options.events`,
      });
    }
    await emu.control.fireEvent({ event: 'delivery' });
    await receiver.waitFor(1);
    await settle();
    expect(receiver.requests.map((r) => JSON.parse(r.body).event)).toEqual(['delivery']);
    expect((await emu.control.listDeliveries()).data.deliveries).toHaveLength(1);
  });

  it('says plainly when the account has no webhook', async () => {
    const fired = await emu.control.fireEvent({ event: 'bounce' });
    expect(fired.message).toBe('Event fired but not sent: the account has no EMAIL_EVENT webhook; register one to receive events');
    expect(fired.data.sent).toBe(false);
  });

  it('signs requests when the account has a secret, verifiably with the standardwebhooks package', async () => {
    await registerHook(emu.service, receiver.url);
    const account = (await emu.control.setSigningSecret(emu.handle.defaultAccount.id)).data;
    expect(account.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await emu.control.fireEvent({ event: 'click' });
    const [req] = await receiver.waitFor(1);
    expect(req!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(account.signing_secret!).verify(req!.body, req!.headers as Record<string, string>) as { event: string };
    expect(verified.event).toBe('click');
    // A wrong secret does not verify.
    const other = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
    expect(() => other.verify(req!.body, req!.headers as Record<string, string>)).toThrow();

    // Rotating changes the signature; removing it stops signing.
    const rotated = (await emu.control.setSigningSecret(emu.handle.defaultAccount.id)).data.signing_secret!;
    expect(rotated).not.toBe(account.signing_secret);
    await emu.control.fireEvent({ event: 'click' });
    const [, second] = await receiver.waitFor(2);
    expect(() => new Webhook(rotated).verify(second!.body, second!.headers as Record<string, string>)).not.toThrow();
    await emu.control.deleteSigningSecret(emu.handle.defaultAccount.id);
    await emu.control.fireEvent({ event: 'click' });
    const [, , third] = await receiver.waitFor(3);
    expect(third!.headers['webhook-signature']).toBeUndefined();
  });

  it('takes a given signing secret and refuses a malformed one', async () => {
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    expect((await emu.control.setSigningSecret(emu.handle.defaultAccount.id, { secret })).data.signing_secret).toBe(secret);
    const bad = await emu.request('PUT', `/emulator/accounts/${emu.handle.defaultAccount.id}/signing-secret`, { body: { secret: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('secret must be whsec_ followed by at least 24 bytes of base64');
    const missing = await emu.request('PUT', '/emulator/accounts/01ABCDEFGHJKMNPQRSTVWXYZ00/signing-secret', { body: {} });
    expect(missing.status).toBe(404);
  });
});

describe('synthetic events', () => {
  it.each(EMAIL_EVENT_KINDS)('%s: a payload that matches its schema, with overrides applied', async (kind: EmailEventKind) => {
    await registerHook(emu.service, receiver.url);
    const fired = (
      await emu.control.fireEvent({
        event: kind,
        recipient: 'qa@example.com',
        fields: { ref_id: 'REF-1', campaign_id: 'spring', custom_args: { plan: 'pro' } },
      })
    ).data;
    const [req] = await receiver.waitFor(1);
    const body = EMAIL_EVENT_PAYLOADS[kind].parse(JSON.parse(req!.body)) as Record<string, unknown>;
    expect(body).toMatchObject({ event: kind, ref_id: 'REF-1', campaign_id: 'spring', custom_args: { plan: 'pro' } });
    if (kind !== 'imap_error') expect((body.recipient as { email: string }).email).toBe('qa@example.com');
    expect(body).toEqual(fired.payload);
  });

  it('refuses overrides that break the payload schema, naming the field', async () => {
    const res = await emu.request('POST', '/emulator/events', { body: { event: 'bounce', fields: { bounce_type: 'medium', extra: 1 } } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('fields.bounce_type must be "hard" or "soft"');
    expect(Object.keys(res.json.fields)).toEqual(['fields.bounce_type', 'fields.extra']);
    const kind = await emu.request('POST', '/emulator/events', { body: { event: 'explosion' } });
    expect(kind.status).toBe(400);
    expect(kind.json.error).toMatch(/^event must be one of delivery, open, click/);
    const account = await emu.request('POST', '/emulator/events', { body: { event: 'open', account_id: 'nope' } });
    expect(account.status).toBe(404);
  });
});

describe('synthetic events about stored messages, and bounce defaults', () => {
  const sendTo = (...emails: string[]) =>
    emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: emails.map((email) => ({ email })),
      subject: 'Stored',
      content: [{ type: 'text/plain', value: 'hi' }],
    });

  it('refuses a ref_id that names no stored send (404, naming ref_id) and sends nothing; a free-standing event leaves it out or sets fields.ref_id', async () => {
    await registerHook(emu.service, receiver.url);
    for (const dry_run of [false, true]) {
      const res = await emu.request('POST', '/emulator/events', { body: { event: 'delivery', ref_id: 'no-such-send', dry_run } });
      expect(res.status).toBe(404);
      expect(res.json.error).toBe(
        'Message Not Found: no stored message has ref_id no-such-send; leave ref_id out (or set fields.ref_id) to fire a free-standing event',
      );
      expect(Object.keys(res.json.fields)).toEqual(['ref_id']);
    }
    // A stored send, but no copy of it to that recipient.
    const { ref_id } = await sendTo('ann@example.com');
    const other = await emu.request('POST', '/emulator/events', { body: { event: 'open', ref_id, recipient: 'zed@example.com' } });
    expect(other.status).toBe(404);
    expect(other.json.error).toBe(`Message Not Found: the send ${ref_id} has no copy to zed@example.com`);
    await settle();
    expect((await emu.control.listDeliveries({ ref_id: 'no-such-send' })).data.deliveries).toEqual([]);
    expect(receiver.requests.filter((r) => JSON.parse(r.body).ref_id === 'no-such-send')).toEqual([]);

    // The stored send itself still works; so do free-standing events.
    expect((await emu.control.fireEvent({ event: 'open', ref_id })).data).toMatchObject({
      sent: true,
      payload: { ref_id, recipient: { email: 'ann@example.com' } },
    });
    const generated = (await emu.control.fireEvent({ event: 'open' })).data.payload;
    expect(generated.ref_id).toEqual(expect.any(String));
    expect((await emu.control.fireEvent({ event: 'open', fields: { ref_id: 'my-own-ref' } })).data).toMatchObject({
      sent: true,
      payload: { ref_id: 'my-own-ref' },
    });
  });

  it('a bounce override without a bounce_reason gets a reason that follows its type and category', async () => {
    const fire = async (fields?: Record<string, unknown>) =>
      (await emu.control.fireEvent({ event: 'bounce', recipient: 'ann@example.com', dry_run: true, ...(fields ? { fields } : {}) })).data.payload;
    // The default: a hard bounce, user unknown.
    expect(await fire()).toMatchObject({
      bounce_type: 'hard',
      bounce_category: 'invalid_recipient',
      bounce_reason: expect.stringMatching(/^550 5\.1\.1 <ann@example\.com>/),
    });
    // A soft mailbox_full bounce: a 452 4.2.2 reply, never the hard 550 5.1.1.
    const soft = await fire({ bounce_type: 'soft', bounce_category: 'mailbox_full' });
    expect(soft).toMatchObject({ bounce_type: 'soft', bounce_category: 'mailbox_full' });
    expect(soft.bounce_reason).toMatch(/^452 4\.2\.2 <ann@example\.com>: Mailbox full/);
    // Soft alone: the category follows (mailbox_full), and the reply is a 4xx.
    expect(await fire({ bounce_type: 'soft' })).toMatchObject({ bounce_category: 'mailbox_full', bounce_reason: expect.stringMatching(/^452 4\.2\.2 /) });
    // A category alone keeps the hard type, with that category's 5xx reply.
    expect(await fire({ bounce_category: 'mailbox_full' })).toMatchObject({ bounce_type: 'hard', bounce_reason: expect.stringMatching(/^552 5\.2\.2 /) });
    expect(await fire({ bounce_type: 'soft', bounce_category: 'policy' })).toMatchObject({ bounce_reason: expect.stringMatching(/^450 4\.7\.1 /) });
    expect(await fire({ bounce_type: 'soft', bounce_category: 'greylisted' })).toMatchObject({
      bounce_reason: expect.stringMatching(/^450 4\.0\.0 .*greylisted/),
    });
    // An explicit reason is kept as given.
    expect(await fire({ bounce_type: 'soft', bounce_reason: '421 try later' })).toMatchObject({ bounce_reason: '421 try later' });
  });
});

describe('GET /emulator/stats', () => {
  it('counts the deliveries failing (pending after a failed attempt, retrying) apart from the failed and the merely pending', async () => {
    await pauseClock();
    await registerHook(emu.service, receiver.url);
    receiver.status = 500;
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!);
    for (const id of ids) await attemptsOf(id, 1);
    const failing = (await emu.control.getStats()).data.deliveries;
    expect(failing).toMatchObject({ total: 3, pending: 3, failing: 3, failed: 0, succeeded: 0 });

    // The receiver recovers: the retries succeed and nothing is failing any more.
    receiver.status = 200;
    await advance(DEFAULT_RETRY_SCHEDULE_MS[0]! + 1_000);
    for (const id of ids) await attemptsOf(id, 2);
    expect((await emu.control.getStats()).data.deliveries).toMatchObject({ total: 3, pending: 0, failing: 0, succeeded: 3 });
  });
});

describe('GET /emulator/deliveries', () => {
  it('pages newest first without gaps or repeats, and filters', async () => {
    await registerHook(emu.service, receiver.url);
    const ids: string[] = [];
    for (const kind of ['delivery', 'open', 'click', 'bounce', 'spam', 'delivery', 'open'] as const) {
      ids.push((await emu.control.fireEvent({ event: kind, fields: { ref_id: `R-${kind}` } })).data.delivery_id!);
    }
    await receiver.waitFor(7);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await emu.control.listDeliveries({ limit: 3, cursor })).data;
      expect(page.deliveries.length).toBeLessThanOrEqual(3);
      seen.push(...page.deliveries.map((d) => d.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    expect((await emu.control.listDeliveries({ event: 'open' })).data.deliveries.map((d) => d.id)).toEqual([ids[6], ids[1]]);
    expect((await emu.control.listDeliveries({ ref_id: 'R-bounce' })).data.deliveries.map((d) => d.id)).toEqual([ids[3]]);
    expect((await emu.control.listDeliveries({ category: 'DOMAIN_VERIFICATION' })).data.deliveries).toEqual([]);
  });

  it('answers bad queries with 400', async () => {
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'status=done', 'cursor=zzz', 'colour=red']) {
      const res = await emu.request('GET', `/emulator/deliveries?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.json.success).toBe(false);
    }
    expect((await emu.request('GET', '/emulator/deliveries/nope')).status).toBe(404);
  });
});

describe('the emulator clock', () => {
  it('pauses, jumps ahead and speeds up; never goes back', async () => {
    const paused = (await emu.control.setClock({ speed: 0 })).data;
    expect(paused.speed).toBe(0);
    await settle();
    expect((await emu.control.getClock()).data.now_ms).toBe(paused.now_ms);
    const jumped = (await emu.control.setClock({ advance_ms: 3_600_000 })).data;
    expect(jumped.now_ms).toBe(paused.now_ms + 3_600_000);
    expect(jumped.offset_ms).toBeGreaterThan(3_500_000);
    const fast = (await emu.control.setClock({ speed: 1000 })).data;
    await new Promise((r) => setTimeout(r, 100));
    expect((await emu.control.getClock()).data.now_ms - fast.now_ms).toBeGreaterThan(50_000);

    for (const body of [{}, { advance_ms: -1 }, { speed: -1 }, { speed: 1e9 }, { advance_ms: 1.5 }, { speed: 'fast' }]) {
      const res = await emu.request('POST', '/emulator/clock', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('shows when the next attempt is due', async () => {
    receiver.status = 500;
    await registerHook(emu.service, receiver.url);
    const t0 = await pauseClock();
    expect((await emu.control.getClock()).data.next_due_at).toBeNull();
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    await attemptsOf(id, 1);
    const clock = (await emu.control.getClock()).data;
    expect(clock.next_due_at).toBe(new Date(t0 + 5_000).toISOString());
    expect(clock.pending_deliveries).toBe(1);
  });

  it('keeps emulated time across a restart', async () => {
    await emu.control.setClock({ advance_ms: 24 * 3600 * 1000 });
    await emu.stop();
    const again = await startEmulator({}, {}, emu.dataDir);
    cleanups.push(() => again.stop());
    const offset = (await again.control.getClock()).data.offset_ms;
    expect(offset).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000);
  });
});

describe('GET /emulator/stream', () => {
  it('announces new deliveries and attempts as server-sent events', async () => {
    await registerHook(emu.service, receiver.url);
    const controller = new AbortController();
    const res = await fetch(`${emu.url}/emulator/stream`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    const fired = (await emu.control.fireEvent({ event: 'delivery' })).data;
    let text = '';
    const deadline = Date.now() + 5_000;
    while (!text.includes('event: attempt.completed') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const events = text
      .split('\n\n')
      .filter((block) => block.startsWith('event: '))
      .map((block) => ({ name: block.split('\n')[0]!.slice(7), data: JSON.parse(block.split('\n')[1]!.slice(6)) }));
    expect(events[0]).toMatchObject({ name: 'delivery.created', data: { id: fired.delivery_id, status: 'pending' } });
    const attempt = events.find((e) => e.name === 'attempt.completed')!;
    expect(attempt.data).toMatchObject({ delivery_id: fired.delivery_id, attempt: { number: 1, outcome: 'succeeded' } });
  });

  it('does not hold up shutdown', async () => {
    // A grace longer than the test's time-out: a stop that waited for the open stream fails the test.
    const own = await startEmulator({ shutdownGraceMs: 120_000 });
    cleanups.push(() => own.cleanup());
    const res = await fetch(`${own.url}/emulator/stream`);
    await own.stop();
    await res.body!.cancel().catch(() => {});
  });
});
