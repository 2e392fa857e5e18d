import { randomBytes } from 'node:crypto';
import { MailpitClient } from 'mailpit-api';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type RelayTarget, startRelayTarget } from '../helpers/relay-target';

/**
 * Mailpit's API as a QA team's tests call it: through the real `mailpit-api` client (2.x), pointed at
 * the emulator's URL with the control key as its basic-auth password. Every method of the client is
 * called here; those whose feature Mailyard does not have must fail as Mailpit fails with it off.
 */
const KEY = 'mailpit-test-key';
let emu: TestEmulator;
let mailpit: MailpitClient;

const pdf = randomBytes(3_000);
const png = randomBytes(500);

async function send(subject: string, extra: Record<string, unknown> = {}) {
  return emu.service.sendEmail({
    from: { email: 'app@example.com', name: 'The App' },
    to: [{ email: 'ann@example.com', name: 'Ann' }],
    subject,
    content: [
      { type: 'text/plain', value: `Hello Ann, your code is 424242 (${subject})` },
      {
        type: 'text/html',
        value: `<p style="display:flex">Hello <b>Ann</b> <a href="https://example.com/reset">reset</a> <img src="cid:logo@app"></p>`,
      },
    ],
    ...extra,
  });
}

const subjects = (page: { messages: Array<{ Subject: string }> }) => page.messages.map((m) => m.Subject);

beforeAll(async () => {
  emu = await startEmulator({ controlKey: KEY });
  mailpit = new MailpitClient(emu.url, { auth: { username: 'qa', password: KEY } });
});
afterAll(() => emu.cleanup());
beforeEach(async () => {
  await mailpit.deleteMessages();
});

describe("Mailpit's API through the mailpit-api client", () => {
  it('getInfo and getConfiguration answer Mailpit shapes; the chaos triggers fail as in Mailpit with chaos off', async () => {
    await send('one');
    const info = await mailpit.getInfo();
    expect(info).toMatchObject({ Messages: 1, Unread: 1, Tags: {}, RuntimeStats: expect.objectContaining({ Uptime: expect.any(Number) }) });
    expect(info.Version).toMatch(/mailyard/);
    const config = await mailpit.getConfiguration();
    expect(config).toMatchObject({ ChaosEnabled: false, MessageRelay: { Enabled: false }, SpamAssassin: true });
    await expect(mailpit.getChaosTriggers()).rejects.toThrow(/400 Bad Request at GET .*\/api\/v1\/chaos: Chaos is not enabled$/);
    await expect(mailpit.setChaosTriggers({ Sender: { ErrorCode: 451, Probability: 5 } })).rejects.toThrow(/400 .*Chaos is not enabled$/);
  });

  it('listMessages pages newest first with counts; searchMessages speaks the search language', async () => {
    for (const s of ['first', 'second', 'third']) await send(s);
    await send('welcome aboard', { to: [{ email: 'bob@example.com', name: 'Bob' }] });
    const page = await mailpit.listMessages();
    expect(page).toMatchObject({ total: 4, unread: 4, messages_count: 4, messages_unread: 4, start: 0, count: 4, tags: [] });
    expect(subjects(page)).toEqual(['welcome aboard', 'third', 'second', 'first']);
    expect(page.messages[1]).toMatchObject({
      Read: false,
      From: { Name: 'The App', Address: 'app@example.com' },
      To: [{ Name: 'Ann', Address: 'ann@example.com' }],
      Cc: [],
      Bcc: [],
      ReplyTo: [],
      Tags: [],
      Attachments: 0,
      Snippet: 'Hello Ann, your code is 424242 (third)',
    });
    expect(subjects(await mailpit.listMessages(2, 1))).toEqual(['second']);
    const found = await mailpit.searchMessages({ query: 'to:bob@example.com' });
    expect(subjects(found)).toEqual(['welcome aboard']);
    expect(found).toMatchObject({ messages_count: 1, messages_unread: 1, total: 4 });
    expect((await mailpit.searchMessages({ query: 'subject:second', start: 0, limit: 10, tz: 'Europe/Paris' })).messages_count).toBe(1);
    await expect(mailpit.searchMessages({ query: '' })).rejects.toThrow(/400 .*: Error: no search query$/);
    await expect(mailpit.listMessages(0, 5000)).rejects.toThrow(/400 .*limit must be at most 1000/);
  });

  it("searchMessages finds by Mailpit's larger:, smaller:, reply-to: and addressed:, sizes compared with the Size it answers", async () => {
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });
    await smtp.sendMail({
      from: 'The App <app@example.com>',
      to: 'ann@example.com',
      replyTo: 'Help Desk <help@app.test>',
      subject: 'with a file',
      text: 'attached',
      attachments: [{ filename: 'data.bin', content: randomBytes(20 * 1024) }],
    });
    await smtp.sendMail({ from: 'The App <app@example.com>', to: 'bob@example.com', subject: 'plain', text: 'hi' });

    const [withFile] = (await mailpit.searchMessages({ query: 'reply-to:help@app.test' })).messages;
    expect(withFile).toMatchObject({ Subject: 'with a file', ReplyTo: [{ Name: 'Help Desk', Address: 'help@app.test' }], Attachments: 1 });
    const size = withFile!.Size;
    expect(subjects(await mailpit.searchMessages({ query: 'larger:20k' }))).toEqual(['with a file']);
    expect(subjects(await mailpit.searchMessages({ query: 'smaller:20K' }))).toEqual(['plain']);
    expect(subjects(await mailpit.searchMessages({ query: `larger:${size - 1}` }))).toEqual(['with a file']);
    expect(subjects(await mailpit.searchMessages({ query: `larger:${size}` }))).toEqual([]);
    expect(subjects(await mailpit.searchMessages({ query: `!smaller:${size + 1}` }))).toEqual([]);
    expect(subjects(await mailpit.searchMessages({ query: 'addressed:help@app.test' }))).toEqual(['with a file']);
    expect(subjects(await mailpit.searchMessages({ query: 'addressed:bob@example.com' }))).toEqual(['plain']);
    expect(subjects(await mailpit.searchMessages({ query: '-reply-to:"help desk"' }))).toEqual(['plain']);
    expect((await mailpit.searchMessages({ query: 'addressed:app@example.com' })).messages_count).toBe(2);
  });

  it('getMessageSummary by id and latest (marking it read), headers, source, attachments by PartID, thumbnails, and the renderings', async () => {
    await send('older');
    await send('with files', {
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64'), type: 'application/pdf' },
        { filename: 'logo.png', content: png.toString('base64'), type: 'image/png', disposition: 'inline', content_id: 'logo@app' },
      ],
    });
    const msg = await mailpit.getMessageSummary();
    expect(msg).toMatchObject({ Subject: 'with files', From: { Address: 'app@example.com', Name: 'The App' }, Tags: [], Bcc: [] });
    expect(msg.Text).toContain('424242');
    expect(msg.HTML).toContain('<b>Ann</b>');
    expect(msg.Attachments).toEqual([expect.objectContaining({ FileName: 'invoice.pdf', ContentType: 'application/pdf', Size: pdf.length })]);
    expect(msg.Inline).toEqual([expect.objectContaining({ FileName: 'logo.png', ContentID: 'logo@app' })]);
    expect((await mailpit.getInfo()).Unread).toBe(1);
    expect((await mailpit.getMessageSummary(msg.ID)).ID).toBe(msg.ID);

    const blob = await mailpit.getMessageAttachment(msg.ID, msg.Attachments[0]!.PartID);
    expect(blob.type).toBe('application/pdf');
    expect(Buffer.from(await blob.arrayBuffer()).equals(pdf)).toBe(true);
    await expect(mailpit.getMessageAttachment(msg.ID, '9.9')).rejects.toThrow(/404/);
    const thumb = await mailpit.getAttachmentThumbnail(msg.ID, msg.Inline[0]!.PartID);
    expect(thumb.type).toBe('image/jpeg');
    const jpeg = Buffer.from(await thumb.arrayBuffer());
    expect([jpeg[0], jpeg[1], jpeg.at(-2), jpeg.at(-1)]).toEqual([0xff, 0xd8, 0xff, 0xd9]);
    await expect(mailpit.getAttachmentThumbnail(msg.ID, '9.9')).rejects.toThrow(/404/);

    const headers = await mailpit.getMessageHeaders();
    expect(headers.Subject).toEqual(['with files']);
    expect(headers['Message-Id']).toHaveLength(1);
    expect(await mailpit.getMessageSource(msg.ID)).toMatch(/^[\s\S]*Subject: with files/);
    expect(await mailpit.renderMessageHTML(msg.ID)).toContain('<b>Ann</b>');
    expect(await mailpit.renderMessageText()).toContain('your code is 424242 (with files)');
    await expect(mailpit.getMessageSummary('01NOSUCHMESSAGE')).rejects.toThrow(/404/);
  });

  it('the checks: htmlCheck in Mailpit shape from caniemail data, linkCheck without fetching, spamAssassinCheck answering', async () => {
    await send('checked');
    const html = await mailpit.htmlCheck();
    const flex = html.Warnings.find((w) => w.Title === 'display:flex');
    expect(flex).toMatchObject({ Category: 'css', Slug: 'display-flex', URL: expect.stringContaining('caniemail.com') });
    expect(flex!.Results).toContainEqual(expect.objectContaining({ Family: 'outlook', Platform: 'windows', Support: 'no' }));
    expect(flex!.Score.Unsupported).toBeGreaterThan(0);
    expect(html.Total.Nodes).toBeGreaterThan(0);
    expect(html.Total.Unsupported).toBeGreaterThan(0);
    expect(html.Platforms.windows).toContain('Outlook');
    const links = await mailpit.linkCheck('latest', true);
    expect(links.Links).toEqual([expect.objectContaining({ URL: 'https://example.com/reset', StatusCode: 0 })]);
    const spam = await mailpit.spamAssassinCheck();
    expect(spam).toEqual(expect.objectContaining({ IsSpam: expect.any(Boolean), Score: expect.any(Number) }));

    await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.com' }],
      subject: 'text only',
      content: [{ type: 'text/plain', value: 'no HTML here' }],
    });
    await expect(mailpit.htmlCheck()).rejects.toThrow(/400 .*: message does not contain HTML$/);
  });

  it('sendMessage captures a message as the SMTP sink does; waitForMessage and waitForMessages find it', async () => {
    const sent = await mailpit.sendMessage({
      From: { Email: 'shop@example.com', Name: 'Shop' },
      To: [{ Email: 'ann@example.com', Name: 'Ann' }],
      Cc: [{ Email: 'cc@example.com' }],
      Bcc: ['audit@example.com'],
      ReplyTo: [{ Email: 'help@example.com' }],
      Subject: 'Welcome',
      Text: 'Welcome, Ann',
      HTML: '<p>Welcome, <b>Ann</b></p>',
      Headers: { 'X-Campaign': 'spring' },
      Tags: ['signup'],
      Attachments: [{ Filename: 'terms.pdf', Content: pdf.toString('base64'), ContentType: 'application/pdf' }],
    });
    expect(sent.ID).toMatch(/\S/);
    const msg = await mailpit.waitForMessage({ query: 'subject:Welcome' }, { timeout: 5000, interval: 50 });
    expect(msg).toMatchObject({
      From: { Address: 'shop@example.com', Name: 'Shop' },
      To: [{ Address: 'ann@example.com', Name: 'Ann' }],
      Cc: [{ Address: 'cc@example.com', Name: '' }],
      ReplyTo: [{ Address: 'help@example.com', Name: '' }],
      Text: 'Welcome, Ann',
      Tags: ['signup'],
    });
    expect(msg.HTML).toContain('<b>Ann</b>');
    expect(msg.Attachments).toEqual([expect.objectContaining({ FileName: 'terms.pdf', Size: pdf.length })]);
    // One copy per recipient (docs/mailpit.md): the answered ID is the first To's.
    const byId = await mailpit.getMessageSummary(sent.ID);
    expect([byId.Subject, byId.To[0]!.Address]).toEqual(['Welcome', 'ann@example.com']);
    expect((await mailpit.getMessageHeaders(sent.ID))['X-Campaign']).toEqual(['spring']);
    const copies = await mailpit.waitForMessages({ query: 'tag:signup', count: 3, exact: true }, { timeout: 5000, interval: 50 });
    expect(copies.messages.map((m) => m.Bcc.map((b) => b.Address))).toContainEqual(['audit@example.com']);
    expect((await mailpit.waitForMessages({ timeout: 5000, interval: 50 })).messages_count).toBe(3);

    // Mailpit's refusals, in its words (the send's as JSON {Error}).
    await expect(mailpit.sendMessage({ From: { Email: 'shop@example.com' }, To: [{ Email: 'not an address' }] })).rejects.toThrow(
      /400 .*: \{"Error":"invalid To address: not an address"\}$/,
    );
    await expect(mailpit.sendMessage({ From: { Email: 'shop@example.com' }, To: [{ Email: 'a@example.com' }], Headers: { Subject: 'x' } })).rejects.toThrow(
      /cannot overwrite header: \\"Subject\\"/,
    );
    await expect(
      mailpit.sendMessage({ From: { Email: 'shop@example.com' }, To: [{ Email: 'a@example.com' }], Attachments: [{ Filename: 'x.bin', Content: '%%%' }] }),
    ).rejects.toThrow(/error decoding base64 attachment \\"x.bin\\"/);
  });

  it('setReadStatus by IDs, by search, and all; is:read and is:unread', async () => {
    await send('alpha');
    await send('beta');
    const [beta, alpha] = (await mailpit.listMessages()).messages;
    expect(await mailpit.setReadStatus({ IDs: [alpha!.ID], Read: true })).toBe('ok');
    expect((await mailpit.searchMessages({ query: 'is:read' })).messages.map((m) => m.ID)).toEqual([alpha!.ID]);
    expect((await mailpit.searchMessages({ query: 'is:unread' })).messages.map((m) => m.ID)).toEqual([beta!.ID]);
    await mailpit.setReadStatus({ Search: 'subject:beta', Read: true }, { tz: 'UTC' });
    expect((await mailpit.getInfo()).Unread).toBe(0);
    // The client's default: every message unread.
    await mailpit.setReadStatus();
    expect((await mailpit.listMessages()).unread).toBe(2);
    await expect(mailpit.setReadStatus({ IDs: [alpha!.ID], Search: 'x' })).rejects.toThrow(/You may specify either IDs or a search query, not both/);
  });

  it('setTags, getTags, tag: in search, renameTag, deleteTag', async () => {
    await send('tagged one');
    await send('tagged two');
    const [two, one] = (await mailpit.listMessages()).messages;
    expect(await mailpit.setTags({ IDs: [one!.ID, two!.ID], Tags: ['Signup', 'urgent'] })).toBe('ok');
    await mailpit.setTags({ IDs: [two!.ID], Tags: ['urgent'] });
    expect(await mailpit.getTags()).toEqual(['Signup', 'urgent']);
    expect((await mailpit.getInfo()).Tags).toEqual({ Signup: 1, urgent: 2 });
    const signup = await mailpit.searchMessages({ query: 'tag:signup' });
    expect(signup.messages.map((m) => [m.ID, m.Tags])).toEqual([[one!.ID, ['Signup', 'urgent']]]);
    expect(await mailpit.renameTag('urgent', 'later')).toBe('ok');
    expect(await mailpit.getTags()).toEqual(['later', 'Signup']);
    expect(await mailpit.deleteTag('Signup')).toBe('ok');
    expect((await mailpit.getMessageSummary(one!.ID)).Tags).toEqual(['later']);
    await mailpit.setTags({ IDs: [one!.ID] });
    expect((await mailpit.getMessageSummary(one!.ID)).Tags).toEqual([]);
    await expect(mailpit.setTags({ IDs: [one!.ID], Tags: [' '] })).rejects.toThrow(/400/);
  });

  it('deleteMessages by IDs and all; deleteMessagesBySearch', async () => {
    await send('keep me');
    await send('drop by id');
    await send('drop by search');
    const list = (await mailpit.listMessages()).messages;
    const byId = list.find((m) => m.Subject === 'drop by id')!;
    expect(await mailpit.deleteMessages({ IDs: [byId.ID] })).toBe('ok');
    expect(await mailpit.deleteMessagesBySearch({ query: 'subject:search' })).toBe('ok');
    expect(subjects(await mailpit.listMessages())).toEqual(['keep me']);
    await expect(mailpit.deleteMessagesBySearch({ query: '' })).rejects.toThrow(/400/);
    await mailpit.deleteMessages();
    expect((await mailpit.listMessages()).total).toBe(0);
    await expect(mailpit.getMessageSummary()).rejects.toThrow(/404/);
  });

  it('takes the control key as basic auth (the password) or a bearer header; refuses without it', async () => {
    await expect(new MailpitClient(emu.url).getInfo()).rejects.toThrow(/401/);
    await expect(new MailpitClient(emu.url, { auth: { username: 'qa', password: 'wrong' } }).getInfo()).rejects.toThrow(/401/);
    const bearer = new MailpitClient(emu.url, { fetchOptions: { headers: { authorization: `Bearer ${KEY}` } } });
    expect((await bearer.getInfo()).Version).toMatch(/mailyard/);
  });
});

describe("Mailpit's release through the account's SMTP mailer", () => {
  let target: RelayTarget;
  beforeAll(async () => {
    target = await startRelayTarget({ user: 'relay-user', pass: 'relay-pass-123' });
  });
  afterAll(() => target.close());

  it('releaseMessage answers as Mailpit with relay off until the account has one SMTP mailer, then sends byte for byte', async () => {
    await send('release me');
    const msg = await mailpit.getMessageSummary();
    await expect(mailpit.releaseMessage(msg.ID, { To: ['qa@example.org'] })).rejects.toThrow(/400 .*: SMTP relay is not configured/);

    const smtp = (port: number) => ({
      name: 'Relay',
      email: 'app@example.com',
      config_type: 'smtp',
      connection_type: 'basic',
      config: { host: '127.0.0.1', port, username: 'relay-user', password: 'relay-pass-123', secure: 'None' },
    });
    const mailer = (await emu.service.configureSMTP(smtp(target.port) as never)).data;
    expect((await mailpit.getConfiguration()).MessageRelay).toMatchObject({ Enabled: true, SMTPServer: `127.0.0.1:${target.port}` });
    await expect(mailpit.releaseMessage(msg.ID, { To: [] })).rejects.toThrow(/400 .*: No valid addresses found$/);
    await expect(mailpit.releaseMessage(msg.ID, { To: ['nope'] })).rejects.toThrow(/400 .*: Invalid email address: nope$/);

    expect(await mailpit.releaseMessage('latest', { To: ['qa@example.org', 'me@example.org'] })).toBe('ok');
    const [got] = await target.waitFor(1);
    expect(got).toMatchObject({ from: 'app@example.com', to: ['qa@example.org', 'me@example.org'] });
    expect(got!.raw.toString()).toBe(await mailpit.getMessageSource(msg.ID));
    target.refuse.add('gone@example.org');
    await expect(mailpit.releaseMessage(msg.ID, { To: ['gone@example.org'] })).rejects.toThrow(/400 .*: SMTP error: .*550/);

    await emu.service.configureSMTP(smtp(target.port) as never);
    await expect(mailpit.releaseMessage(msg.ID, { To: ['qa@example.org'] })).rejects.toThrow(/has 2 SMTP mailers/);
    expect(mailer.mailer_id).toBeTruthy();
  });
});
