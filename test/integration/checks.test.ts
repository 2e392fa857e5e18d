import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageChecks, SpamCheck } from '../../src-shared/schemas/checks';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { GTUBE, skipWithoutSpamd } from '../helpers/spamd';

const HTML = `<!doctype html><html><head><style>.row { display: flex; } @media (max-width: 600px) { .row { display: block; } }</style></head>
<body><div class="row" style="border-radius: 8px">
<a href="https://shop.example/order/42">Your order</a>
<a href="http://shop.example/help">Help</a>
<a href="javascript:alert(1)">Unsubscribe</a>
<a href="/account">Account</a>
<a href="">Nothing</a>
<a href="https://shop.example/order/42"><img src="https://cdn.shop.example/logo.png" alt="Logo"></a>
<a href="https://shop.example/sale?utm_source=mail&amp;utm_campaign=x">Sale</a>
<a href="mailto:help@shop.example">Mail us</a>
<img src="http://cdn.shop.example/banner.png" alt="Banner"><img src="cid:inline@shop">
<video src="https://cdn.shop.example/v.mp4"></video>
</div></body></html>`;

let emu: TestEmulator;
let receiver: Receiver;

async function sendOne(html: string, to: string[] = ['ann@example.com'], settings: Record<string, unknown> = {}) {
  const res = await emu.service.sendEmail({
    from: { email: 'shop@example.com' },
    to: to.map((email) => ({ email })),
    subject: 'Your order',
    content: [
      { type: 'text/html', value: html },
      { type: 'text/plain', value: html.replace(/<[^>]+>/g, ' ') },
    ],
    settings,
  });
  const copies = (await emu.control.listMessages({ q: res.ref_id })).data.messages;
  return { ref: res.ref_id, ids: Object.fromEntries(copies.map((c) => [c.recipient.email, c.id])) as Record<string, string> };
}

async function getJson<T>(path: string): Promise<{ status: number; data: T }> {
  const res = await fetch(`${emu.url}${path}`);
  const body = (await res.json()) as { data: T };
  return { status: res.status, data: body.data };
}

beforeAll(async () => {
  receiver = await startReceiver();
  emu = await startEmulator({ spamFilter: 'spamassassin' });
  await emu.registerEmailWebhook(receiver.url);
  await emu.control.setClock({ speed: 0 });
}, 180_000);
afterAll(async () => {
  await emu?.cleanup();
  await receiver?.close();
});

describe('a message’s checks', () => {
  it('lists the links with their problems flagged', async () => {
    const { ids } = await sendOne(HTML);
    const { status, data } = await getJson<MessageChecks>(`/emulator/messages/${ids['ann@example.com']}/checks`);
    expect(status).toBe(200);
    expect(data.has_html).toBe(true);
    expect(data.html).toContain('<a href="javascript:alert(1)">');
    const codes = (href: string) => data.links.filter((l) => l.href === href).flatMap((l) => l.problems.map((p) => `${p.level}:${p.code}`));
    expect(codes('javascript:alert(1)')).toEqual(['error:unsafe_scheme']);
    expect(codes('http://shop.example/help')).toEqual(['warning:insecure']);
    expect(codes('/account')).toEqual(['error:relative']);
    expect(codes('')).toEqual(['error:empty']);
    expect(codes('https://shop.example/order/42')).toEqual(['info:duplicate', 'info:duplicate']);
    expect(codes('https://shop.example/sale?utm_source=mail&utm_campaign=x')).toEqual(['info:tracking_params']);
    expect(codes('mailto:help@shop.example')).toEqual([]);
    expect(data.links.find((l) => l.href === '/account')!.text).toBe('Account');
    expect(data.links.filter((l) => l.href === 'https://shop.example/order/42').map((l) => l.text)).toEqual(['Your order', 'Logo']);
    // Two remote images (http and https); the cid: one is not remote.
    expect(data.remote_images).toBe(2);
  });

  it('shows a click-tracked link’s own URL, checked as the link it stands for', async () => {
    const { ids } = await sendOne('<p><a href="http://shop.example/plain">Plain</a></p>', ['bob@example.com'], {
      click_tracking: { enable: true },
      open_tracking: { enable: true },
    });
    const { data } = await getJson<MessageChecks>(`/emulator/messages/${ids['bob@example.com']}/checks`);
    expect(data.links).toHaveLength(1);
    expect(data.links[0]!.href).toMatch(/\/t\/c\//);
    expect(data.links[0]!.url).toBe('http://shop.example/plain');
    expect(data.links[0]!.problems.map((p) => p.code)).toEqual(['tracked', 'insecure']);
    // The open pixel is no remote image of the sender's.
    expect(data.remote_images).toBe(0);
  });

  it('checks the HTML against email clients with caniemail’s data, per client family', async () => {
    const { ids } = await sendOne(HTML);
    const { data } = await getJson<MessageChecks>(`/emulator/messages/${ids['ann@example.com']}/checks`);
    expect(data.compatibility.source).toContain('caniemail');
    const flex = data.compatibility.findings.find((f) => f.feature === 'display:flex' && f.level === 'error');
    expect(flex?.clients).toContain('outlook.windows');
    const video = data.compatibility.findings.find((f) => f.feature === '<video> element' && f.level === 'error');
    expect(video?.clients).toContain('gmail.desktop-webmail');
    expect(data.compatibility.findings.some((f) => f.feature === 'border-radius')).toBe(true);
    const outlook = data.compatibility.families.find((f) => f.family === 'outlook');
    expect(outlook!.errors).toBeGreaterThan(0);
  });

  it('answers a message without HTML with no findings, and 404 for an unknown message', async () => {
    const res = await emu.service.sendEmail({
      from: { email: 'shop@example.com' },
      to: [{ email: 'cat@example.com' }],
      subject: 'Text',
      content: [{ type: 'text/plain', value: 'Hi' }],
    });
    const copies = (await emu.control.listMessages({ q: res.ref_id })).data.messages;
    const { data } = await getJson<MessageChecks>(`/emulator/messages/${copies[0]!.id}/checks`);
    expect(data).toMatchObject({ has_html: false, html: null, links: [], remote_images: 0, compatibility: { findings: [] } });
    expect((await fetch(`${emu.url}/emulator/messages/01HZZZZZZZZZZZZZZZZZZZZZZZ/checks`)).status).toBe(404);
  });

  it('blocks remote images, style sheets and fonts in the preview unless allowed; scripts stay blocked either way', async () => {
    const { ids } = await sendOne(HTML);
    const blocked = await fetch(`${emu.url}/emulator/messages/${ids['ann@example.com']}/html`);
    const csp = blocked.headers.get('content-security-policy')!;
    expect(csp).toMatch(/img-src data: cid:(;|$)/);
    expect(csp).toMatch(/style-src 'unsafe-inline'(;|$)/);
    expect(csp).toMatch(/font-src data:(;|$)/);
    const allowed = await fetch(`${emu.url}/emulator/messages/${ids['ann@example.com']}/html?images=allow`);
    const allowCsp = allowed.headers.get('content-security-policy')!;
    // Allowed: the message's two remote images by their own URLs, nothing else remote (it has no remote sheet or font).
    expect(allowCsp).toContain('img-src data: cid: https://cdn.shop.example/logo.png http://cdn.shop.example/banner.png;');
    expect(allowCsp).toMatch(/style-src 'unsafe-inline'(;|$)/);
    expect(allowCsp).toMatch(/font-src data:(;|$)/);
    for (const policy of [csp, allowCsp]) {
      expect(policy).toContain("default-src 'none'");
      expect(policy).not.toContain('script-src');
      expect(policy).not.toContain('allow-scripts');
      expect(policy).toMatch(/(^|; )sandbox /);
    }
    expect((await fetch(`${emu.url}/emulator/messages/${ids['ann@example.com']}/html?images=maybe`)).status).toBe(400);
  });
});

describe.skipIf(skipWithoutSpamd)('SpamAssassin (spamd started by the emulator, local tests only)', () => {
  it('scores a message and names the rules that fired', async () => {
    const spam = await sendOne(`<p>Hello</p><p>${GTUBE}</p>`, ['dan@example.com']);
    const { data } = await getJson<SpamCheck>(`/emulator/messages/${spam.ids['dan@example.com']}/spam`);
    expect(data.status).toBe('ok');
    if (data.status !== 'ok') return;
    expect(data.score).toBeGreaterThanOrEqual(1000);
    expect(data.threshold).toBe(5);
    expect(data.is_spam).toBe(true);
    // This emulator runs with --spam-filter spamassassin: the answer says the score acts.
    expect(data.spam_filter).toBe(true);
    expect(data.rules.find((r) => r.name === 'GTUBE')).toMatchObject({
      score: 1000,
      description: expect.stringContaining('Generic Test for Unsolicited Bulk Email'),
    });

    const clean = await sendOne('<p>Your order 42 has shipped. Thanks for shopping with us.</p>', ['eve@example.com']);
    const verdict = (await getJson<SpamCheck>(`/emulator/messages/${clean.ids['eve@example.com']}/spam`)).data;
    expect(verdict.status).toBe('ok');
    if (verdict.status === 'ok') {
      expect(verdict.score).toBeLessThan(5);
      expect(verdict.is_spam).toBe(false);
    }
  }, 180_000);

  it('with --spam-filter spamassassin, a send scored at or over the threshold gives its recipients a spam event', async () => {
    const before = receiver.requests.length;
    const spam = await sendOne(`<p>Hello</p><p>${GTUBE}</p>`, ['fay@example.com', 'gus@example.com']);
    const clean = await sendOne('<p>Your order 43 has shipped.</p>', ['hal@example.com']);
    await emu.handle.services.spamFilter.idle();
    await emu.control.setClock({ advance_ms: 10_000 });
    // fay and gus: delivery and spam; hal: delivery only.
    await receiver.waitFor(before + 5, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    const events = receiver.requests.slice(before).map((r) => JSON.parse(r.body) as { event: string; recipient: { email: string }; ref_id: string });
    const kinds = (ref: string) =>
      events
        .filter((e) => e.ref_id === ref)
        .map((e) => `${e.recipient.email}:${e.event}`)
        .sort();
    expect(kinds(spam.ref)).toEqual(['fay@example.com:delivery', 'fay@example.com:spam', 'gus@example.com:delivery', 'gus@example.com:spam']);
    expect(kinds(clean.ref)).toEqual(['hal@example.com:delivery']);
    const detail = (await emu.control.getMessage(spam.ids['fay@example.com']!)).data;
    expect(detail.events.map((e) => e.event)).toContain('spam');
    expect(detail.status).toBe('spam');
  }, 180_000);
});
