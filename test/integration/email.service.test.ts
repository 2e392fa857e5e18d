import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMAIL_EVENT_PAYLOADS } from '../../src-shared/schemas/events';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

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

/** Every webhook body received so far, grouped by the recipient it is about. */
function byRecipient(): Map<string, Array<Record<string, unknown>>> {
  const out = new Map<string, Array<Record<string, unknown>>>();
  for (const req of receiver.requests) {
    const payload = JSON.parse(req.body) as Record<string, unknown>;
    const email = (payload.recipient as { email: string }).email;
    const list = out.get(email) ?? [];
    list.push(payload);
    out.set(email, list);
  }
  // Deliveries to one receiver run side by side, so they may arrive out of order: order them by when they happened.
  for (const list of out.values()) list.sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp)));
  return out;
}

/** Sends, then lets the simulation run its course on the emulator clock; the send's ref_id and the webhook bodies per recipient. */
async function sendAndSettle(body: unknown, expectedRequests: number) {
  const res = await emu.request('POST', '/v1/email/send', { body });
  expect(res.status, res.text).toBe(200);
  await emu.control.setClock({ advance_ms: 60_000 });
  if (expectedRequests > 0) await receiver.waitFor(expectedRequests);
  await new Promise((r) => setTimeout(r, 150));
  return { refId: res.json.ref_id as string, events: byRecipient() };
}

/** The log entries of one send, by recipient address. */
async function logsOf(refId: string) {
  const page = await emu.service.getEmailLogs({ refId, pageSize: 50 });
  return new Map(page.emailLogs.map((l) => [l.recipientAddress, l]));
}

describe('POST /v1/email/send', () => {
  it('answers one ref_id for the request, and logs one entry per recipient under it', async () => {
    const res = await emu.request('POST', '/v1/email/send', {
      body: message(['a@example.com'], { cc: [{ email: 'b@example.com' }], bcc: [{ email: 'c@example.com' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, ref_id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/) });
    const logs = (await emu.service.getEmailLogs()).emailLogs;
    expect(logs.map((l) => [l.recipientAddress, l.recipientType, l.refId, l.status])).toEqual([
      ['c@example.com', 'bcc', res.json.ref_id, 'queued'],
      ['b@example.com', 'cc', res.json.ref_id, 'queued'],
      ['a@example.com', 'to', res.json.ref_id, 'queued'],
    ]);
    // Each recipient's copy stays reachable from the control API, found by the send's ref_id.
    const copies = (await emu.control.listMessages({ q: res.json.ref_id })).data.messages;
    expect(copies.map((m) => [m.recipient.email, m.ref_id])).toEqual([
      ['c@example.com', res.json.ref_id],
      ['b@example.com', res.json.ref_id],
      ['a@example.com', res.json.ref_id],
    ]);
    expect(new Set(copies.map((m) => m.id)).size).toBe(3);
    expect((await emu.request('GET', `/emulator/messages/${copies[0]!.id}/raw`)).text).toContain('Subject: Your receipt');
  });

  it.each([
    ['a bad sender address', { from: { email: 'not-an-address' } }, 'from.email must be an email address'],
    ['no recipient', { to: [] }, 'to must list at least one recipient'],
    ['no content', { content: [] }, 'content must have a text/html or text/plain part'],
    ['an unknown content type', { content: [{ type: 'text/markdown', value: '#' }] }, 'content.0.type must be text/html or text/plain'],
    ['an attachment that is not base64', { attachments: [{ filename: 'a.txt', content: 'not base64!' }] }, 'attachments.0.content must be base64'],
    ['a reserved header', { headers: { Subject: 'x' } }, 'headers.Subject may not be set: use the field of the send payload instead'],
    ['a missing subject', { subject: undefined }, 'subject is required (unless template_id names a template)'],
    ['a bare-boolean switch', { settings: { open_tracking: true } }, 'settings.open_tracking must be an object {"enable": true}, not a bare boolean'],
    ['a switch whose enable is not true or false', { settings: { click_tracking: { enable: 'yes' } } }, 'settings.click_tracking.enable must be true or false'],
    ['a priority that is not a whole number', { priority: 'high' }, 'priority must be a whole number'],
    ['an unknown template', { template_id: 'template_01JC3BBW8S9YGX2VNKG5MD7BTA' }, 'template_id names no template of this account'],
    ['a mailer_id of no kind Mailyard knows', { mailer_id: 'nope' }, 'mailer_id names no domain or SMTP configuration of this account'],
  ])('refuses %s with 400', async (_name, overrides, msg) => {
    const res = await emu.request('POST', '/v1/email/send', { body: { ...message(['a@example.com']), ...overrides } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(msg);
    expect((await emu.service.getEmailLogs()).emailLogs).toEqual([]);
  });

  it('sends despite an unknown field and an unknown setting, and names them in X-Mailyard-Ignored (--strict-requests refuses them)', async () => {
    const res = await emu.request('POST', '/v1/email/send', {
      body: { ...message(['a@example.com']), template: 'x', settings: { open_tracking: { enable: true }, magic: true } },
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-mailyard-ignored']).toBe('settings.magic, template');
    expect((await emu.service.getEmailLogs({ refId: res.json.ref_id })).totalCount).toBe(1);
  });

  it('takes 1,000 recipients and refuses 1,001', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `r${i}@example.com` }));
    const over = await emu.request('POST', '/v1/email/send', { body: { ...message([]), to: many(600), cc: many(300), bcc: many(101) } });
    expect(over.status).toBe(400);
    expect(over.json.error).toBe('to must have at most 1000 recipients together with cc and bcc (got 1001)');
    const ok = await emu.request('POST', '/v1/email/send', { body: { ...message([]), to: many(1000) } });
    expect(ok.status).toBe(200);
    expect((await emu.service.getEmailLogs({ refId: ok.json.ref_id })).totalCount).toBe(1000);
  });
});

describe('the simulation', () => {
  const expected: Array<[string, string[]]> = [
    ['delivered', ['delivery']],
    ['bounce', ['bounce']],
    ['hard-bounce', ['bounce']],
    // A soft bounce is retried: the first refusal a minute after the send, the rest later (soft-bounce.test.ts).
    ['soft-bounce', ['bounce']],
    ['soft-bounce-gives-up', ['bounce']],
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
    const { refId, events } = await sendAndSettle(message(addresses), total);
    for (const [local, kinds] of expected) {
      const got = events.get(`${local}+t1@${SIM}`) ?? [];
      expect(
        got.map((p) => p.event),
        local,
      ).toEqual(kinds);
      for (const p of got) {
        const parsed = EMAIL_EVENT_PAYLOADS[p.event as keyof typeof EMAIL_EVENT_PAYLOADS].parse(p) as Record<string, unknown>;
        // Every event about any recipient of the send carries the send's one ref_id.
        expect(parsed).toMatchObject({ ref_id: refId, campaign_id: 'spring', custom_args: { order: '42' } });
      }
    }
    expect(events.get(`delivered+t1@${SIM}`)![0]).toMatchObject({
      recipient: { email: `delivered+t1@${SIM}`, name: 'Name of delivered+t1' },
      sender: { email: 'app@example.com', name: 'Example App' },
      subject: 'Your receipt',
      mailer_id: '',
    });
    expect(events.get(`bounce+t1@${SIM}`)![0]).toMatchObject({ bounce_type: 'hard', bounce_category: 'invalid_recipient' });
    expect(events.get(`bounce+t1@${SIM}`)![0]!.bounce_reason).toMatch(/^550 5\.1\.1 /);
    expect(events.get(`soft-bounce+t1@${SIM}`)![0]).toMatchObject({ bounce_type: 'soft', bounce_category: 'mailbox_full' });
    expect(events.get(`soft-bounce+t1@${SIM}`)![0]!.bounce_reason).toMatch(/^452 4\.2\.2 /);

    // The log follows, under the real service's statuses: delivery time, failure reasons, and each event's times.
    const logs = await logsOf(refId);
    const log = (local: string) => logs.get(`${local}+t1@${SIM}`)!;
    expect(log('delivered')).toMatchObject({ status: 'delivered', failedReason: '', opened: false, clicked: false });
    expect(log('delivered').deliveredDate).toBe(log('delivered').track.delivery![0]);
    expect(log('bounce').status).toBe('bounced');
    expect(log('bounce').deliveredDate).toBe('');
    expect(log('soft-bounce').status).toBe('bounced');
    expect(log('spam').status).toBe('spam');
    expect(log('open')).toMatchObject({ status: 'opened', opened: true, clicked: false });
    expect(log('click')).toMatchObject({ status: 'clicked', opened: true, clicked: true });
    expect(Object.keys(log('click').track)).toEqual(['delivery', 'open', 'click']);
    expect(log('unsubscribe').status).toBe('unsubscribed');
    for (const local of ['policy-rejection', 'generation-failure', 'generation-rejection', 'smtp-error', 'phishing']) {
      expect(log(local).status, local).toBe('failed');
    }
    expect(log('policy-rejection').failedReason).toMatch(/^policy rejection: /);
    expect(log('smtp-error').failedReason).toBe('smtp error: 550 5.7.1 Message rejected by the receiving server');
  });

  it('times events on the emulator clock: delivery about a second after queueing, engagement seconds later', async () => {
    const res = await emu.request('POST', '/v1/email/send', { body: message([`click@${SIM}`]) });
    const ref = res.json.ref_id;
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
    const log = (await emu.service.getEmailLogs({ refId: ref })).emailLogs[0]!;
    const t = Object.values(log.track).map(([at]) => Date.parse(at!) - Date.parse(log.createdAt));
    expect(t).toEqual([1_000, 5_000, 8_000]);
    expect(log.updatedAt).toBe(log.track.click![0]);
  });

  it('lets rules override the simulator addresses, and suppression override rules', async () => {
    await emu.control.setRules({
      rules: [
        {
          pattern: `*@${SIM}`,
          events: [{ event: 'bounce', delay_ms: 2_000, fields: { bounce_type: 'soft', bounce_category: 'mailbox_full', bounce_reason: '452 4.2.2 full' } }],
        },
      ],
    });
    await emu.service.unsubscribeEmail({ email: `Click@${SIM}` });
    const { refId, events } = await sendAndSettle(message([`delivered@${SIM}`, `click@${SIM}`]), 1);
    expect(events.get(`delivered@${SIM}`)!.map((p) => [p.event, p.bounce_reason])).toEqual([['bounce', '452 4.2.2 full']]);
    expect(events.get(`click@${SIM}`)).toBeUndefined();
    const suppressed = (await logsOf(refId)).get(`click@${SIM}`)!;
    expect(suppressed).toMatchObject({ status: 'failed', failedReason: 'recipient is on the suppression list (unsubscribed)', track: {} });
    // failedReason is an exact-match filter.
    const byReason = await emu.service.getEmailLogs({ failedReason: 'recipient is on the suppression list (unsubscribed)' });
    expect(byReason.emailLogs.map((l) => l.recipientAddress)).toEqual([`click@${SIM}`]);
  });

  it('refuses rules whose fields would break the payload, naming them', async () => {
    const res = await emu.request('PUT', '/emulator/rules', {
      body: { rules: [{ pattern: '*', events: [{ event: 'bounce', delay_ms: 0, fields: { bounce_type: 'maybe' } }] }] },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.fields)[0]).toBe('rules.0.events.0.fields.bounce_type');
    expect((await emu.control.getRules()).data.rules).toEqual([]);
  });

  it('suppresses an address after an unsubscribe event, and subscribe lifts it', async () => {
    await sendAndSettle(message([`unsubscribe@${SIM}`]), 2);
    const again = await sendAndSettle(message([`unsubscribe@${SIM}`]), 2);
    expect(receiver.requests.filter((r) => JSON.parse(r.body).ref_id === again.refId)).toEqual([]);
    await emu.service.subscribeEmail({ email: `unsubscribe@${SIM}` });
    const third = await sendAndSettle(message([`unsubscribe@${SIM}`]), 4);
    expect(
      third.events
        .get(`unsubscribe@${SIM}`)!
        .filter((p) => p.ref_id === third.refId)
        .map((p) => p.event),
    ).toEqual(['delivery', 'unsubscribe']);
  });

  it('fires a synthetic event for a stored message with its facts, and logs it', async () => {
    const { refId } = await sendAndSettle(message(['ann@example.com', 'bob@example.com']), 2);
    const fired = (await emu.control.fireEvent({ event: 'click', ref_id: refId, recipient: 'bob@example.com', fields: { url: 'https://example.com/pricing' } }))
      .data;
    expect(fired.payload).toMatchObject({
      event: 'click',
      ref_id: refId,
      recipient: { email: 'bob@example.com' },
      campaign_id: 'spring',
      custom_args: { order: '42' },
      url: 'https://example.com/pricing',
    });
    await receiver.waitFor(3);
    const logs = await logsOf(refId);
    expect(Object.keys(logs.get('bob@example.com')!.track)).toEqual(['delivery', 'click']);
    expect(Object.keys(logs.get('ann@example.com')!.track)).toEqual(['delivery']);
  });

  it('keeps what was fired at a copy still queued when its delivery lands after: a hard bounce and an open stay, a soft bounce gives way', async () => {
    const res = await emu.request('POST', '/v1/email/send', { body: message(['hard@example.com', 'soft@example.com', 'open@example.com']) });
    const refId = res.json.ref_id as string;
    // The clock stands still: each copy is queued, its delivery a second away.
    await emu.control.fireEvent({ event: 'bounce', ref_id: refId, recipient: 'hard@example.com', fields: { bounce_type: 'hard' } });
    await emu.control.fireEvent({ event: 'bounce', ref_id: refId, recipient: 'soft@example.com', fields: { bounce_type: 'soft' } });
    await emu.control.fireEvent({ event: 'open', ref_id: refId, recipient: 'open@example.com' });
    await emu.control.setClock({ advance_ms: 60_000 });
    await receiver.waitFor(6);
    const logs = await logsOf(refId);
    expect(logs.get('hard@example.com')).toMatchObject({ status: 'bounced', failedReason: expect.stringMatching(/^5/) });
    expect(Object.keys(logs.get('hard@example.com')!.track).sort()).toEqual(['bounce', 'delivery']);
    expect(logs.get('soft@example.com')).toMatchObject({ status: 'delivered' });
    expect(logs.get('open@example.com')).toMatchObject({ status: 'opened' });
  });
});

describe('GET /v1/email/logs', () => {
  it('filters by every option of the contract, each an exact match', async () => {
    await emu.service.sendEmail(message(['Ann@Example.com', 'bob@other.test'], { subject: '100% off: spring sale', campaign_id: 'spring' }) as never);
    await emu.service.sendEmail({
      ...message(['carl@example.com'], { subject: 'Receipt', campaign_id: 'receipts' }),
      from: { email: 'Billing@Example.com' },
      cc: [{ email: 'dora@example.com' }],
    } as never);
    await emu.control.setClock({ advance_ms: 2_000 });
    await new Promise((r) => setTimeout(r, 200));
    const emails = async (query: Record<string, unknown>) => (await emu.service.getEmailLogs(query as never)).emailLogs.map((l) => l.recipientAddress).sort();
    expect(await emails({ email: 'ann@EXAMPLE.com' })).toEqual(['Ann@Example.com']);
    expect(await emails({ recipientDomain: 'example.com' })).toEqual(['Ann@Example.com', 'carl@example.com', 'dora@example.com']);
    expect(await emails({ subject: '100% off: spring sale' })).toEqual(['Ann@Example.com', 'bob@other.test']);
    expect(await emails({ subject: '100% OFF' })).toEqual([]);
    expect(await emails({ subject: '0%' })).toEqual([]);
    expect(await emails({ fromAddress: 'billing@example.com' })).toEqual(['carl@example.com', 'dora@example.com']);
    expect(await emails({ campaignId: 'receipts', status: 'delivered' })).toEqual(['carl@example.com', 'dora@example.com']);
    expect(await emails({ recipientType: 'cc' })).toEqual(['dora@example.com']);
    expect(await emails({ status: 'queued' })).toEqual([]);
    const now = (await emu.control.getClock()).data.now_ms;
    expect(await emails({ startCreatedAt: new Date(now + 1).toISOString() })).toEqual([]);
    expect((await emails({ endCreatedAt: new Date(now + 1).toISOString() })).length).toBe(4);
    expect((await emails({ startDeliveredDate: new Date(now - 5_000).toISOString(), endDeliveredDate: new Date(now + 1).toISOString() })).length).toBe(4);
    const page = await emu.service.getEmailLogs({ campaignId: 'receipts' });
    expect(page.totalCount).toBe(2);
    expect(page.nextPageToken).toBe('');
    const refId = page.emailLogs[0]!.refId;
    expect((await emu.service.getEmailLogs({ refId })).emailLogs.map((l) => l.refId)).toEqual([refId, refId]);
  });

  it('answers every documented field of an entry under its documented name and type', async () => {
    const sent = await emu.service.sendEmail({ ...message([`open@${SIM}`]), priority: 3 } as never);
    await emu.control.setClock({ advance_ms: 60_000 });
    await receiver.waitFor(2);
    const page = await emu.request('GET', `/v1/email/logs?refId=${sent.ref_id}`);
    expect(page.status).toBe(200);
    expect(Object.keys(page.json).sort()).toEqual(['emailLogs', 'nextPageToken', 'success', 'totalCount']);
    const entry = page.json.emailLogs[0];
    expect(Object.keys(entry).sort()).toEqual(
      [
        'accountId',
        'campaignId',
        'clicked',
        'createdAt',
        'deliveredDate',
        'failedReason',
        'fromAddress',
        'opened',
        'priority',
        'recipientAddress',
        'recipientDomain',
        'recipientType',
        'refId',
        'status',
        'subject',
        'tenantId',
        'track',
        'updatedAt',
      ].sort(),
    );
    expect(entry).toMatchObject({
      refId: sent.ref_id,
      recipientAddress: `open@${SIM}`,
      recipientDomain: SIM,
      recipientType: 'to',
      fromAddress: 'app@example.com',
      subject: 'Your receipt',
      status: 'opened',
      campaignId: 'spring',
      failedReason: '',
      opened: true,
      clicked: false,
      priority: '3',
      tenantId: 0,
    });
    expect(entry.accountId).toBeGreaterThan(0);
    expect(entry.track).toEqual({ delivery: [expect.any(String)], open: [expect.any(String)] });
  });

  it('answers the last 7 days of the emulator clock by default, and refuses a longer window', async () => {
    await emu.service.sendEmail(message(['old@example.com']) as never);
    await emu.control.setClock({ advance_ms: 8 * 24 * 3600 * 1000 });
    await emu.service.sendEmail(message(['new@example.com']) as never);
    const recent = await emu.service.getEmailLogs();
    expect(recent.emailLogs.map((l) => l.recipientAddress)).toEqual(['new@example.com']);
    const now = (await emu.control.getClock()).data.now_ms;
    const iso = (ms: number) => new Date(ms).toISOString();
    const older = await emu.service.getEmailLogs({ startCreatedAt: iso(now - 9 * 24 * 3600 * 1000), endCreatedAt: iso(now - 2 * 24 * 3600 * 1000) });
    expect(older.emailLogs.map((l) => l.recipientAddress)).toEqual(['old@example.com']);
    const tooLong = await emu.request('GET', `/v1/email/logs?startCreatedAt=${iso(now - 8 * 24 * 3600 * 1000)}&endCreatedAt=${iso(now)}`);
    expect([tooLong.status, tooLong.json.error]).toEqual([400, 'date range cannot exceed 7 days']);
  });

  it('pages through 10,000 entries newest first by nextPageToken, without gaps or repeats', { timeout: 120_000 }, async () => {
    const refs: string[] = [];
    for (let s = 0; s < 10; s++) {
      const res = await emu.service.sendEmail({ ...message([]), to: Array.from({ length: 1000 }, (_, i) => ({ email: `u${s}-${i}@example.com` })) } as never);
      refs.push(res.ref_id);
    }
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await emu.service.getEmailLogs({ pageSize: 50, ...(pageToken ? { pageToken } : {}) });
      expect(page.totalCount).toBe(10_000);
      seen.push(...page.emailLogs.map((l) => `${l.refId} ${l.recipientAddress}`));
      pageToken = page.nextPageToken;
      pages++;
    } while (pageToken !== '');
    expect(pages).toBe(200);
    expect(new Set(seen).size).toBe(10_000);
    const expectedOrder = refs.flatMap((ref, s) => Array.from({ length: 1000 }, (_, i) => `${ref} u${s}-${i}@example.com`)).reverse();
    expect(seen).toEqual(expectedOrder);
  });

  it('pages 20 entries by default', async () => {
    await emu.service.sendEmail({ ...message([]), to: Array.from({ length: 25 }, (_, i) => ({ email: `p${i}@example.com` })) } as never);
    const first = await emu.service.getEmailLogs();
    expect([first.emailLogs.length, first.totalCount]).toEqual([20, 25]);
    const second = await emu.service.getEmailLogs({ pageToken: first.nextPageToken });
    expect([second.emailLogs.length, second.nextPageToken]).toEqual([5, '']);
  });

  it.each([
    'pageSize=0',
    'pageSize=51',
    'pageSize=ten',
    'pageToken=nope',
    'startCreatedAt=yesterday',
    'endDeliveredDate=2026-13-45',
    'status=deferred',
    'recipientType=reply',
  ])('answers %s with 400', async (q) => {
    const res = await emu.request('GET', `/v1/email/logs?${q}`);
    expect(res.status).toBe(400);
    expect(res.json.success).toBe(false);
    expect(typeof res.json.error).toBe('string');
  });

  it('answers an unknown parameter (colour=red) as if it were absent, and names it', async () => {
    const res = await emu.request('GET', '/v1/email/logs?colour=red');
    expect(res.status).toBe(200);
    expect(res.headers['x-mailyard-ignored']).toBe('colour');
  });

  it('shows an account only its own messages', async () => {
    await emu.service.sendEmail(message(['ann@example.com']) as never);
    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    const res = await emu.request('GET', '/v1/email/logs', { apiKey: other.api_key });
    expect([res.json.emailLogs, res.json.totalCount]).toEqual([[], 0]);
  });
});
