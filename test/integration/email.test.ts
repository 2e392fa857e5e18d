import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMAIL_EVENT_PAYLOADS } from '../../src-shared/schemas/events';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { startReceiver, type Receiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
  emu = await startEmulator();
  await emu.registerEmailWebhook(receiver.url);
  await emu.control.setClock({ speed: 0 });
});
afterEach(async () => {
  await emu.cleanup();
  await receiver.close();
});

const SIM = 'sim.mailyard.test';

function message(to: string[], extra: Record<string, unknown> = {}) {
  return {
    from: { email: 'app@example.com', name: 'Example App' },
    to: to.map((email) => ({ email, name: `Name of ${email.split('@')[0]}` })),
    subject: 'Your receipt',
    content: [
      { type: 'text/html', value: '<p>Thanks!</p>' },
      { type: 'text/plain', value: 'Thanks!' },
    ],
    campaign_id: 'spring',
    custom_args: { order: '42' },
    ...extra,
  };
}

/** Sends, then lets the simulation run its course on the emulator clock, and collects the webhook bodies per ref_id. */
async function sendAndSettle(body: unknown, expectedRequests: number) {
  const res = await emu.request('POST', '/v1/email/send', { body });
  expect(res.status, res.text).toBe(200);
  await emu.control.setClock({ advance_ms: 60_000 });
  if (expectedRequests > 0) await receiver.waitFor(expectedRequests);
  await new Promise((r) => setTimeout(r, 150));
  const byRef = new Map<string, Array<Record<string, unknown>>>();
  for (const req of receiver.requests) {
    const payload = JSON.parse(req.body) as Record<string, unknown>;
    const list = byRef.get(payload.ref_id as string) ?? [];
    list.push(payload);
    byRef.set(payload.ref_id as string, list);
  }
  return { messages: res.json.data.messages as Array<{ email: string; recipient_type: string; ref_id: string }>, byRef };
}

describe('POST /v1/email/send', () => {
  it('makes one message per recipient with its own ref_id, answering as the contract says', async () => {
    const res = await emu.request('POST', '/v1/email/send', {
      body: message(['a@example.com'], { cc: [{ email: 'b@example.com' }], bcc: [{ email: 'c@example.com' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe('Email queued');
    const msgs = res.json.data.messages;
    expect(msgs.map((m: { email: string; recipient_type: string }) => [m.email, m.recipient_type])).toEqual([
      ['a@example.com', 'to'],
      ['b@example.com', 'cc'],
      ['c@example.com', 'bcc'],
    ]);
    for (const m of msgs) expect(m.ref_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(msgs.map((m: { ref_id: string }) => m.ref_id)).size).toBe(3);
    const logs = (await emu.service.getEmailLogs()).data.logs;
    expect(logs.map((l) => l.status)).toEqual(['queued', 'queued', 'queued']);
  });

  it.each([
    ['a bad sender address', { from: { email: 'not-an-address' } }, 'from.email must be an email address'],
    ['no recipient', { to: [] }, 'to must list at least one recipient'],
    ['no content', { content: [] }, 'content must have a text/html or text/plain part'],
    ['an unknown content type', { content: [{ type: 'text/markdown', value: '#' }] }, 'content.0.type must be text/html or text/plain'],
    ['an attachment that is not base64', { attachments: [{ filename: 'a.txt', content: 'not base64!' }] }, 'attachments.0.content must be base64'],
    ['a reserved header', { headers: { Subject: 'x' } }, 'headers.Subject may not be set: use the field of the send payload instead'],
    ['a missing subject', { subject: undefined }, 'subject is required'],
    ['an unknown field', { template: 'x' }, 'template is not a known field'],
    ['an unknown setting', { settings: { open_tracking: true, magic: true } }, 'settings.magic is not a known field'],
  ])('refuses %s with 400', async (_name, overrides, msg) => {
    const res = await emu.request('POST', '/v1/email/send', { body: { ...message(['a@example.com']), ...overrides } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(msg);
    expect((await emu.service.getEmailLogs()).data.logs).toEqual([]);
  });

  it('takes 1,000 recipients and refuses 1,001', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `r${i}@example.com` }));
    const over = await emu.request('POST', '/v1/email/send', { body: { ...message([]), to: many(600), cc: many(300), bcc: many(101) } });
    expect(over.status).toBe(400);
    expect(over.json.error).toBe('to must have at most 1000 recipients together with cc and bcc (got 1001)');
    const ok = await emu.request('POST', '/v1/email/send', { body: { ...message([]), to: many(1000) } });
    expect(ok.status).toBe(200);
    expect(ok.json.data.messages).toHaveLength(1000);
  });
});

describe('the simulation', () => {
  const expected: Array<[string, string[]]> = [
    ['delivered', ['delivery']],
    ['bounce', ['bounce']],
    ['hard-bounce', ['bounce']],
    ['soft-bounce', ['bounce']],
    ['spam', ['delivery', 'spam']],
    ['complaint', ['delivery', 'spam']],
    ['open', ['delivery', 'open']],
    ['click', ['delivery', 'open', 'click']],
    ['unsubscribe', ['delivery', 'unsubscribe']],
    ['policy-rejection', ['policy_rejection']],
    ['generation-failure', ['generation_failure']],
    ['generation-rejection', ['generation_rejection']],
    ['smtp-error', ['smtp_error']],
    ['phishing', ['phishing']],
  ];

  it('gives each simulator address its documented events, in order, with payloads that match their schemas', async () => {
    const addresses = expected.map(([local]) => `${local}+t1@${SIM}`);
    const total = expected.reduce((n, [, events]) => n + events.length, 0);
    const { messages, byRef } = await sendAndSettle(message(addresses), total);
    for (const [i, [local, events]] of expected.entries()) {
      const m = messages[i]!;
      const got = byRef.get(m.ref_id) ?? [];
      expect(got.map((p) => p.event), local).toEqual(events);
      for (const p of got) {
        const parsed = EMAIL_EVENT_PAYLOADS[p.event as keyof typeof EMAIL_EVENT_PAYLOADS].parse(p) as Record<string, unknown>;
        expect(parsed).toMatchObject({ ref_id: m.ref_id, campaign_id: 'spring', custom_args: { order: '42' } });
      }
    }
    const delivery = byRef.get(messages[0]!.ref_id)![0]!;
    expect(delivery).toMatchObject({
      recipient: { email: `delivered+t1@${SIM}`, name: 'Name of delivered+t1' },
      sender: { email: 'app@example.com', name: 'Example App' },
      subject: 'Your receipt',
      mailer_id: '',
    });
    expect(byRef.get(messages[1]!.ref_id)![0]).toMatchObject({ bounce_type: 'hard', bounce_category: 'invalid_recipient' });
    expect(byRef.get(messages[1]!.ref_id)![0]!.bounce_reason).toMatch(/^550 5\.1\.1 /);
    expect(byRef.get(messages[3]!.ref_id)![0]).toMatchObject({ bounce_type: 'soft', bounce_category: 'mailbox_full' });
    expect(byRef.get(messages[3]!.ref_id)![0]!.bounce_reason).toMatch(/^452 4\.2\.2 /);

    // The log follows: statuses, delivery time, and the events in order.
    const logs = new Map((await emu.service.getEmailLogs({ pageSize: 100 })).data.logs.map((l) => [l.ref_id, l]));
    expect(logs.get(messages[0]!.ref_id)).toMatchObject({ status: 'delivered' });
    expect(logs.get(messages[0]!.ref_id)!.delivered_at).not.toBeNull();
    expect(logs.get(messages[1]!.ref_id)!.status).toBe('bounced');
    expect(logs.get(messages[3]!.ref_id)!.status).toBe('deferred');
    expect(logs.get(messages[9]!.ref_id)!.status).toBe('rejected');
    expect(logs.get(messages[10]!.ref_id)!.status).toBe('failed');
    expect(logs.get(messages[7]!.ref_id)!.events.map((e) => e.event)).toEqual(['delivery', 'open', 'click']);
  });

  it('times events on the emulator clock: delivery about a second after queueing, engagement seconds later', async () => {
    const res = await emu.request('POST', '/v1/email/send', { body: message([`click@${SIM}`]) });
    const ref = res.json.data.messages[0].ref_id;
    const clock = (await emu.control.getClock()).data;
    expect(clock.next_event_at).toBe(new Date(clock.now_ms + 1_000).toISOString());
    await emu.control.setClock({ advance_ms: 999 });
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.requests).toHaveLength(0);
    await emu.control.setClock({ advance_ms: 1 });
    await receiver.waitFor(1);
    await emu.control.setClock({ advance_ms: 4_000 });
    await receiver.waitFor(2);
    await emu.control.setClock({ advance_ms: 3_000 });
    await receiver.waitFor(3);
    const log = (await emu.service.getEmailLogs({ refId: ref })).data.logs[0]!;
    const t = log.events.map((e) => Date.parse(e.timestamp) - Date.parse(log.created_at));
    expect(t).toEqual([1_000, 5_000, 8_000]);
  });

  it('lets rules override the simulator addresses, and suppression override rules', async () => {
    await emu.control.setRules({
      rules: [{ pattern: `*@${SIM}`, events: [{ event: 'bounce', delay_ms: 2_000, fields: { bounce_type: 'soft', bounce_category: 'mailbox_full', bounce_reason: '452 4.2.2 full' } }] }],
    });
    await emu.service.unsubscribeEmail(`Click@${SIM}`);
    const { messages, byRef } = await sendAndSettle(message([`delivered@${SIM}`, `click@${SIM}`]), 1);
    expect(byRef.get(messages[0]!.ref_id)!.map((p) => [p.event, p.bounce_reason])).toEqual([['bounce', '452 4.2.2 full']]);
    expect(byRef.get(messages[1]!.ref_id)).toBeUndefined();
    const logs = new Map((await emu.service.getEmailLogs()).data.logs.map((l) => [l.ref_id, l]));
    expect(logs.get(messages[1]!.ref_id)!.status).toBe('suppressed');
    expect(logs.get(messages[1]!.ref_id)!.events).toEqual([]);
  });

  it('refuses rules whose fields would break the payload, naming them', async () => {
    const res = await emu.request('PUT', '/emulator/rules', {
      body: { rules: [{ pattern: '*', events: [{ event: 'bounce', delay_ms: 0, fields: { bounce_type: 'maybe' } }] }] },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.details.fields)[0]).toBe('rules.0.events.0.fields.bounce_type');
    expect((await emu.control.getRules()).data.rules).toEqual([]);
  });

  it('suppresses an address after an unsubscribe event, and subscribe lifts it', async () => {
    await sendAndSettle(message([`unsubscribe@${SIM}`]), 2);
    const again = await sendAndSettle(message([`unsubscribe@${SIM}`]), 2);
    expect(again.byRef.get(again.messages[0]!.ref_id)).toBeUndefined();
    await emu.service.subscribeEmail(`unsubscribe@${SIM}`);
    const third = await sendAndSettle(message([`unsubscribe@${SIM}`]), 4);
    expect(third.byRef.get(third.messages[0]!.ref_id)!.map((p) => p.event)).toEqual(['delivery', 'unsubscribe']);
  });

  it('fires a synthetic event for a stored message with its facts, and logs it', async () => {
    const { messages } = await sendAndSettle(message(['ann@example.com']), 1);
    const ref = messages[0]!.ref_id;
    const fired = (await emu.control.fireEvent({ event: 'click', ref_id: ref, fields: { url: 'https://example.com/pricing' } })).data;
    expect(fired.payload).toMatchObject({ event: 'click', ref_id: ref, recipient: { email: 'ann@example.com' }, campaign_id: 'spring', custom_args: { order: '42' }, url: 'https://example.com/pricing' });
    await receiver.waitFor(2);
    const log = (await emu.service.getEmailLogs({ refId: ref })).data.logs[0]!;
    expect(log.events.map((e) => e.event)).toEqual(['delivery', 'click']);
  });
});

describe('GET /v1/email/logs', () => {
  it('filters by every option of the contract', async () => {
    await emu.service.sendEmail(message(['Ann@Example.com', 'bob@other.test'], { subject: '100% off: spring sale', campaign_id: 'spring' }) as never);
    await emu.service.sendEmail({ ...message(['carl@example.com'], { subject: 'Receipt', campaign_id: 'receipts' }), cc: [{ email: 'dora@example.com' }] } as never);
    await emu.control.setClock({ advance_ms: 2_000 });
    await new Promise((r) => setTimeout(r, 200));
    const emails = async (query: Record<string, unknown>) => (await emu.service.getEmailLogs(query as never)).data.logs.map((l) => l.recipient.email).sort();
    expect(await emails({ email: 'ann@EXAMPLE.com' })).toEqual(['Ann@Example.com']);
    expect(await emails({ recipientDomain: 'example.com' })).toEqual(['Ann@Example.com', 'carl@example.com', 'dora@example.com']);
    expect(await emails({ subject: '100% OFF' })).toEqual(['Ann@Example.com', 'bob@other.test']);
    expect(await emails({ subject: '0%' })).toEqual(['Ann@Example.com', 'bob@other.test']);
    expect(await emails({ subject: '_' })).toEqual([]);
    expect(await emails({ campaignId: 'receipts', status: 'delivered' })).toEqual(['carl@example.com', 'dora@example.com']);
    expect(await emails({ recipientType: 'cc' })).toEqual(['dora@example.com']);
    expect(await emails({ status: 'queued' })).toEqual([]);
    const now = (await emu.control.getClock()).data.now_ms;
    expect(await emails({ startCreatedAt: new Date(now + 1).toISOString() })).toEqual([]);
    expect((await emails({ endCreatedAt: new Date(now + 1).toISOString() })).length).toBe(4);
    expect((await emails({ startDeliveredDate: new Date(now - 5_000).toISOString(), endDeliveredDate: new Date(now + 1).toISOString() })).length).toBe(4);
    const refId = (await emu.service.getEmailLogs()).data.logs[0]!.ref_id;
    expect((await emu.service.getEmailLogs({ refId })).data.logs.map((l) => l.ref_id)).toEqual([refId]);
  });

  it('pages through 10,000 messages newest first without gaps or repeats', { timeout: 60_000 }, async () => {
    const refs: string[] = [];
    for (let s = 0; s < 10; s++) {
      const res = await emu.service.sendEmail({ ...message([]), to: Array.from({ length: 1000 }, (_, i) => ({ email: `u${s}-${i}@example.com` })) } as never);
      refs.push(...res.data.messages.map((m) => m.ref_id));
    }
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = (await emu.service.getEmailLogs({ pageSize: 1000, pageToken })).data;
      seen.push(...page.logs.map((l) => l.ref_id));
      pageToken = page.nextPageToken ?? undefined;
    } while (pageToken);
    expect(seen).toHaveLength(10_000);
    expect(seen).toEqual([...refs].reverse());
  });

  it.each(['pageSize=0', 'pageSize=1001', 'pageSize=ten', 'pageToken=nope', 'startCreatedAt=yesterday', 'endDeliveredDate=2026-13-45', 'status=sent', 'recipientType=reply', 'colour=red'])(
    'answers %s with 400',
    async (q) => {
      const res = await emu.request('GET', `/v1/email/logs?${q}`);
      expect(res.status).toBe(400);
      expect(res.json.success).toBe(false);
    },
  );

  it('shows an account only its own messages', async () => {
    await emu.service.sendEmail(message(['ann@example.com']) as never);
    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    const res = await emu.request('GET', '/v1/email/logs', { apiKey: other.api_key });
    expect(res.json.data.logs).toEqual([]);
  });
});
