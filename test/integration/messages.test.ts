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
  });
  // One recipient: one copy, addressed by its own id, under the send's ref_id.
  const copies = (await emu.control.listMessages({ q: res.ref_id })).data.messages;
  expect(copies.map((m) => m.ref_id)).toEqual([res.ref_id]);
  return { ref: res.ref_id, id: copies[0]!.id };
}

describe('captured messages', () => {
  it('shows a message in detail: headers, text, HTML, attachments, events; non-ASCII intact', async () => {
    const { ref, id } = await sendOne();
    const d = (await emu.control.getMessage(id)).data;
    expect([d.id, d.ref_id, d.failed_reason]).toEqual([id, ref, '']);
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
    expect((await emu.control.getMessage(id)).data.events.map((e) => e.event)).toEqual(['delivery']);
  });

  it('serves attachments byte for byte, as downloads with a harmless file name', async () => {
    const { id } = await sendOne();
    const d = (await emu.control.getMessage(id)).data;
    const index = (name: string) => d.attachments.find((a) => a.filename === name)!.index;
    const first = await fetch(`${emu.url}/emulator/messages/${id}/attachments/${index('invoice.pdf')}`);
    expect(first.headers.get('content-type')).toBe('application/pdf');
    expect(first.headers.get('content-disposition')).toBe('attachment; filename=invoice.pdf');
    expect(Buffer.from(await first.arrayBuffer()).equals(pdf)).toBe(true);
    const inline = await fetch(`${emu.url}/emulator/messages/${id}/attachments/${index('logo.png')}`);
    expect(Buffer.from(await inline.arrayBuffer()).equals(png)).toBe(true);
    const evil = await fetch(`${emu.url}/emulator/messages/${id}/attachments/${index('../../etc/passwd')}`);
    const disposition = evil.headers.get('content-disposition')!;
    expect(disposition).toBe('attachment; filename=__.._etc_passwd');
    expect(disposition).not.toContain('/');
    expect(evil.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect((await fetch(`${emu.url}/emulator/messages/${id}/attachments/3`)).status).toBe(404);
    expect((await fetch(`${emu.url}/emulator/messages/${id}/attachments/x`)).status).toBe(400);
  });

  it('shows and serves attachment names without format characters (U+202E shows "fdp.exe" as "exe.pdf")', async () => {
    const attachment = (filename: string) => ({ filename, content: Buffer.from('MZ').toString('base64'), type: 'application/octet-stream' });
    const { id } = await sendOne({
      attachments: [attachment('invoice\u202Efdp.exe'), attachment('a\u200Fb\u2066c\u2069\u061Cd.txt'), attachment('\u202E\u200B')],
    });
    const d = (await emu.control.getMessage(id)).data;
    expect(d.attachments.map((a) => a.filename)).toEqual(['invoicefdp.exe', 'abcd.txt', 'attachment-3']);
    const download = await fetch(`${emu.url}/emulator/messages/${id}/attachments/0`);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename=invoicefdp.exe');
  });

  it('serves the raw message as an .eml that parses back to the same content', async () => {
    const { id } = await sendOne();
    const res = await fetch(`${emu.url}/emulator/messages/${id}/raw`);
    expect(res.headers.get('content-type')).toBe('message/rfc822');
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="?${id}\\.eml"?$`));
    const parsed = await simpleParser(Buffer.from(await res.arrayBuffer()));
    expect(parsed.subject).toBe('Grüße, 你好 — receipt');
    expect(parsed.attachments.find((a) => a.filename === 'invoice.pdf')!.content.equals(pdf)).toBe(true);
  });

  it('previews HTML under a policy that runs no script', async () => {
    const { id } = await sendOne({ content: [{ type: 'text/html', value: '<p>x</p><script>alert(1)</script><img src=x onerror="alert(2)">' }] });
    const res = await fetch(`${emu.url}/emulator/messages/${id}/html`);
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
    ] as const) {
      refs.push(
        (await emu.service.sendEmail({ from: { email: 'app@example.com' }, to: [{ email }], subject, content: [{ type: 'text/plain', value: '.' }] })).ref_id,
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

  it('pages one copy at a time through a send whose copies share their creation time, each once, while new mail arrives', async () => {
    const to = ['a', 'b', 'c', 'd', 'e'].map((n) => ({ email: `${n}@example.com` }));
    const sent = await emu.service.sendEmail({ from: { email: 'app@example.com' }, to, subject: 'Same time', content: [{ type: 'text/plain', value: '.' }] });
    const copies = (await emu.control.listMessages({ limit: 10 })).data.messages;
    expect(new Set(copies.map((m) => m.created_at)).size).toBe(1);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await emu.control.listMessages({ limit: 1, ...(cursor ? { cursor } : {}) })).data;
      seen.push(...page.messages.map((m) => m.recipient.email));
      cursor = page.next_cursor ?? undefined;
      // Mail stored meanwhile is newer than every page: it never shows up on a later one.
      if (seen.length === 2)
        await emu.service.sendEmail({
          from: { email: 'app@example.com' },
          to: [{ email: 'late@example.com' }],
          subject: 'Late',
          content: [{ type: 'text/plain', value: '.' }],
        });
    } while (cursor !== undefined && seen.length < 10);
    expect(seen).toEqual(to.map((t) => t.email).reverse());
    expect((await emu.control.listMessages({ q: sent.ref_id })).data.messages).toHaveLength(5);
    for (const cursor of ['zzz', Buffer.from('01K0000000000000000000000A').toString('base64url'), Buffer.from('12.x').toString('base64url')]) {
      const res = await emu.request('GET', `/emulator/messages?cursor=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(res.json.error, cursor).toMatch(/cursor is not a cursor this API gave out/);
    }
  });

  it('deletes one message, then all, with their log entries', async () => {
    const a = await sendOne();
    const b = await sendOne();
    expect((await emu.control.deleteMessage(a.id)).data.deleted).toBe(1);
    expect((await emu.request('GET', `/emulator/messages/${a.id}`)).status).toBe(404);
    expect((await emu.request('DELETE', `/emulator/messages/${a.id}`, { body: {} })).status).toBe(404);
    expect((await emu.service.getEmailLogs()).emailLogs.map((l) => l.refId)).toEqual([b.ref]);
    expect((await emu.control.getMessage(b.id)).data.attachments).toHaveLength(3);
    expect((await emu.control.deleteMessages()).data.deleted).toBe(1);
    expect((await emu.service.getEmailLogs()).emailLogs).toEqual([]);
    // Nothing scheduled for deleted messages fires.
    await emu.control.setClock({ advance_ms: 60_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect((await emu.control.getClock()).data.pending_deliveries).toBe(0);
  });
  it("keeps one copy per recipient of a send, each addressed by its own id, all found by the send's ref_id", async () => {
    const { ref_id } = await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.com', name: 'Ann' }],
      cc: [{ email: 'bob@example.com' }],
      bcc: [{ email: 'cat@example.com' }],
      subject: 'Team update',
      content: [{ type: 'text/plain', value: 'Hello team' }],
    });
    const copies = (await emu.control.listMessages({ q: ref_id })).data.messages;
    // Newest first: the copies were stored in the order to, cc, bcc.
    expect(copies.map((m) => [m.recipient.email, m.recipient_type, m.ref_id])).toEqual([
      ['cat@example.com', 'bcc', ref_id],
      ['bob@example.com', 'cc', ref_id],
      ['ann@example.com', 'to', ref_id],
    ]);
    expect(new Set(copies.map((m) => m.id)).size).toBe(3);
    expect(copies.every((m) => m.id !== ref_id)).toBe(true);
    // A copy's id finds just that copy, as do its detail and raw message.
    const bob = copies[1]!;
    expect((await emu.control.listMessages({ q: bob.id })).data.messages.map((m) => m.id)).toEqual([bob.id]);
    expect((await emu.control.getMessage(bob.id)).data).toMatchObject({ id: bob.id, ref_id, recipient: { email: 'bob@example.com' }, recipient_type: 'cc' });
    const raw = await (await fetch(`${emu.url}/emulator/messages/${bob.id}/raw`)).text();
    expect(raw).toContain('Subject: Team update');
    // The send's ref_id is no copy's key.
    expect((await emu.request('GET', `/emulator/messages/${ref_id}`)).status).toBe(404);

    // Deleting one copy leaves the send's other copies and their log entries.
    expect((await emu.control.deleteMessage(bob.id)).data.deleted).toBe(1);
    expect((await emu.control.listMessages({ q: ref_id })).data.messages.map((m) => m.recipient.email)).toEqual(['cat@example.com', 'ann@example.com']);
    const logs = await emu.service.getEmailLogs({ refId: ref_id });
    expect(logs.emailLogs.map((l) => l.recipientAddress)).toEqual(['cat@example.com', 'ann@example.com']);
  });
});
