import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src-shared/clients';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { whenIndexed } from '../helpers/search';

/** What the web UI needs beyond the API: counts, the dashboard's stats, live messages, a dry-run event. */
describe('UI support endpoints', () => {
  let emu: TestEmulator;
  let receiver: Receiver;
  beforeAll(async () => {
    emu = await startEmulator();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await emu.cleanup();
    await receiver.close();
  });

  const send = (to: string | string[], subject: string, campaign_id?: string) =>
    emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [to].flat().map((email) => ({ email })),
      subject,
      content: [{ type: 'text/plain', value: 'hi' }],
      ...(campaign_id ? { campaign_id } : {}),
    });

  it('announces each new message and each of its events on the live stream', async () => {
    const seen: Array<{ name: string; data: any }> = [];
    const offs = [
      emu.handle.live.on('message.created', (data) => seen.push({ name: 'message.created', data })),
      emu.handle.live.on('message.updated', (data) => seen.push({ name: 'message.updated', data })),
    ];
    const sent = await send(['bounce@sim.mailyard.test', 'delivered@sim.mailyard.test'], 'Live one');
    const refId = sent.ref_id;
    // One announcement per recipient's copy: each its own id, both under the send's ref_id.
    const created = seen.filter((s) => s.name === 'message.created').map((s) => s.data);
    expect(created.map((m) => [m.recipient.email, m.ref_id, m.subject, m.status, m.source]).sort()).toEqual([
      ['bounce@sim.mailyard.test', refId, 'Live one', 'queued', 'api'],
      ['delivered@sim.mailyard.test', refId, 'Live one', 'queued', 'api'],
    ]);
    expect(new Set(created.map((m) => m.id)).size).toBe(2);
    const bounceCopy = created.find((m) => m.recipient.email === 'bounce@sim.mailyard.test')!;
    const deliveredCopy = created.find((m) => m.recipient.email === 'delivered@sim.mailyard.test')!;
    await emu.control.setClock({ advance_ms: 60_000 });
    // Each update names the copy it is about.
    await expect
      .poll(() => seen.find((s) => s.name === 'message.updated' && s.data.event === 'bounce')?.data)
      .toMatchObject({
        message_id: bounceCopy.id,
        ref_id: refId,
        status: 'bounced',
      });
    await expect
      .poll(() => seen.find((s) => s.name === 'message.updated' && s.data.event === 'delivery')?.data)
      .toMatchObject({
        message_id: deliveredCopy.id,
        ref_id: refId,
        status: 'delivered',
      });
    for (const off of offs) off();
  });

  it('streams message.created as server-sent events', async () => {
    const controller = new AbortController();
    const res = await fetch(`${emu.url}/emulator/stream`, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read(); // the "connected" comment
    await send('ann@example.com', 'Streamed');
    let text = '';
    while (!text.includes('event: message.created')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/event: message.created\ndata: \{[^\n]*"subject":"Streamed"/);
    controller.abort();
  });

  it('counts messages with the list filters and reports totals and the last hour of events', async () => {
    await send('bob@example.com', 'Counted A', 'spring');
    await send('bob@example.com', 'Counted B', 'spring');
    expect((await emu.control.countMessages({ campaign_id: 'spring' })).data.count).toBe(2);
    expect((await whenIndexed(() => emu.control.countMessages({ q: 'counted' }))).data.count).toBe(2);
    expect((await whenIndexed(() => emu.control.countMessages({ q: '100%' }))).data.count).toBe(0);
    const [first] = (await whenIndexed(() => emu.control.listMessages({ q: 'counted a' }))).data.messages;
    expect((await emu.control.listMessages({ q: first!.ref_id.toLowerCase() })).data.messages.map((m) => m.ref_id)).toEqual([first!.ref_id]);
    expect((await emu.control.listMessages({ q: first!.id })).data.messages.map((m) => m.id)).toEqual([first!.id]);
    // The two-recipient send of the first test counts one message per copy, and its ref_id finds both.
    const live = (await whenIndexed(() => emu.control.listMessages({ q: 'Live one' }))).data.messages;
    expect(live).toHaveLength(2);
    expect((await emu.control.countMessages({ q: live[0]!.ref_id })).data.count).toBe(2);
    const all = (await emu.control.countMessages()).data.count;
    expect(all).toBe(5);
    const stats = (await emu.control.getStats()).data;
    expect(stats.messages).toBe(5);
    expect(stats.events).toBeGreaterThanOrEqual(1);
    expect(stats.timeline.counts).toHaveLength(60);
    expect(stats.timeline.counts.reduce((a, b) => a + b, 0)).toBe(stats.events);
  });

  it('a dry run builds the payload and says whether the filter would send it, sending nothing', async () => {
    const dry = (await emu.control.fireEvent({ event: 'bounce', recipient: 'x@example.com', dry_run: true })).data;
    expect(dry).toMatchObject({
      sent: false,
      delivery_id: null,
      dry_run: true,
      reason: 'the account has no EMAIL_EVENT webhook; register one to receive events',
    });
    expect(dry.payload).toMatchObject({ event: 'bounce', recipient: { email: 'x@example.com' } });
    await emu.service.registerWebhook({ webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { bounce: true } } });
    expect((await emu.control.fireEvent({ event: 'bounce', recipient: 'x@example.com', dry_run: true })).data).toMatchObject({ sent: true, reason: null });
    expect((await emu.control.fireEvent({ event: 'open', recipient: 'x@example.com', dry_run: true })).data.reason).toBe(
      'the EMAIL_EVENT webhook does not have open enabled in webhook_options.events',
    );
    expect((await emu.control.listDeliveries()).data.deliveries).toHaveLength(0);
    expect(receiver.requests).toHaveLength(0);
  });

  it("counts one account's messages, events and webhook deliveries when asked (Overview follows the header's account), every account's when not", async () => {
    const before = (await emu.control.getStats()).data;
    expect(before.account_id).toBeNull();
    const other = (await emu.control.createAccount({ name: 'Counted apart' })).data;
    const otherService = new ServiceClient({ baseUrl: emu.url, apiKey: other.api_key });
    await otherService.registerWebhook({ webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } });
    for (const to of ['a@example.com', 'b@example.com']) {
      await otherService.sendEmail({
        from: { email: 'app@example.com' },
        to: [{ email: to }],
        subject: 'Apart',
        content: [{ type: 'text/plain', value: 'hi' }],
      });
    }
    await emu.control.setClock({ advance_ms: 60_000 });
    const mine = (await emu.control.getStats({ account_id: other.id })).data;
    expect(mine).toMatchObject({ account_id: other.id, messages: 2, events: 2, deliveries: { total: 2, succeeded: 2, failed: 0, failing: 0 } });
    expect(mine.timeline.counts.reduce((a, b) => a + b, 0)).toBe(2);
    // The default account's figures leave them out; every account's include them.
    const defaultId = (await emu.control.listAccounts()).data.find((a) => a.is_default)!.id;
    const defaults = (await emu.control.getStats({ account_id: defaultId })).data;
    const all = (await emu.control.getStats()).data;
    expect(defaults.messages).toBe(before.messages);
    expect(all.messages).toBe(before.messages + 2);
    expect(all.deliveries.total).toBe(defaults.deliveries.total + 2);
    // An account that does not exist is a 404 naming it, not zeros.
    const unknown = await emu.request('GET', '/emulator/stats?account_id=no-such-account');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toMatch(/account/i);
  });
});
