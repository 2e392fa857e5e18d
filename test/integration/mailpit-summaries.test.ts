import { join } from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * Mailpit's list and search summaries come from what the search indexer stored with each copy
 * (migration 0038), never from reading the message again: they must say what the message's own
 * detail says, and a copy stored before the summaries were kept gets its summary once, on listing.
 */
let emu: TestEmulator;

async function json<T>(path: string): Promise<T> {
  const res = await fetch(emu.url + path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

interface Summary {
  ID: string;
  MessageID: string;
  From: unknown;
  To: unknown;
  Cc: unknown;
  ReplyTo: unknown;
  Subject: string;
  Size: number;
  Attachments: number;
  Snippet: string;
}

/** Every copy is in the index (a search by words answers what waits). */
async function indexed(): Promise<void> {
  while (((await emu.control.countMessages({ q: 'summary' })).data.index_pending ?? 0) > 0) await new Promise((r) => setTimeout(r, 50));
}

const listed = async () => (await json<{ messages: Summary[] }>('/api/v1/messages?limit=50')).messages;

beforeAll(async () => {
  emu = await startEmulator();
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });
  await smtp.sendMail({
    from: '"Shop, Inc." <shop@example.com>',
    to: 'Ann <ann@example.com>, bob@example.com',
    cc: 'Audit <audit@example.com>',
    replyTo: 'Help <help@example.com>',
    subject: 'Résumé summary ✓',
    text: 'Plain   summary\n\nwith lines',
    html: '<p>HTML summary</p>',
    attachments: [
      { filename: 'a.txt', content: 'a' },
      { filename: 'logo.png', content: 'png', cid: 'logo@shop' },
    ],
  });
  await smtp.sendMail({
    from: 'shop@example.com',
    to: 'cy@example.com',
    subject: 'HTML only summary',
    html: '<style>p{}</style><p>Only&nbsp;<b>HTML</b> summary</p>',
  });
  await emu.service.sendEmail({
    from: { email: 'app@example.com', name: 'App' },
    to: [{ email: 'dee@example.com' }, { email: 'eve@example.com', name: 'Eve' }],
    replyTo: 'support@example.com',
    subject: 'API summary',
    content: [{ type: 'text/plain', value: 'Sent through the API, summary' }],
    attachments: [{ filename: 'terms.txt', content: Buffer.from('terms').toString('base64') }],
  });
  await indexed();
});

afterAll(() => emu.cleanup());

describe("Mailpit's stored summaries", () => {
  it('say what each message detail says', async () => {
    const messages = await listed();
    expect(messages).toHaveLength(6);
    for (const s of messages) {
      const detail = await json<Summary & { Text: string; HTML: string; Attachments: unknown[] }>(`/api/v1/message/${s.ID}`);
      expect(s, s.Subject).toMatchObject({
        MessageID: detail.MessageID,
        From: detail.From,
        To: detail.To,
        Cc: detail.Cc,
        ReplyTo: detail.ReplyTo,
        Subject: detail.Subject,
        Size: detail.Size,
        Attachments: detail.Attachments.length,
      });
      expect(s.Snippet, s.Subject).toBe(
        (detail.Text || detail.HTML.replace(/<style[\s\S]*?<\/style>|<[^>]*>/g, ' ').replace(/&nbsp;/g, ' ')).replace(/\s+/g, ' ').trim(),
      );
    }
    const first = messages.find((m) => m.Subject === 'Résumé summary ✓')!;
    expect(first).toMatchObject({
      From: { Name: 'Shop, Inc.', Address: 'shop@example.com' },
      Cc: [{ Name: 'Audit', Address: 'audit@example.com' }],
      Attachments: 1,
      Snippet: 'Plain summary with lines',
    });
    const searched = await json<{ messages: Summary[] }>('/api/v1/search?query=summary');
    expect(searched.messages).toEqual(await listed());
  });

  it('of copies stored before they were kept are made once when listed, the same', async () => {
    const before = await listed();
    await emu.stop();
    const db = new Database(join(emu.dataDir, DATABASE_FILE));
    expect(db.prepare('DELETE FROM mailpit_summaries').run().changes).toBe(6);
    db.close();
    emu = await startEmulator({}, {}, emu.dataDir);
    expect(await listed()).toEqual(before);
    await emu.stop();
    const after = new Database(join(emu.dataDir, DATABASE_FILE), { readonly: true });
    expect(after.prepare('SELECT COUNT(*) AS n FROM mailpit_summaries').get()).toEqual({ n: 6 });
    after.close();
    emu = await startEmulator({}, {}, emu.dataDir);
  });
});
