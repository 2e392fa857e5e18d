import { afterEach, describe, expect, it } from 'vitest';
import { InboundPayload } from '../../src-shared/schemas/inbound';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { whenIndexed } from '../helpers/search';
import { RawSmtpClient } from '../helpers/smtp-client';

let emu: TestEmulator | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  await emu?.cleanup();
  await receiver?.close();
  emu = undefined;
  receiver = undefined;
});

/** Sends one raw message over a real SMTP session; answers the reply to its DATA. */
async function sendRaw(e: TestEmulator, recipient: string, message: string) {
  const { client } = await RawSmtpClient.open(e.handle.ports.smtp!);
  try {
    expect((await client.command('EHLO client.test')).code).toBe(250);
    expect((await client.command('MAIL FROM:<app@example.com>')).code).toBe(250);
    expect((await client.command(`RCPT TO:<${recipient}>`)).code).toBe(250);
    return await client.data(message);
  } finally {
    client.close();
  }
}

async function onlyMessage(e: TestEmulator) {
  const list = await e.request('GET', '/emulator/messages?limit=10');
  expect(list.status, list.text).toBe(200);
  expect(list.json.data.messages).toHaveLength(1);
  return list.json.data.messages[0] as { id: string; subject: string; recipient_type: string };
}

/** The ids the search box finds for a word. */
async function found(e: TestEmulator, word: string): Promise<string[]> {
  const res = await whenIndexed(() => e.request('GET', `/emulator/messages?q=${encodeURIComponent(word)}`).then((r) => ({ ...r, data: r.json.data })));
  expect(res.status, res.text).toBe(200);
  return (res.json.data.messages as Array<{ id: string }>).map((m) => m.id);
}

/** A multipart message with a text part and `parts - 1` small attachments. */
function manyParts(parts: number, word: string): string {
  const head =
    'From: App <app@example.com>\r\nTo: ann@example.org\r\nSubject: Many parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n';
  let body = `--b\r\nContent-Type: text/plain\r\n\r\nThe body says ${word} first.\r\n`;
  for (let i = 1; i < parts; i++)
    body += `--b\r\nContent-Type: text/plain; name="p${i}.txt"\r\nContent-Disposition: attachment; filename="p${i}.txt"\r\n\r\npart ${i}\r\n`;
  return `${head}${body}--b--\r\n`;
}

describe('SMTP sink: messages over mailparser limits are shown and indexed, never answered 500', () => {
  it('a message of 1,200 MIME parts: detail 200 with every part, a note of the problem, and its body found by the search', async () => {
    emu = await startEmulator();
    expect((await sendRaw(emu, 'ann@example.org', manyParts(1200, 'zephyrwordone'))).code).toBe(250);
    const m = await onlyMessage(emu);
    const detail = await emu.request('GET', `/emulator/messages/${m.id}`);
    expect(detail.status, detail.text.slice(0, 300)).toBe(200);
    const d = detail.json.data;
    expect(d.subject).toBe('Many parts');
    expect(d.text).toContain('zephyrwordone');
    expect(d.attachments).toHaveLength(1199);
    expect(d.attachments[1198]).toMatchObject({ filename: 'p1199.txt', size: 'part 1199'.length });
    expect(d.parse_problem).toMatch(/child nodes/i);
    expect(d.parse_problem).toMatch(/raised limits/);
    expect(await found(emu, 'zephyrwordone')).toEqual([m.id]);
    // The attachments of such a message download too.
    const download = await fetch(`${emu.url}/emulator/messages/${m.id}/attachments/1198`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('part 1199');
  });

  it('a message with a 1 MB header line: detail 200 with the header, its body, a note, and the body indexed', async () => {
    emu = await startEmulator();
    const long = 'x'.repeat(1024 * 1024 + 10);
    const message = `From: App <app@example.com>\r\nTo: ann@example.org\r\nSubject: Long header\r\nX-Long: ${long}\r\n\r\nBody word quokkaword here.\r\n`;
    expect((await sendRaw(emu, 'ann@example.org', message)).code).toBe(250);
    const m = await onlyMessage(emu);
    expect(m.subject).toBe('Long header');
    const detail = await emu.request('GET', `/emulator/messages/${m.id}`);
    expect(detail.status, detail.text.slice(0, 300)).toBe(200);
    const d = detail.json.data;
    expect(d.parse_problem).toMatch(/header size/i);
    expect(d.text).toContain('quokkaword');
    expect(d.headers.find((h: { name: string }) => h.name === 'X-Long')?.value).toHaveLength(long.length);
    expect(await found(emu, 'quokkaword')).toEqual([m.id]);
    // A message that parses answers no problem.
    expect((await sendRaw(emu, 'bob@example.org', 'From: a@example.com\r\nSubject: fine\r\n\r\nok\r\n')).code).toBe(250);
    const [fine] = await found(emu, 'fine');
    expect((await emu.request('GET', `/emulator/messages/${fine}`)).json.data.parse_problem).toBeNull();
  });

  it('a message even the raised limits refuse (12,000 parts): its headers and raw body, a note, and its text indexed', async () => {
    emu = await startEmulator();
    expect((await sendRaw(emu, 'ann@example.org', manyParts(12_000, 'narwhalword'))).code).toBe(250);
    const m = await onlyMessage(emu);
    const detail = await emu.request('GET', `/emulator/messages/${m.id}`);
    expect(detail.status, detail.text.slice(0, 300)).toBe(200);
    const d = detail.json.data;
    expect(d.parse_problem).toMatch(/raw body/);
    expect(d.headers.find((h: { name: string }) => h.name === 'Subject')?.value).toBe('Many parts');
    expect(d.text).toContain('The body says narwhalword first.');
    expect(d.attachments).toEqual([]);
    expect(await found(emu, 'narwhalword')).toEqual([m.id]);
    // The preview and the raw source answer too.
    expect((await fetch(`${emu.url}/emulator/messages/${m.id}/raw`)).status).toBe(200);
  });
});

describe('SMTP sink: inbound routing of a message over mailparser limits', () => {
  it('a 1,200-part message to an inbound-routed domain is taken (250) and posted with its parts, not refused 451 for good', async () => {
    receiver = await startReceiver();
    emu = await startEmulator();
    await emu.service.configureInboundRouting({ domain: 'in.example.com', url: receiver.url, method: 'POST', wildcard: true });
    const reply = await sendRaw(emu, 'support@in.example.com', manyParts(1200, 'inboundword'));
    expect(reply.code, reply.text).toBe(250);
    const [post] = await receiver.waitFor(1);
    const payload = InboundPayload.parse(JSON.parse(post!.body));
    expect(payload).toMatchObject({ subject: 'Many parts', recipient: 'support@in.example.com', from: { email: 'app@example.com', name: 'App' } });
    expect(payload.text).toContain('inboundword');
    expect(payload.attachments).toHaveLength(1199);
    expect(Buffer.from(payload.attachments[1198]!.content, 'base64').toString()).toBe('part 1199');
  });
});

describe('SMTP sink: headers are read however long the ones before them are', () => {
  it('a To: of 388 KB does not hide the Subject: after it', async () => {
    emu = await startEmulator();
    const to = `${Array.from({ length: 21_000 }, (_, i) => `r${i}@example.org`).join(', ')}, Ann <ann@example.org>`;
    expect(to.length).toBeGreaterThan(388 * 1024);
    const message = `From: App <app@example.com>\r\nTo: ${to}\r\nX-Mailyard-Campaign-Id: after-the-to\r\nSubject: Found after a long To\r\n\r\nHello\r\n`;
    expect((await sendRaw(emu, 'ann@example.org', message)).code).toBe(250);
    const m = await onlyMessage(emu);
    expect(m.subject).toBe('Found after a long To');
    expect(m.recipient_type).toBe('to');
    expect((m as unknown as { campaign_id: string }).campaign_id).toBe('after-the-to');
    const detail = await emu.request('GET', `/emulator/messages/${m.id}`);
    expect(detail.status).toBe(200);
    expect(detail.json.data.subject).toBe('Found after a long To');
  });
});
