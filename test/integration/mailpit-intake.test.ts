import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * What Mailpit does to a message as it takes it in, and what its API then shows: `X-Tags` tag it, a
 * message without Message-ID gets one (and nothing else changes), an attachment whose name is only
 * format characters is still listed; and its 404s are Mailpit's words.
 */
let emu: TestEmulator;
let smtp: ReturnType<typeof nodemailer.createTransport>;

async function json<T>(path: string): Promise<T> {
  const res = await fetch(emu.url + path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

/** Sends raw bytes over SMTP exactly as given, and answers the Mailpit ID of the copy to `to`. */
async function sendRaw(raw: string, to: string): Promise<string> {
  await smtp.sendMail({ envelope: { from: 'app@example.com', to }, raw });
  const page = await json<{ messages: Array<{ ID: string }> }>(`/api/v1/search?query=${encodeURIComponent(`to:${to}`)}`);
  expect(page.messages).toHaveLength(1);
  return page.messages[0]!.ID;
}

beforeAll(async () => {
  emu = await startEmulator();
  smtp = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });
});

afterAll(() => emu.cleanup());

describe('Mailpit intake', () => {
  it('tags a message with its X-Tags header, cleaned as Mailpit cleans tags', async () => {
    await smtp.sendMail({
      from: 'app@example.com',
      to: 'ann@example.com, bob@example.com',
      subject: 'Tagged',
      text: 'x',
      headers: { 'X-Tags': 'alpha, beta' },
    });
    await smtp.sendMail({ from: 'app@example.com', to: 'cy@example.com', subject: 'Messy', text: 'x', headers: { 'X-Tags': ' Gamma ,gamma,, x/y ' } });
    const tagged = await json<{ messages: Array<{ Subject: string; Tags: string[] }> }>('/api/v1/search?query=tag:alpha');
    expect(tagged.messages.map((m) => [m.Subject, m.Tags])).toEqual([
      ['Tagged', ['alpha', 'beta']],
      ['Tagged', ['alpha', 'beta']],
    ]);
    const messy = await json<{ messages: Array<{ Tags: string[] }> }>('/api/v1/search?query=subject:Messy');
    expect(messy.messages[0]!.Tags).toEqual(['Gamma', 'x y']);
    expect((await json<string[]>('/api/v1/tags')).sort()).toEqual(['Gamma', 'alpha', 'beta', 'x y']);
  });

  it('tags a /v1 send by an X-Tags among its headers, as SMTP mail', async () => {
    await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'dan@example.com' }],
      cc: [{ email: 'eve@example.com' }],
      subject: 'API tagged',
      content: [{ type: 'text/plain', value: 'x' }],
      headers: { 'x-tags': 'Welcome, beta,  welcome ' },
    } as never);
    const tagged = await json<{ messages: Array<{ Tags: string[] }> }>('/api/v1/search?query=subject:"API tagged"');
    expect(tagged.messages.map((m) => m.Tags)).toEqual([
      ['beta', 'Welcome'],
      ['beta', 'Welcome'],
    ]);
  });

  it('tags by plus-addresses only with --tags-plus-addresses (the simulator addresses use + too)', async () => {
    const mail = { from: 'app+shop@example.com', to: 'ann+promo+spring@example.com', bcc: 'audit+log@example.com', subject: 'Plus', text: 'x' };
    await smtp.sendMail(mail);
    const plain = await json<{ messages: Array<{ Tags: string[] }> }>('/api/v1/search?query=subject:Plus');
    expect(plain.messages.map((m) => m.Tags)).toEqual([[], []]);
    const tagging = await startEmulator({ tagsPlusAddresses: true });
    try {
      await nodemailer.createTransport({ host: '127.0.0.1', port: tagging.handle.ports.smtp!, secure: false, ignoreTLS: true }).sendMail(mail);
      const page = (await (await fetch(`${tagging.url}/api/v1/messages`)).json()) as { messages: Array<{ Tags: string[] }> };
      expect(page.messages.map((m) => m.Tags)).toEqual([
        ['log', 'promo', 'shop', 'spring'],
        ['log', 'promo', 'shop', 'spring'],
      ]);
    } finally {
      await tagging.cleanup();
    }
  });

  it('gives a message without Message-ID one, its bytes otherwise as sent', async () => {
    const raw = 'From: app@example.com\r\nTo: noid@example.com\r\nSubject: No id\r\n\r\nHello\r\n';
    const id = await sendRaw(raw, 'noid@example.com');
    const msg = await json<{ MessageID: string }>(`/api/v1/message/${id}`);
    expect(msg.MessageID).toMatch(/^[0-9a-f]{32}@mailyard\.local$/);
    const stored = await (await fetch(`${emu.url}/api/v1/message/${id}/raw`)).text();
    expect(stored).toBe(`Message-ID: <${msg.MessageID}>\r\n${raw}`);
    // A message that has one keeps it, byte for byte.
    const withId = 'From: app@example.com\r\nTo: hasid@example.com\r\nMessage-ID: <mine@app.test>\r\nSubject: Has id\r\n\r\nHello\r\n';
    const kept = await sendRaw(withId, 'hasid@example.com');
    expect(await (await fetch(`${emu.url}/api/v1/message/${kept}/raw`)).text()).toBe(withId);
    // A large one arrives in many chunks: the line goes before them, the rest byte for byte.
    const large = `From: app@example.com\r\nTo: bignoid@example.com\r\nSubject: Big, no id\r\n\r\n${'0123456789abcdef'.repeat(4).concat('\r\n').repeat(6000)}`;
    const bigId = await sendRaw(large, 'bignoid@example.com');
    const big = await json<{ MessageID: string }>(`/api/v1/message/${bigId}`);
    expect(await (await fetch(`${emu.url}/api/v1/message/${bigId}/raw`)).text()).toBe(`Message-ID: <${big.MessageID}>\r\n${large}`);
  });

  it('lists an attachment whose name is only format characters, as /emulator does', async () => {
    const raw = [
      'From: app@example.com',
      'To: hidden@example.com',
      'Subject: Hidden attachment',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'See the file.',
      '--b',
      'Content-Type: application/octet-stream',
      "Content-Disposition: attachment; filename*=utf-8''%E2%80%AE%E2%80%8B",
      '',
      'secret',
      '--b--',
      '',
    ].join('\r\n');
    const id = await sendRaw(raw, 'hidden@example.com');
    const msg = await json<{ Attachments: Array<{ FileName: string; PartID: string }> }>(`/api/v1/message/${id}`);
    const native = await json<{ data: { attachments: Array<{ filename: string }> } }>(`/emulator/messages/${id}`);
    expect(msg.Attachments.map((a) => a.FileName)).toEqual(native.data.attachments.map((a) => a.filename));
    expect(msg.Attachments).toHaveLength(1);
    const part = await fetch(`${emu.url}/api/v1/message/${id}/part/${msg.Attachments[0]!.PartID}`);
    expect(await part.text()).toBe('secret');
    const listed = await json<{ messages: Array<{ Attachments: number }> }>('/api/v1/search?query=to:hidden@example.com');
    expect(listed.messages[0]!.Attachments).toBe(1);
  });

  it("answers Mailpit's plain-text 404 where its clients read it: a path none of its routes takes, a message that is not there", async () => {
    const id = await sendRaw('From: app@example.com\r\nTo: view@example.com\r\nSubject: View\r\n\r\nHello\r\n', 'view@example.com');
    for (const path of [`/view/${id}.html%00`, `/view/${id}.txt%00`, '/api/v1/nothing']) {
      const res = await fetch(emu.url + path, { headers: { accept: 'text/html' } });
      expect([res.status, res.headers.get('content-type'), await res.text()], path).toEqual([404, 'text/plain; charset=utf-8', '404 page not found\n']);
    }
    for (const path of ['/view/01NOSUCHMESSAGE.html', `/view/${id}.html`, '/api/v1/message/01NOSUCHMESSAGE', `/api/v1/message/${id}/part/9`]) {
      const res = await fetch(emu.url + path);
      expect([res.status, res.headers.get('content-type'), await res.text()], path).toEqual([404, 'text/plain; charset=utf-8', '404 page not found']);
    }
    // Mailyard's own API keeps its JSON error body.
    expect((await fetch(`${emu.url}/emulator/nothing`)).headers.get('content-type')).toMatch(/^application\/json/);
  });
});
