import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

let emu: TestEmulator;
beforeEach(async () => {
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
});
afterEach(() => emu.cleanup());

const pdf = randomBytes(10_000);
const png = randomBytes(2_000);

async function sendOne(extra: Record<string, unknown> = {}) {
  const res = await emu.service.sendEmail({
    from: { email: 'app@example.com', name: 'Ünïcode App' },
    to: [{ email: 'ann@example.com', name: 'Ann' }],
    subject: 'Grüße, 你好 — receipt',
    content: [
      { type: 'text/html', value: '<p>Hallo <b>Welt</b> <img src="cid:logo@app"></p>' },
      { type: 'text/plain', value: 'Hallo Welt — ünïcode' },
    ],
    attachments: [
      { filename: 'invoice.pdf', content: pdf.toString('base64'), type: 'application/pdf' },
      { filename: 'logo.png', content: png.toString('base64'), type: 'image/png', disposition: 'inline', content_id: 'logo@app' },
      { filename: '../../etc/passwd', content: Buffer.from('root:x').toString('base64') },
    ],
    ...extra,
  } as never);
  return res.data.messages[0]!.ref_id;
}

describe('captured messages', () => {
  it('shows a message in detail: headers, text, HTML, attachments, events; non-ASCII intact', async () => {
    const ref = await sendOne();
    const d = (await emu.control.getMessage(ref)).data;
    expect(d.subject).toBe('Grüße, 你好 — receipt');
    expect(d.text?.trim()).toBe('Hallo Welt — ünïcode');
    expect(d.html).toContain('<b>Welt</b>');
    const header = (name: string) => d.headers.find((h) => h.name.toLowerCase() === name)?.value;
    expect(header('message-id')).toMatch(/^<[0-9A-Z]{26}@mailyard\.local>$/);
    expect(header('to')).toContain('ann@example.com');
    expect(header('mime-version')).toBe('1.0');
    // In document order: the inline image sits with the HTML, before the attachments.
    expect(d.attachments.map((a) => [a.index, a.filename, a.content_type, a.size, a.content_id])).toEqual([
      [0, 'logo.png', 'image/png', 2_000, 'logo@app'],
      [1, 'invoice.pdf', 'application/pdf', 10_000, null],
      [2, '../../etc/passwd', 'application/octet-stream', 6, null],
    ]);
    expect(d.events).toEqual([]);
    await emu.control.setClock({ advance_ms: 2_000 });
    await new Promise((r) => setTimeout(r, 150));
    expect((await emu.control.getMessage(ref)).data.events.map((e) => e.event)).toEqual(['delivery']);
  });

  it('serves attachments byte for byte, as downloads with a harmless file name', async () => {
    const ref = await sendOne();
    const d = (await emu.control.getMessage(ref)).data;
    const index = (name: string) => d.attachments.find((a) => a.filename === name)!.index;
    const first = await fetch(`${emu.url}/emulator/messages/${ref}/attachments/${index('invoice.pdf')}`);
    expect(first.headers.get('content-type')).toBe('application/pdf');
    expect(first.headers.get('content-disposition')).toBe('attachment; filename=invoice.pdf');
    expect(Buffer.from(await first.arrayBuffer()).equals(pdf)).toBe(true);
    const inline = await fetch(`${emu.url}/emulator/messages/${ref}/attachments/${index('logo.png')}`);
    expect(Buffer.from(await inline.arrayBuffer()).equals(png)).toBe(true);
    const evil = await fetch(`${emu.url}/emulator/messages/${ref}/attachments/${index('../../etc/passwd')}`);
    const disposition = evil.headers.get('content-disposition')!;
    expect(disposition).toBe('attachment; filename=__.._etc_passwd');
    expect(disposition).not.toContain('/');
    expect(evil.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect((await fetch(`${emu.url}/emulator/messages/${ref}/attachments/3`)).status).toBe(404);
    expect((await fetch(`${emu.url}/emulator/messages/${ref}/attachments/x`)).status).toBe(400);
  });

  it('serves the raw message as an .eml that parses back to the same content', async () => {
    const ref = await sendOne();
    const res = await fetch(`${emu.url}/emulator/messages/${ref}/raw`);
    expect(res.headers.get('content-type')).toBe('message/rfc822');
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="?${ref}\\.eml"?$`));
    const parsed = await simpleParser(Buffer.from(await res.arrayBuffer()));
    expect(parsed.subject).toBe('Grüße, 你好 — receipt');
    expect(parsed.attachments.find((a) => a.filename === 'invoice.pdf')!.content.equals(pdf)).toBe(true);
  });

  it('previews HTML under a policy that runs no script', async () => {
    const ref = await sendOne({ content: [{ type: 'text/html', value: '<p>x</p><script>alert(1)</script><img src=x onerror="alert(2)">' }] });
    const res = await fetch(`${emu.url}/emulator/messages/${ref}/html`);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(csp).toMatch(/(^|; )sandbox( |;|$)/);
    expect(csp).not.toContain('allow-scripts');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('lists newest first, searches and pages', async () => {
    const refs: string[] = [];
    for (const [email, subject] of [
      ['ann@example.com', 'Welcome'],
      ['bob@example.com', 'Receipt 100%'],
      ['cat@other.test', 'Welcome back'],
    ]) {
      refs.push(
        (await emu.service.sendEmail({ from: { email: 'app@example.com' }, to: [{ email: email! }], subject: subject!, content: [{ type: 'text/plain', value: '.' }] } as never)).data
          .messages[0]!.ref_id,
      );
    }
    expect((await emu.control.listMessages()).data.messages.map((m) => m.ref_id)).toEqual([...refs].reverse());
    expect((await emu.control.listMessages({ q: 'WELCOME' })).data.messages.map((m) => m.ref_id)).toEqual([refs[2], refs[0]]);
    expect((await emu.control.listMessages({ q: 'other.test' })).data.messages.map((m) => m.ref_id)).toEqual([refs[2]]);
    expect((await emu.control.listMessages({ q: '100%' })).data.messages.map((m) => m.ref_id)).toEqual([refs[1]]);
    const first = (await emu.control.listMessages({ limit: 2 })).data;
    const second = (await emu.control.listMessages({ limit: 2, cursor: first.next_cursor! })).data;
    expect([...first.messages, ...second.messages].map((m) => m.ref_id)).toEqual([...refs].reverse());
    expect(second.next_cursor).toBeNull();
  });

  it('deletes one message, then all, with their log entries', async () => {
    const a = await sendOne();
    const b = await sendOne();
    expect((await emu.control.deleteMessage(a)).data.deleted).toBe(1);
    expect((await emu.request('GET', `/emulator/messages/${a}`)).status).toBe(404);
    expect((await emu.request('DELETE', `/emulator/messages/${a}`, { body: {} })).status).toBe(404);
    expect((await emu.control.getMessage(b)).data.attachments).toHaveLength(3);
    expect((await emu.control.deleteMessages()).data.deleted).toBe(1);
    expect((await emu.service.getEmailLogs()).data.logs).toEqual([]);
    // Nothing scheduled for deleted messages fires.
    await emu.control.setClock({ advance_ms: 60_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect((await emu.control.getClock()).data.pending_deliveries).toBe(0);
  });
});
