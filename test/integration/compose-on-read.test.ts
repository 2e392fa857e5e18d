import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeMessage } from '../../src-main/core/services/email/compose';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import type { SendEmailBody } from '../../src-shared/schemas/email';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { whenIndexed } from '../helpers/search';

let emu: TestEmulator;
beforeEach(async () => {
  emu = await startEmulator();
});
afterEach(() => emu.cleanup());

const request: SendEmailBody = {
  from: { email: 'shop@example.com', name: 'Bäckerei Müller' },
  to: [{ email: 'ann@example.com', name: 'Ann' }],
  cc: [{ email: 'copy@example.com' }],
  replyTo: 'help@example.com',
  subject: 'Grüße: your receipt',
  headers: { 'X-Ticket': 'TCK-4711' },
  content: [
    { type: 'text/plain', value: 'Your parcel is on its way' },
    { type: 'text/html', value: '<p>Your <b>parcel</b> is on its way</p><img src="cid:logo@shop">' },
  ],
  attachments: [
    { filename: 'invoice-77.pdf', content: Buffer.from('%PDF-1.4 pretend').toString('base64'), type: 'application/pdf' },
    { filename: 'logo.png', content: Buffer.from('png bytes').toString('base64'), type: 'image/png', content_id: 'logo@shop' },
  ],
};

/** The stored content of the send's copy: its raw bytes and its recipe, read beside the emulator. */
function storedContent(id: string): { raw: Buffer; recipe: Buffer | null } {
  const db = new Database(join(emu.dataDir, DATABASE_FILE), { readonly: true });
  try {
    return db.prepare('SELECT c.raw, c.recipe FROM message_contents c JOIN messages m ON m.content_id = c.content_id WHERE m.id = ?').get(id) as {
      raw: Buffer;
      recipe: Buffer | null;
    };
  } finally {
    db.close();
  }
}

const bytes = async (path: string) => Buffer.from(await (await fetch(emu.url + path)).arrayBuffer());

describe('a send composed on its first read', () => {
  it('is searchable before anything reads it, and every reader then gets the bytes composing it when sent made, composed once', async () => {
    await emu.service.sendEmail(request);
    const found = async (q: string) => (await whenIndexed(() => emu.control.listMessages({ q }))).data.messages.map((m) => m.id).sort();
    // The index takes its words from the request: the body, a custom header, an attachment's name, Reply-To.
    const copies = await found('parcel');
    expect(copies).toHaveLength(2);
    expect(await found('TCK-4711')).toEqual(copies);
    expect(await found('filename:invoice-77.pdf')).toEqual(copies);
    expect(await found('help@example.com')).toEqual(copies);
    const id = copies[0];
    const before = storedContent(id!);
    expect(before.raw.length).toBe(0);
    expect(before.recipe).not.toBeNull();

    // Several readers at once: the download, Mailpit's raw, the detail (parsed), the spam check's reading.
    const [download, mailpitRaw, detail] = await Promise.all([
      bytes(`/emulator/messages/${id}/raw`),
      bytes(`/api/v1/message/${id}/raw`),
      emu.control.getMessage(id!),
    ]);
    expect(mailpitRaw.equals(download)).toBe(true);
    expect(detail.data.attachments.map((a: { filename: string }) => a.filename)).toContain('invoice-77.pdf');
    const after = storedContent(id!);
    expect(after.recipe).toBeNull();
    expect(after.raw.equals(download)).toBe(true);
    expect((await bytes(`/emulator/messages/${id}/raw`)).equals(download)).toBe(true);

    // What composing at send time made of the same request, Message-ID, Date and boundaries.
    const text = download.toString('latin1');
    const messageId = /^Message-ID: (<[^>]+>)/m.exec(text)![1]!;
    const date = new Date(/^Date: (.+)$/m.exec(text)![1]!.trim());
    const boundary = /boundary="--_NmP-([0-9a-f]+)-Part_1"/.exec(text)![1]!;
    const html = request.content!.find((c) => c.type === 'text/html')!.value;
    const plain = request.content!.find((c) => c.type === 'text/plain')!.value;
    const atOnce = await composeMessage(request, { messageId, date, boundary, subject: request.subject!, html, text: plain });
    expect(text).toBe(atOnce.toString('latin1'));
  });
});

describe('a send not composed yet, in the lists and searches that need its bytes', () => {
  it('is found by larger: and smaller: at the size its bytes will have, and its list row has the paperclip', async () => {
    await emu.service.sendEmail({ ...request, cc: undefined });
    const listed = await emu.control.listMessages({ q: 'ann@example.com' });
    expect(listed.data.messages.map((m) => m.has_attachments)).toEqual([true]);
    const id = listed.data.messages[0]!.id;
    const finds = async (q: string) => {
      const [list, count] = await Promise.all([emu.control.listMessages({ q }), emu.control.countMessages({ q })]);
      expect(count.data.count).toBe(list.data.messages.length);
      return list.data.messages.some((m) => m.id === id);
    };
    // The largest N that larger:N finds is one byte under the size, found by searching alone.
    const sizeBySearch = async () => {
      let low = 0;
      let high = 1024 * 1024;
      while (high - low > 1) {
        const mid = Math.floor((low + high) / 2);
        if (await finds(`larger:${mid}`)) low = mid;
        else high = mid;
      }
      return high;
    };

    const before = await sizeBySearch();
    expect(await finds(`smaller:${before + 1}`)).toBe(true);
    expect(await finds(`smaller:${before}`)).toBe(false);
    // Searching measured it without storing it: the copy is still its recipe.
    expect(storedContent(id).recipe).not.toBeNull();

    const raw = await bytes(`/emulator/messages/${id}/raw`);
    expect(before).toBe(raw.length);
    // Read once, its size is stored with it, the same.
    expect(storedContent(id).recipe).toBeNull();
    expect(await sizeBySearch()).toBe(raw.length);
  });
});
