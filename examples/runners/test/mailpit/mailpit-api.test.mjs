// Tests written for Mailpit, run against Mailyard: the `mailpit-api` client (2.x) pointed at
// `startMailyard()`'s URL, with the control key as its basic-auth password. Every method of the client
// is called once at least. node:test: `node --test test/mailpit/`. No configuration.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { MailpitClient } from 'mailpit-api';
import { startMailyard } from 'mailyard/testing';

const KEY = 'mailpit-example-key';
/** @type {import('mailyard/testing').Mailyard} */
let yard;
/** @type {MailpitClient} */
let mailpit;

const pdf = Buffer.from('%PDF-1.4\n% terms and conditions\n%%EOF\n');
const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** A send through the service API, as the app under test would make it (text, HTML with a link and an inline image). */
const send = (/** @type {string} */ subject, /** @type {object} */ extra = {}) =>
  yard.service.sendEmail({
    from: { email: 'app@example.com', name: 'The App' },
    to: [{ email: 'ann@example.com', name: 'Ann' }],
    subject,
    content: [
      { type: 'text/plain', value: `Hello Ann, your code is 424242 (${subject})` },
      { type: 'text/html', value: '<p style="display:flex">Hello <b>Ann</b> <a href="https://example.com/reset">reset</a> <img src="cid:logo@app"></p>' },
    ],
    ...extra,
  });

const subjects = (/** @type {{ messages: Array<{ Subject: string }> }} */ page) => page.messages.map((m) => m.Subject);

before(async () => {
  yard = await startMailyard({ controlKey: KEY });
  mailpit = new MailpitClient(yard.url, { auth: { username: 'qa', password: KEY } });
});
after(() => yard.stop());
beforeEach(() => mailpit.deleteMessages());

test('getInfo and getConfiguration; the chaos triggers answer as Mailpit with chaos off', async () => {
  await send('one');
  const info = await mailpit.getInfo();
  assert.equal(info.Messages, 1);
  assert.equal(info.Unread, 1);
  assert.match(info.Version, /mailyard/);
  const config = await mailpit.getConfiguration();
  assert.equal(config.ChaosEnabled, false);
  assert.equal(config.MessageRelay.Enabled, false);
  await assert.rejects(mailpit.getChaosTriggers(), /400 .*Chaos is not enabled/);
  await assert.rejects(mailpit.setChaosTriggers({ Sender: { ErrorCode: 451, Probability: 5 } }), /400 .*Chaos is not enabled/);
});

test('listMessages pages newest first; searchMessages speaks the search language', async () => {
  for (const s of ['first', 'second', 'third']) await send(s);
  await send('welcome aboard', { to: [{ email: 'bob@example.com', name: 'Bob' }] });
  const page = await mailpit.listMessages();
  assert.equal(page.total, 4);
  assert.deepEqual(subjects(page), ['welcome aboard', 'third', 'second', 'first']);
  assert.deepEqual(page.messages[1]?.From, { Name: 'The App', Address: 'app@example.com' });
  assert.deepEqual(subjects(await mailpit.listMessages(2, 1)), ['second']);
  assert.deepEqual(subjects(await mailpit.searchMessages({ query: 'to:bob@example.com' })), ['welcome aboard']);
  assert.equal((await mailpit.searchMessages({ query: 'subject:second', start: 0, limit: 10 })).messages_count, 1);
});

test('one message: summary, headers, source, attachment, thumbnail, renderings', async () => {
  await send('with files', {
    attachments: [
      { filename: 'terms.pdf', content: pdf.toString('base64'), type: 'application/pdf' },
      { filename: 'logo.png', content: png.toString('base64'), type: 'image/png', disposition: 'inline', content_id: 'logo@app' },
    ],
  });
  const msg = await mailpit.getMessageSummary(); // the latest
  assert.equal(msg.Subject, 'with files');
  assert.match(msg.Text, /424242/);
  assert.equal((await mailpit.getMessageSummary(msg.ID)).ID, msg.ID);
  const [attachment] = msg.Attachments;
  assert.deepEqual([attachment?.FileName, attachment?.ContentType, attachment?.Size], ['terms.pdf', 'application/pdf', pdf.length]);
  const blob = await mailpit.getMessageAttachment(msg.ID, attachment?.PartID ?? '');
  assert.ok(Buffer.from(await blob.arrayBuffer()).equals(pdf));
  const thumbnail = await mailpit.getAttachmentThumbnail(msg.ID, msg.Inline[0]?.PartID ?? '');
  assert.equal(thumbnail.type, 'image/jpeg');
  assert.deepEqual((await mailpit.getMessageHeaders(msg.ID)).Subject, ['with files']);
  assert.match(await mailpit.getMessageSource(msg.ID), /Subject: with files/);
  assert.match(await mailpit.renderMessageHTML(msg.ID), /<b>Ann<\/b>/);
  assert.match(await mailpit.renderMessageText(msg.ID), /your code is 424242/);
  await assert.rejects(mailpit.getMessageSummary('01NOSUCHMESSAGE'), /404/);
});

test('htmlCheck, linkCheck and spamAssassinCheck', async () => {
  await send('checked');
  const html = await mailpit.htmlCheck();
  assert.ok(html.Warnings.some((w) => w.Title === 'display:flex'));
  const links = await mailpit.linkCheck();
  assert.deepEqual(
    links.Links.map((l) => l.URL),
    ['https://example.com/reset'],
  );
  const spam = await mailpit.spamAssassinCheck();
  assert.equal(typeof spam.IsSpam, 'boolean');
});

test('sendMessage captures a message; waitForMessage and waitForMessages find it', async () => {
  const sent = await mailpit.sendMessage({
    From: { Email: 'shop@example.com', Name: 'Shop' },
    To: [{ Email: 'ann@example.com', Name: 'Ann' }],
    Bcc: ['audit@example.com'],
    Subject: 'Welcome',
    Text: 'Welcome, Ann',
    Tags: ['signup'],
    Attachments: [{ Filename: 'terms.pdf', Content: pdf.toString('base64'), ContentType: 'application/pdf' }],
  });
  const msg = await mailpit.waitForMessage({ query: 'subject:Welcome' }, { timeout: 5000, interval: 50 });
  assert.deepEqual([msg.From.Address, msg.Text, msg.Tags], ['shop@example.com', 'Welcome, Ann', ['signup']]);
  assert.equal((await mailpit.getMessageSummary(sent.ID)).To[0]?.Address, 'ann@example.com');
  // One message per recipient: Ann's and the Bcc's.
  const copies = await mailpit.waitForMessages({ query: 'tag:signup', count: 2, exact: true }, { timeout: 5000, interval: 50 });
  assert.equal(copies.messages_count, 2);
  await assert.rejects(mailpit.sendMessage({ From: { Email: 'shop@example.com' }, To: [{ Email: 'not an address' }] }), /400 .*invalid To address/);
});

test('setReadStatus, then deleteMessages and deleteMessagesBySearch', async () => {
  await send('alpha');
  await send('beta');
  const [beta, alpha] = (await mailpit.listMessages()).messages;
  assert.equal(await mailpit.setReadStatus({ IDs: [alpha?.ID ?? ''], Read: true }), 'ok');
  assert.deepEqual(subjects(await mailpit.searchMessages({ query: 'is:unread' })), ['beta']);
  await mailpit.setReadStatus({ Search: 'subject:beta', Read: true });
  assert.equal((await mailpit.getInfo()).Unread, 0);
  assert.equal(await mailpit.deleteMessages({ IDs: [beta?.ID ?? ''] }), 'ok');
  assert.equal(await mailpit.deleteMessagesBySearch({ query: 'subject:alpha' }), 'ok');
  assert.equal((await mailpit.listMessages()).total, 0);
});

test('setTags, getTags, renameTag, deleteTag', async () => {
  await send('tagged');
  const [msg] = (await mailpit.listMessages()).messages;
  assert.equal(await mailpit.setTags({ IDs: [msg?.ID ?? ''], Tags: ['Signup', 'urgent'] }), 'ok');
  assert.deepEqual(await mailpit.getTags(), ['Signup', 'urgent']);
  assert.equal(await mailpit.renameTag('urgent', 'later'), 'ok');
  assert.equal(await mailpit.deleteTag('Signup'), 'ok');
  assert.deepEqual((await mailpit.getMessageSummary(msg?.ID)).Tags, ['later']);
});

test('releaseMessage sends the message through the account SMTP mailer (here a second Mailyard)', async () => {
  await send('release me');
  const msg = await mailpit.getMessageSummary();
  await assert.rejects(mailpit.releaseMessage(msg.ID, { To: ['qa@example.org'] }), /400 .*SMTP relay is not configured/);
  const relay = await startMailyard();
  await yard.service.configureSMTP({
    name: 'Relay',
    email: 'app@example.com',
    config_type: 'smtp',
    connection_type: 'basic',
    config: { host: relay.smtp.host, port: relay.smtp.port, secure: 'None' },
  });
  try {
    assert.equal(await mailpit.releaseMessage(msg.ID, { To: ['qa@example.org'] }), 'ok');
    const released = await relay.waitForMessage({ recipient: 'qa@example.org' });
    assert.equal(released.subject, 'release me');
  } finally {
    await relay.stop();
  }
});

test('without the control key the API answers 401', async () => {
  await assert.rejects(new MailpitClient(yard.url).getInfo(), /401/);
});
