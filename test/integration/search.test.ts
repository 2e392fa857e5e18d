import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { whenIndexed } from '../helpers/search';

const SIM = 'sim.mailyard.test';
let emu: TestEmulator;
beforeEach(async () => {
  emu = await startEmulator();
});
afterEach(() => emu.cleanup());

async function send(to: string, subject: string, extra: Record<string, unknown> = {}) {
  return (
    await emu.service.sendEmail({
      from: { email: 'shop@example.com', name: 'Corner Shop' },
      to: [{ email: to }],
      subject,
      content: [{ type: 'text/plain', value: 'plain words' }],
      ...extra,
    })
  ).ref_id;
}

const subjects = async (q: string, more: Record<string, string> = {}) =>
  (await whenIndexed(() => emu.control.listMessages({ q, ...more }))).data.messages.map((m) => m.subject).sort();
const count = async (q: string) => (await whenIndexed(() => emu.control.countMessages({ q }))).data.count;

describe('searching captured messages', () => {
  it('finds words and phrases in subject, addresses, text and HTML body and headers, with operators', async () => {
    await send('ann@example.com', 'Your order shipped', {
      content: [{ type: 'text/html', value: '<p>Track <b>parcel</b> <a href="https://x.test/zebra">here</a></p><style>.hidden-style{}</style>' }],
      headers: { 'X-Ticket': 'TCK-4711' },
    });
    await send('bob@other.test', 'Order received', { content: [{ type: 'text/plain', value: 'We received your order, thank you' }] });
    await send('carol@example.com', 'Newsletter', { from: { email: 'news@letters.test', name: 'Ann Letters' } });

    expect(await subjects('order')).toEqual(['Order received', 'Your order shipped']);
    expect(await subjects('ORD')).toEqual(['Order received', 'Your order shipped']); // a prefix
    expect(await subjects('"order shipped"')).toEqual(['Your order shipped']);
    expect(await subjects('"shipped order"')).toEqual([]);
    expect(await subjects('parcel')).toEqual(['Your order shipped']); // HTML body, tags stripped
    expect(await subjects('hidden')).toEqual([]); // not the style block
    expect(await subjects('thank')).toEqual(['Order received']); // text body
    expect(await subjects('tck-4711')).toEqual(['Your order shipped']); // a header line
    expect(await subjects('other.test')).toEqual(['Order received']);
    expect(await subjects('from:ann')).toEqual(['Newsletter']); // the sender's name
    expect(await subjects('to:ann')).toEqual(['Your order shipped']);
    expect(await subjects('ann')).toEqual(['Newsletter', 'Your order shipped']);
    expect(await subjects('subject:order to:bob@other.test')).toEqual(['Order received']);
    expect(await subjects('from:news@letters.test')).toEqual(['Newsletter']);
    expect(await count('order')).toBe(2);
  });

  it('finds an address as one word: pasted, begun, its domain, in the headers and the body; the last word as a prefix only', async () => {
    const from = { email: 'shop@store.test', name: 'Store' };
    await send('ann.lee@example.com', 'To Ann', { from, cc: [{ email: 'boss@corp.test' }] });
    await send('ann@example.com.au', 'To the other Ann', { from, content: [{ type: 'text/plain', value: 'Questions? Write to help@shop.test.' }] });
    await send('lee@example.com', 'To Lee', { from });

    expect(await subjects('<Ann.Lee@Example.com>')).toEqual(['To Ann', 'To Ann']); // pasted with its brackets: Ann's copy, and the Cc's (its To line)
    expect(await subjects('to:<Ann.Lee@Example.com>')).toEqual(['To Ann']);
    expect(await subjects('to:ann.lee@exa')).toEqual(['To Ann']); // being typed
    expect(await subjects('to:ann@example.com')).toEqual(['To the other Ann']); // its start: ann@example.com.au
    expect(await subjects('to:ann@example.com hello')).toEqual([]); // not the last word: the whole address only
    expect(await subjects('to:lee@example.com')).toEqual(['To Lee']); // not ann.lee@: an address from its start
    expect(await subjects('to:@example.com')).toEqual(['To Ann', 'To Lee', 'To the other Ann']);
    expect(await subjects('to:@example.com.au')).toEqual(['To the other Ann']);
    expect(await subjects('boss@corp.test')).toEqual(['To Ann', 'To Ann']); // the Cc header line, in both copies
    expect(await subjects('to:boss@corp.test')).toEqual(['To Ann']); // the Cc's own copy
    expect(await subjects('help@shop.test')).toEqual(['To the other Ann']); // the body
    expect(await subjects('@store.test subject:lee')).toEqual(['To Lee']);
    expect(await subjects('from:shop@store.te subject:lee')).toEqual([]); // whole, unless last
    expect(await count('from:@store.test')).toBe(4);
  });

  it('finds a send by its ref_id and a copy by its id, as before', async () => {
    const ref = await send('ann@example.com', 'One');
    const copies = (await emu.control.listMessages({ q: ref })).data.messages;
    expect(copies).toHaveLength(1);
    expect((await emu.control.listMessages({ q: copies[0]!.id.toLowerCase() })).data.messages.map((m) => m.id)).toEqual([copies[0]!.id]);
  });

  it('filters by is:<status> and by a campaign prefix', async () => {
    await send(`bounce@${SIM}`, 'Bounces', { campaign_id: 'spring-2026' });
    await send(`delivered@${SIM}`, 'Arrives', { campaign_id: 'spring-2027' });
    await send(`delivered+b@${SIM}`, 'Autumn', { campaign_id: 'autumn' });
    await expect.poll(async () => subjects('is:bounced'), { timeout: 10_000 }).toEqual(['Bounces']);
    await expect.poll(async () => subjects('is:delivered'), { timeout: 10_000 }).toEqual(['Arrives', 'Autumn']);
    expect(await subjects('is:bounced is:delivered')).toEqual(['Arrives', 'Autumn', 'Bounces']); // any of them
    expect(await subjects('campaign:spring')).toEqual(['Arrives', 'Bounces']);
    expect(await subjects('campaign:SPRING-2026*')).toEqual(['Bounces']);
    expect(await subjects('', { campaign_id: 'spr' })).toEqual(['Arrives', 'Bounces']);
    expect(await subjects('is:delivered campaign:spring')).toEqual(['Arrives']);
  });

  it('indexes a message received over SMTP: its text and HTML body', async () => {
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });
    await t.sendMail({ from: 'Robot <robot@example.com>', to: 'dan@example.org', subject: 'Over SMTP', text: 'quokka text', html: '<i>wombat</i> html' });
    expect(await subjects('quokka')).toEqual(['Over SMTP']);
    expect(await subjects('wombat')).toEqual(['Over SMTP']);
    expect(await subjects('from:robot to:dan')).toEqual(['Over SMTP']);
  });

  it("finds messages received over SMTP by size, Reply-To and any of their addresses (Mailpit's larger:, smaller:, reply-to:, addressed:)", async () => {
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });
    const robot = 'Robot <robot@example.com>';
    await t.sendMail({
      from: robot,
      to: 'dan@example.org',
      replyTo: 'Support Desk <help@shop.test>',
      subject: 'Big report',
      text: 'see the file',
      attachments: [{ filename: 'report.bin', content: randomBytes(60 * 1024) }],
    });
    await t.sendMail({ from: robot, to: 'eve@example.org', subject: 'Small note', text: 'short' });
    await t.sendMail({ from: 'Ann <ann@other.test>', to: 'frank@example.org', replyTo: 'billing@shop.test', subject: 'Billing note', text: 'pay' });

    const listed = (await whenIndexed(() => emu.control.listMessages({ q: 'subject:report' }))).data.messages;
    const size = (await emu.control.getMessage(listed[0]!.id)).data.size;
    expect(size).toBeGreaterThan(80 * 1024); // the attachment, base64-encoded
    expect(await subjects('larger:50k')).toEqual(['Big report']);
    expect(await subjects('smaller:50K')).toEqual(['Billing note', 'Small note']);
    expect(await subjects('-larger:50kb')).toEqual(['Billing note', 'Small note']);
    expect(await subjects('smaller:1m -smaller:1k')).toEqual(['Big report']);
    // The size the detail (and Mailpit's API) answers, compared strictly as Mailpit does.
    expect(await subjects(`larger:${size - 1}`)).toEqual(['Big report']);
    expect(await subjects(`larger:${size}`)).toEqual([]);
    expect(await subjects(`smaller:${size + 1} larger:50k`)).toEqual(['Big report']);
    expect(await subjects(`smaller:${size} larger:50k`)).toEqual([]);

    expect(await subjects('reply-to:help@shop.test')).toEqual(['Big report']);
    expect(await subjects('reply-to:@shop.test')).toEqual(['Big report', 'Billing note']);
    expect(await subjects('reply-to:"support desk"')).toEqual(['Big report']); // its name
    expect(await subjects('reply-to:dan@example.org')).toEqual([]); // the recipient, not the Reply-To
    expect(await subjects('-reply-to:@shop.test')).toEqual(['Small note']);
    expect(await subjects('reply-to:bil')).toEqual(['Billing note']); // being typed
    expect(await subjects('addressed:dan@example.org')).toEqual(['Big report']); // the recipient
    expect(await subjects('addressed:robot')).toEqual(['Big report', 'Small note']); // the sender
    expect(await subjects('addressed:billing@shop.test')).toEqual(['Billing note']); // the Reply-To
    expect(await subjects('addressed:desk')).toEqual(['Big report']); // the Reply-To's name
    expect(await subjects('-addressed:@shop.test')).toEqual(['Small note']);
    expect(await count('addressed:@example.org')).toBe(3);

    // A size it cannot read is searched as text, and the answer says so.
    const odd = await emu.control.listMessages({ q: 'larger:lots' });
    expect(odd.data.warnings).toEqual([expect.stringMatching(/^larger:lots is not a size: searched as text/)]);

    // The list says which messages have an attachment (the Messages screen's paperclip).
    const rows = (await emu.control.listMessages({})).data.messages;
    expect(rows.map((m) => [m.subject, m.has_attachments])).toEqual([
      ['Billing note', false],
      ['Small note', false],
      ['Big report', true],
    ]);
  });

  it('answers odd input without an error', async () => {
    await send('ann@example.com', 'Plain');
    for (const q of [
      '"',
      '"""',
      'NEAR(a b)',
      'a OR b',
      '*',
      '^x',
      '{subject}:x',
      'from:',
      'is:',
      ':',
      '-',
      '()',
      '\\',
      "'; DROP TABLE messages; --",
      '%_',
      '💌',
      'x'.repeat(320),
    ]) {
      const res = await emu.request('GET', `/emulator/messages?q=${encodeURIComponent(q)}`);
      expect(res.status, `${q}: ${res.text}`).toBe(200);
      const count = await emu.request('GET', `/emulator/messages/count?q=${encodeURIComponent(q)}`);
      expect(count.status, q).toBe(200);
    }
    expect(await subjects('***')).toEqual([]); // no word: nothing, not everything
  });

  it('answers the count with the page when asked (with_total): every match, not the page; a bad value is named', async () => {
    for (const n of [1, 2, 3]) await send(`reader${n}@example.com`, `Letter ${n}`);
    await send('ann@example.com', 'Receipt');
    const page = (await whenIndexed(() => emu.control.listMessages({ q: 'letter', limit: 2, with_total: 'true' }))).data;
    expect(page.messages).toHaveLength(2);
    expect(page.total).toBe(3);
    const next = (await emu.control.listMessages({ q: 'letter', limit: 2, cursor: page.next_cursor!, with_total: 'true' })).data;
    expect(next.messages.map((m) => m.subject)).toEqual(['Letter 1']);
    expect(next.total).toBe(3);
    expect((await emu.control.listMessages({ q: 'letter' })).data.total).toBeUndefined();
    const bad = await emu.request('GET', '/emulator/messages?with_total=yes');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('with_total');
    expect(bad.text).toContain('must be true or false');
  });

  it('deletes the matches, and everything without a filter', async () => {
    await send('ann@example.com', 'Keep me');
    await send('bob@example.com', 'Drop me', { to: [{ email: 'bob@example.com' }, { email: 'cat@example.com' }] });
    const res = await emu.request('DELETE', `/emulator/messages?q=${encodeURIComponent('subject:"drop me"')}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ deleted: 2 });
    expect(await subjects('')).toEqual(['Keep me']);
    expect(await subjects('drop')).toEqual([]);
    expect((await emu.control.deleteMessages()).data).toEqual({ deleted: 1 });
    expect(await subjects('keep')).toEqual([]);
  });

  it('finds attachments by has:attachment, by their file names (a plain word and filename:), over the API and SMTP', async () => {
    const pdf = Buffer.from('%PDF-1.4 not a real pdf').toString('base64');
    await send('ann@example.com', 'With invoice', { attachments: [{ filename: 'Invoice-2026 Q3.pdf', content: pdf, type: 'application/pdf' }] });
    await send('ann@example.com', 'Plain one');
    await send('ann@example.com', 'Inline logo only', {
      content: [{ type: 'text/html', value: '<img src="cid:logo">' }],
      attachments: [{ filename: 'logo.png', content: pdf, type: 'image/png', disposition: 'inline', content_id: 'logo' }],
    });
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true });
    await t.sendMail({
      from: 'robot@example.com',
      to: 'dan@example.org',
      subject: 'Over SMTP with a report',
      text: 'see the summary',
      attachments: [
        { filename: 'quarterly-report.csv', content: 'a,b\n'.repeat(50_000) },
        { filename: 'Été résumé.txt', content: 'x' },
      ],
    });

    expect(await subjects('has:attachment')).toEqual(['Over SMTP with a report', 'With invoice']);
    expect(await subjects('-has:attachment')).toEqual(['Inline logo only', 'Plain one']);
    expect(await subjects('invoice')).toEqual(['With invoice']); // a plain word finds a file name
    expect(await subjects('filename:invoice-2026')).toEqual(['With invoice']);
    expect(await subjects('filename:quarterly')).toEqual(['Over SMTP with a report']); // after 200 KB of another part
    expect(await subjects('filename:resume')).toEqual(['Over SMTP with a report']); // RFC 2231 / encoded name, diacritics folded
    expect(await subjects('summary')).toEqual(['Over SMTP with a report']);
    expect(await subjects('filename:summary')).toEqual([]); // the body's "summary" is no file name
    expect(await subjects('filename:summ')).toEqual([]); // nor its start
    expect(await subjects('attachment:quart')).toEqual(['Over SMTP with a report']); // the last word: a prefix
    expect(await count('has:attachment')).toBe(2);
  });

  it('finds cc: and bcc: recipients: the copy addressed to them as such', async () => {
    await send('ann@example.com', 'Team note', { cc: [{ email: 'carol@example.com', name: 'Carol' }], bcc: [{ email: 'dan@example.com' }] });
    await send('carol@example.com', 'Direct to Carol');
    expect(await subjects('cc:carol@example.com')).toEqual(['Team note']);
    expect(await subjects('cc:carol')).toEqual(['Team note']); // the name
    expect(await subjects('bcc:dan@example.com')).toEqual(['Team note']);
    expect(await subjects('cc:dan@example.com')).toEqual([]); // Dan was Bcc
    expect(await subjects('to:carol@example.com')).toEqual(['Direct to Carol', 'Team note']); // to: is this copy's recipient, any kind
    expect(await subjects('to:carol@example.com -cc:carol@example.com')).toEqual(['Direct to Carol']);
    const ids = (await emu.control.listMessages({ q: 'bcc:dan' })).data.messages;
    expect(ids.map((m) => m.recipient_type)).toEqual(['bcc']);
  });

  it('filters by before: and after: on the emulator clock (UTC): a date is its 00:00, a time is exact', async () => {
    await send('ann@example.com', 'Early');
    expect((await emu.request('POST', '/emulator/clock', { body: { advance_ms: 3 * 24 * 3600 * 1000 } })).status).toBe(200);
    await send('ann@example.com', 'Late');
    const late = (await emu.control.listMessages({ q: 'subject:late' })).data.messages[0]!.created_at;
    const lateDay = late.slice(0, 10);
    expect(await subjects(`before:${lateDay}`)).toEqual(['Early']);
    expect(await subjects(`after:${lateDay}`)).toEqual(['Late']);
    expect(await subjects(`before:${late}`)).toEqual(['Early']); // before the instant: not at it
    expect(await subjects(`after:${late}`)).toEqual(['Late']); // at or after it
    expect(await subjects(`-after:${lateDay}`)).toEqual(['Early']);
    expect(await subjects(`after:${lateDay} before:${lateDay}`)).toEqual([]);
    expect(await subjects('ann before:2000-01-01')).toEqual([]);
    expect(await subjects('ann after:2000-01-01T00:00:00+02:00')).toEqual(['Early', 'Late']);
  });

  it('negates words, phrases and operators: newsletter -unsubscribe, -is:bounced, !from:', async () => {
    await send('ann@example.com', 'Newsletter one', { content: [{ type: 'text/plain', value: 'news. To unsubscribe click here' }] });
    await send('ann@example.com', 'Newsletter two', { content: [{ type: 'text/plain', value: 'news without the link' }] });
    await send(`bounce@${SIM}`, 'Newsletter three', { from: { email: 'other@letters.test' } });
    await expect.poll(async () => subjects('is:bounced'), { timeout: 10_000 }).toEqual(['Newsletter three']);
    expect(await subjects('newsletter -unsubscribe')).toEqual(['Newsletter three', 'Newsletter two']);
    expect(await subjects('newsletter !unsubscribe')).toEqual(['Newsletter three', 'Newsletter two']);
    expect(await subjects('-unsubscribe')).toEqual(['Newsletter three', 'Newsletter two']); // a negation alone
    expect(await subjects('newsletter -"click here"')).toEqual(['Newsletter three', 'Newsletter two']);
    expect(await subjects('newsletter -is:bounced')).toEqual(['Newsletter one', 'Newsletter two']);
    expect(await subjects('newsletter !from:other@letters.test')).toEqual(['Newsletter one', 'Newsletter two']);
    expect(await subjects('newsletter -subject:two -unsubscribe')).toEqual(['Newsletter three']);
    expect(await count('-is:bounced newsletter')).toBe(2);
    // Deleting the matches deletes exactly those.
    expect((await emu.request('DELETE', `/emulator/messages?q=${encodeURIComponent('newsletter -unsubscribe')}`)).json.data).toEqual({ deleted: 2 });
    expect(await subjects('')).toEqual(['Newsletter one']);
  });

  it('says plainly what it does not understand: the list answers warnings, and searches it as text', async () => {
    await send('ann@example.com', 'Labelled');
    const res = await emu.request('GET', `/emulator/messages?q=${encodeURIComponent('label:work is:opened-ish before:yesterday')}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.messages).toEqual([]);
    expect(res.json.data.warnings).toEqual([
      expect.stringMatching(
        /^label: is not an operator: searched as text \(operators: from: to: cc: bcc: reply-to: addressed: subject: .*before: after: larger: smaller:\)$/,
      ),
      expect.stringMatching(/^is:opened-ish is not a status: searched as text \(statuses: .*bounced/),
      expect.stringMatching(/^before:yesterday is not a date: searched as text \(a date like 2026-11-24/),
    ]);
    const fine = await emu.request('GET', `/emulator/messages?q=${encodeURIComponent('has:attachment -is:bounced')}`);
    expect(fine.json.data.warnings).toEqual([]);
  });
});
