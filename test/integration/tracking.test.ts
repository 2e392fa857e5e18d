import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMAIL_EVENT_PAYLOADS } from '../../src-shared/schemas/events';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
  emu = await startEmulator({ geoDefault: 'Iceland,Reykjavik' });
  await emu.service.registerWebhook({
    webhook_url: receiver.url,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: { open: true, click: true, unsubscribe: true } },
  });
  await emu.control.setClock({ speed: 0 });
});
afterEach(async () => {
  await emu.cleanup();
  await receiver.close();
});

const HTML =
  '<html><body><p>Hi <a href="https://example.com/pricing?a=1&amp;b=2">See <b>pricing</b></a> or <a href=\'https://example.com/docs\'>docs</a>.</p></body></html>';

type Switches = Partial<Record<'open_tracking' | 'click_tracking' | 'unsubscribe', { enable: boolean }>>;
const ON = { enable: true };

async function sendTracked(settings: Switches, to = 'ann@example.com') {
  const res = await emu.service.sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email: to }],
    subject: 'Tracked',
    content: [
      { type: 'text/html', value: HTML },
      { type: 'text/plain', value: 'Hi' },
    ],
    settings,
  });
  const ref = res.ref_id;
  const copies = (await emu.control.listMessages({ q: ref })).data.messages;
  expect(copies.map((m) => [m.ref_id, m.recipient.email])).toEqual([[ref, to]]);
  return { ref, detail: (await emu.control.getMessage(copies[0]!.id)).data };
}

const links = (html: string, kind: string) => [...html.matchAll(new RegExp(`https?://[^"' ]+/t/${kind}/[A-Za-z0-9_-]+`, 'g'))].map((m) => m[0]);

describe('tracking', () => {
  it('rewrites links, adds a pixel and an unsubscribe link with RFC 8058 headers, per message', async () => {
    const { detail } = await sendTracked({ open_tracking: ON, click_tracking: ON, unsubscribe: ON });
    expect(links(detail.html!, 'c')).toHaveLength(2);
    expect(detail.html).not.toContain('https://example.com/pricing');
    expect(links(detail.html!, 'o')).toHaveLength(1);
    expect(links(detail.html!, 'u')).toHaveLength(1);
    expect(detail.text).toContain(`Unsubscribe: ${links(detail.html!, 'u')[0]}`);
    const header = (name: string) => detail.headers.find((h) => h.name.toLowerCase() === name)?.value;
    expect(header('list-unsubscribe')).toBe(`<${links(detail.html!, 'u')[0]}>`);
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(links(detail.html!, 'c')[0]!.startsWith(emu.url)).toBe(true);
  });

  it('leaves mail untouched without tracking settings', async () => {
    const { detail } = await sendTracked({});
    expect(detail.html).toContain('href="https://example.com/pricing?a=1&amp;b=2"');
    expect(detail.headers.some((h) => h.name.toLowerCase() === 'list-unsubscribe')).toBe(false);
  });

  it('takes a switch without enable ({}) as off, for every switch of settings, as the real service (enable is optional there)', async () => {
    const res = await emu.request('POST', '/v1/email/send', {
      body: {
        from: { email: 'app@example.com' },
        to: [{ email: 'ann@example.com' }],
        subject: 'Empty switches',
        content: [{ type: 'text/html', value: HTML }],
        settings: { open_tracking: {}, click_tracking: {}, unsubscribe: {}, validate: {}, phishing_protection: {} },
      },
    });
    expect(res.status, res.text).toBe(200);
    const [copy] = (await emu.control.listMessages({ q: res.json.ref_id })).data.messages;
    const detail = (await emu.control.getMessage(copy!.id)).data;
    expect(links(detail.html!, 'o')).toEqual([]);
    expect(links(detail.html!, 'c')).toEqual([]);
    expect(detail.html).toContain('href="https://example.com/pricing?a=1&amp;b=2"');
    expect(detail.headers.some((h) => h.name.toLowerCase() === 'list-unsubscribe')).toBe(false);
  });

  it('turns a pixel load into an open event with the user agent, IP and the local geo default', async () => {
    const { ref, detail } = await sendTracked({ open_tracking: ON });
    const res = await fetch(links(detail.html!, 'o')[0]!, { headers: { 'user-agent': 'TestMail/1.0' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    const [req] = await receiver.waitFor(1);
    const open = EMAIL_EVENT_PAYLOADS.open.parse(JSON.parse(req!.body));
    expect(open).toMatchObject({ ref_id: ref, user_agent: 'TestMail/1.0', ip_address: '127.0.0.1', geo_location: { country: 'Iceland', city: 'Reykjavik' } });
    const log = (await emu.service.getEmailLogs({ refId: ref })).emailLogs[0]!;
    expect(Object.keys(log.track)).toEqual(['open']);
    expect(log.track.open).toEqual([open.timestamp]);
    expect(log.opened).toBe(true);
  });

  it("tracks each recipient of one send by its own tokens, under the send's one ref_id", async () => {
    const res = await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.com' }, { email: 'bob@example.com' }],
      subject: 'Tracked',
      content: [{ type: 'text/html', value: HTML }],
      settings: { open_tracking: ON, click_tracking: ON },
    });
    const copies = (await emu.control.listMessages({ q: res.ref_id })).data.messages;
    expect(copies.map((m) => [m.recipient.email, m.ref_id]).sort()).toEqual([
      ['ann@example.com', res.ref_id],
      ['bob@example.com', res.ref_id],
    ]);
    const html = async (email: string) => (await emu.control.getMessage(copies.find((m) => m.recipient.email === email)!.id)).data.html!;
    const [annHtml, bobHtml] = [await html('ann@example.com'), await html('bob@example.com')];
    expect(links(annHtml, 'o')[0]).not.toBe(links(bobHtml, 'o')[0]);
    expect(links(annHtml, 'c')[0]).not.toBe(links(bobHtml, 'c')[0]);

    expect((await fetch(links(bobHtml, 'o')[0]!)).status).toBe(200);
    const [req] = await receiver.waitFor(1);
    expect(JSON.parse(req!.body)).toMatchObject({ event: 'open', ref_id: res.ref_id, recipient: { email: 'bob@example.com' } });
    const logs = new Map((await emu.service.getEmailLogs({ refId: res.ref_id })).emailLogs.map((l) => [l.recipientAddress, l]));
    expect(Object.keys(logs.get('bob@example.com')!.track)).toEqual(['open']);
    expect(logs.get('ann@example.com')!.track).toEqual({});
    expect([logs.get('ann@example.com')!.opened, logs.get('bob@example.com')!.opened]).toEqual([false, true]);
  });

  it('redirects a click with 302 only to the URL that was in the message, and reports it', async () => {
    const { ref, detail } = await sendTracked({ click_tracking: ON });
    const res = await fetch(links(detail.html!, 'c')[0]!, { redirect: 'manual', headers: { 'user-agent': 'Browser/2' } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.com/pricing?a=1&b=2');
    const [req] = await receiver.waitFor(1);
    expect(EMAIL_EVENT_PAYLOADS.click.parse(JSON.parse(req!.body))).toMatchObject({
      ref_id: ref,
      url: 'https://example.com/pricing?a=1&b=2',
      link_name: 'See pricing',
      user_agent: 'Browser/2',
      ip_address: '127.0.0.1',
    });
    // No token, no redirect: there is nothing a caller can point elsewhere.
    for (const path of ['/t/c/unknown-token-123', '/t/c/x?url=https://evil.example', `/t/c/${links(detail.html!, 'o')[0] ?? 'zz'}`]) {
      const bad = await fetch(`${emu.url}${path}`, { redirect: 'manual' });
      expect(bad.status, path).toBe(404);
      expect(bad.headers.get('location')).toBeNull();
    }
  });

  it("serves the UI's preview without the pixel and with tracked links to their own URLs, counting nothing", async () => {
    const { ref, detail } = await sendTracked({ open_tracking: ON, click_tracking: ON });
    const res = await fetch(`${emu.url}/emulator/messages/${detail.id}/html`);
    const preview = await res.text();
    expect(preview).not.toMatch(/\/t\/[oc]\//);
    expect(preview).not.toContain('<img');
    expect(preview).toContain('href="https://example.com/pricing?a=1&amp;b=2"');
    expect(preview).toContain('href="https://example.com/docs"');
    expect(preview.match(/data-mailyard-tracked-link="[A-Za-z0-9_-]+"/g)).toHaveLength(2);
    expect(preview).toContain('title="Tracked link to https://example.com/docs (not counted from the preview)"');
    expect(preview).toContain('See <b>pricing</b>');
    // The message itself is as sent: its detail and raw source keep the pixel and the tracked links.
    expect(links(detail.html!, 'o')).toHaveLength(1);
    expect(await (await fetch(`${emu.url}/emulator/messages/${detail.id}/raw`)).text()).toContain('/t/o/');
    await emu.control.setClock({ speed: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests).toHaveLength(0);
    expect((await emu.service.getEmailLogs({ refId: ref })).emailLogs[0]!.track).toEqual({});
  });

  it('unsubscribes by one-click POST (not by GET), reports it and suppresses the address', async () => {
    const { ref, detail } = await sendTracked({ unsubscribe: ON });
    const link = links(detail.html!, 'u')[0]!;
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post">');
    expect(receiver.requests).toHaveLength(0);

    const res = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(res.status).toBe(200);
    const [req] = await receiver.waitFor(1);
    expect(JSON.parse(req!.body)).toMatchObject({ event: 'unsubscribe', ref_id: ref, recipient: { email: 'ann@example.com' } });
    const next = await sendTracked({});
    expect((await emu.service.getEmailLogs({ refId: next.ref })).emailLogs[0]).toMatchObject({
      status: 'failed',
      failedReason: 'recipient is on the suppression list (unsubscribed)',
    });
    const first = (await emu.service.getEmailLogs({ refId: ref })).emailLogs[0]!;
    expect([first.status, Object.keys(first.track)]).toEqual(['unsubscribed', ['unsubscribe']]);
  });
});
