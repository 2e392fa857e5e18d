import nodemailer from 'nodemailer';
import { startReceiver } from '../helpers/receiver';
import { startRelayTarget } from '../helpers/relay-target';
import { api, copiesOf, expect, registerWebhook, sendEmail, test, watchErrors } from './fixtures';

test('a message sent from the form appears live in Messages, and its delivery in Deliveries', async ({ served, receiver, page, context }) => {
  const errors = watchErrors(page);
  await registerWebhook(page, served, receiver.url, { delivery: true });

  // Messages is open (and empty) before anything is sent: what follows arrives without a reload.
  await page.goto(`${served.url}/messages`);
  await expect(page.getByTestId('messages-empty')).toContainText(`curl -X POST ${served.url}/v1/email/send`);
  await expect(page.getByTestId('messages-empty')).toContainText(`Bearer ${served.apiKey}`);

  const form = await context.newPage();
  await form.goto(`${served.url}/send`);
  await form.getByRole('button', { name: 'delivered', exact: true }).click();
  await expect(form.getByLabel('To', { exact: true })).toHaveValue('delivered@sim.mailyard.test');
  await form.getByLabel('Subject').fill('Live from the form');
  await form.getByRole('button', { name: 'Send', exact: true }).click();
  const answer = form.getByTestId('send-answer');
  await expect(answer).toContainText('delivered@sim.mailyard.test');
  const refId = (await answer.getByTestId('send-ref-id').textContent())!;
  expect(refId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  await expect(answer).toContainText(`"ref_id": "${refId}"`);
  await expect(answer).toContainText('"success": true');
  const [copy] = await copiesOf(page, served, refId);

  // The open Messages page shows it live, and its status turns delivered as the simulation runs.
  const list = page.getByTestId('message-list');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(list).toContainText('Live from the form');
  await expect(page.getByTestId('message-count')).toHaveText('1 message');
  await expect(list.getByText('delivered', { exact: true })).toBeVisible();

  // The copy's link in the answer opens the message; its events show the webhook delivery.
  await answer.getByTestId('send-copies').getByRole('link', { name: 'delivered@sim.mailyard.test' }).click();
  await expect(form).toHaveURL(`${served.url}/messages/${copy!.id}`);
  await expect(form.getByTestId('message-detail')).toContainText('Live from the form');
  await expect(form.getByTestId('message-ref-id')).toHaveText(refId);
  await expect(form.getByTestId('message-id')).toHaveText(copy!.id);
  await form.getByRole('tab', { name: /Events/ }).click();
  const events = form.getByTestId('message-events');
  await expect(events).toContainText('delivery');
  await expect(events.getByText('succeeded')).toBeVisible();
  await receiver.waitFor(1);

  // Deliveries, open before the next one, shows the next delivery live.
  await form.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Deliveries' }).click();
  const deliveries = form.getByTestId('delivery-list');
  await expect(deliveries.getByRole('option')).toHaveCount(1);
  await sendEmail(page, served, 'delivered@sim.mailyard.test', 'Second');
  await expect(deliveries.getByRole('option')).toHaveCount(2);
  await expect(deliveries.getByRole('option').first()).toContainText('succeeded');
  await expect(list.getByRole('option')).toHaveCount(2);
  expect(errors).toEqual([]);
});

test('searching, filters and keyboard navigation in the list', async ({ served, page }) => {
  const errors = watchErrors(page);
  for (const [to, subject] of [
    ['ann@example.com', 'Invoice 1'],
    ['bob@example.com', 'Welcome Bob'],
    ['bounce@sim.mailyard.test', 'Invoice 2'],
  ]) {
    await sendEmail(page, served, to!, subject!);
  }
  await page.goto(`${served.url}/messages`);
  const list = page.getByTestId('message-list');
  await expect(list.getByRole('option')).toHaveCount(3);
  await page.getByLabel('Search messages').fill('invoice');
  await expect(list.getByRole('option')).toHaveCount(2);
  await expect(page.getByTestId('message-count')).toHaveText('2 messages');
  await page.getByLabel('Search messages').fill('');
  await expect(list.getByRole('option')).toHaveCount(3);

  // Up/down move, Enter opens: newest first.
  await list.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('message-detail')).toContainText('Welcome Bob');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('message-detail')).toContainText('Invoice 1');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('message-detail')).toContainText('Invoice 2');
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(`${served.url}/messages`);
  await page.keyboard.press('/');
  await expect(page.getByLabel('Search messages')).toBeFocused();

  // Status filter: the bounce arrives as the clock runs.
  await page.request.post(`${served.url}/emulator/clock`, { data: { advance_ms: 60_000 } });
  await page.getByLabel('Status').selectOption('bounced');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(list).toContainText('bounce@sim.mailyard.test');
  expect(errors).toEqual([]);
});

test('fire a bounce from a message: sent to the webhook, and the message turns bounced', async ({ served, receiver, page }) => {
  const errors = watchErrors(page);
  await registerWebhook(page, served, receiver.url, { bounce: true });
  const { refId, id } = await sendEmail(page, served, 'ann@example.com', 'Please bounce');
  await page.goto(`${served.url}/messages/${id}`);
  const detail = page.getByTestId('message-detail');
  await expect(detail).toContainText('Please bounce');
  await detail.getByLabel('Event to fire').selectOption('bounce');
  await detail.getByRole('button', { name: 'Fire event' }).click();
  await expect(detail.getByTestId('fire-result')).toContainText('bounce recorded · webhook delivery');
  await expect(detail.getByTestId('message-status')).toHaveText('hard bounce');
  const [req] = await receiver.waitFor(1);
  expect(JSON.parse(req!.body)).toMatchObject({ event: 'bounce', ref_id: refId, recipient: { email: 'ann@example.com' }, bounce_type: 'hard' });

  await detail.getByRole('tab', { name: /Events/ }).click();
  await expect(page.getByTestId('message-events')).toContainText('bounce');
  // The delivery link opens the delivery with the request the receiver got.
  await page.getByTestId('message-events').getByRole('link').first().click();
  await expect(page.getByTestId('delivery-detail')).toContainText(receiver.url);
  await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');

  // A kind the webhook does not take is recorded on the message and said plainly.
  await page.goto(`${served.url}/messages/${id}`);
  await detail.getByLabel('Event to fire').selectOption('open');
  await detail.getByRole('button', { name: 'Fire event' }).click();
  await expect(detail.getByTestId('fire-result')).toHaveText(
    'open recorded · no webhook delivery queued: the EMAIL_EVENT webhook does not have open enabled in webhook_options.events',
  );
  expect(errors).toEqual([]);
});

test("a message's HTML runs no script and no event handler in the preview", async ({ served, page }) => {
  const errors = watchErrors(page);
  // Anything that runs would call this server: it must get no request at all.
  const canary = await startReceiver();
  const canaryHost = new URL(canary.url).host;
  const requests: string[] = [];
  page.on('request', (r) => r.url().includes(canaryHost) && requests.push(r.url()));
  try {
    const html = [
      '<h1 id="title">Hostile</h1>',
      `<script>fetch('http://${canaryHost}/script'); window.__pwned = 'script'; top.__pwned = 'script';</script>`,
      `<img src="missing.png" onerror="fetch('http://${canaryHost}/onerror'); top.__pwned = 'onerror'">`,
      `<svg onload="fetch('http://${canaryHost}/svg')"></svg>`,
      `<a href="javascript:fetch('http://${canaryHost}/js-url')" id="jslink">click</a>`,
      `<iframe src="javascript:fetch('http://${canaryHost}/frame')"></iframe>`,
    ].join('\n');
    const { id } = await sendEmail(page, served, 'ann@example.com', 'Hostile HTML', html);
    await page.goto(`${served.url}/messages/${id}`);
    const frameEl = page.locator('iframe[title="HTML preview"]');
    await expect(frameEl).toHaveAttribute('sandbox', 'allow-popups allow-popups-to-escape-sandbox');
    const frame = page.frameLocator('iframe[title="HTML preview"]');
    await expect(frame.locator('#title')).toHaveText('Hostile');
    await frame.locator('#jslink').click({ force: true });
    await page.waitForTimeout(1500);

    expect(requests).toEqual([]);
    expect(canary.requests).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    const inner = page.frames().find((f) => f.url().endsWith(`/emulator/messages/${id}/html`))!;
    expect(await inner.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();

    // The preview is served with a script-free policy too (a second line of defence).
    const res = await page.request.get(`${served.url}/emulator/messages/${id}/html`);
    expect(res.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers()['content-security-policy']).not.toContain('script-src');

    // The mobile width toggle narrows the frame.
    await page.getByRole('button', { name: 'Mobile (375 px)' }).click();
    await expect.poll(async () => (await frameEl.boundingBox())!.width).toBeLessThan(380);
  } finally {
    await canary.close();
  }
  // The browser reports the blocked script, handler and javascript: URL; nothing else may fail.
  expect(errors.filter((e) => !/Content Security Policy|sandboxed|Blocked script execution|missing\.png|404/.test(e))).toEqual([]);
});

test('text, headers, raw source and attachments of a message', async ({ served, page }) => {
  const res = await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'app@example.com' },
    to: [{ email: 'ann@example.com' }],
    subject: 'With parts',
    content: [
      { type: 'text/html', value: '<p>Hi</p>' },
      { type: 'text/plain', value: 'Plain hello' },
    ],
    attachments: [{ filename: 'notes.txt', content: Buffer.from('attached text').toString('base64'), type: 'text/plain' }],
  });
  const { id } = (await copiesOf(page, served, res.ref_id as string))[0]!;
  await page.goto(`${served.url}/messages/${id}`);
  await page.getByRole('tab', { name: 'Text' }).click();
  await expect(page.getByText('Plain hello')).toBeVisible();
  await page.getByRole('tab', { name: /Headers/ }).click();
  await expect(page.getByRole('rowheader', { name: 'Subject' })).toBeVisible();
  await page.getByRole('tab', { name: 'Raw' }).click();
  await expect(page.getByTestId('raw-source')).toContainText('Subject: With parts');
  await page.getByRole('tab', { name: /Attachments/ }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('notes.txt');
  expect((await import('node:fs')).readFileSync((await file.path())!, 'utf8')).toBe('attached text');

  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page).toHaveURL(`${served.url}/messages`);
  await expect(page.getByTestId('messages-empty')).toBeVisible();
  expect((await page.request.get(`${served.url}/emulator/messages/${id}`)).status()).toBe(404);
});

test('new messages arriving while the list is scrolled down keep the view still, and a pill goes up to them', async ({ served, page }) => {
  const errors = watchErrors(page);
  for (let i = 0; i < 40; i++) await sendEmail(page, served, `user${i}@example.com`, `Message ${i}`);
  await page.goto(`${served.url}/messages`);
  const list = page.getByTestId('message-list');
  await expect(page.getByTestId('message-count')).toHaveText('40 messages');
  await list.evaluate((el) => (el.scrollTop = 20 * 56));
  await expect(list.getByText('Message 19', { exact: true })).toBeInViewport();

  await sendEmail(page, served, 'late1@example.com', 'Late 1');
  await sendEmail(page, served, 'late2@example.com', 'Late 2');
  await expect(page.getByRole('button', { name: '↑ 2 new' })).toBeVisible();
  await expect(page.getByTestId('message-count')).toHaveText('42 messages');
  // The row that was at the top of the view is still there.
  await expect(list.getByText('Message 19', { exact: true })).toBeInViewport();
  expect(await list.evaluate((el) => el.scrollTop)).toBe(22 * 56);

  await page.getByRole('button', { name: '↑ 2 new' }).click();
  await expect(list.getByText('Late 2', { exact: true })).toBeInViewport();
  await expect(page.getByRole('button', { name: /new$/ })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('mail sent over SMTP appears live too, with its source, headers and campaign', async ({ served, page }) => {
  const errors = watchErrors(page);
  await page.goto(`${served.url}/messages`);
  await expect(page.getByTestId('messages-empty')).toBeVisible();
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: served.smtpPort, secure: false, ignoreTLS: true });
  await transport.sendMail({
    from: 'Legacy App <legacy@example.com>',
    to: 'bob@example.com',
    subject: 'Sent by SMTP',
    html: '<p>Hello from <b>SMTP</b></p>',
    headers: { 'X-Mailyard-Campaign-Id': 'legacy' },
  });
  transport.close();
  const row = page.getByTestId('message-list').getByRole('option');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Sent by SMTP');
  await expect(row).toContainText('legacy');
  await row.click();
  const detail = page.getByTestId('message-detail');
  await expect(detail).toContainText('via SMTP');
  await expect(detail).toContainText('Legacy App <legacy@example.com>');
  await expect(page.frameLocator('iframe[title="HTML preview"]').locator('b')).toHaveText('SMTP');
  await page.getByRole('tab', { name: /Headers/ }).click();
  await expect(page.getByRole('rowheader', { name: 'X-Mailyard-Campaign-Id' })).toBeVisible();
  expect(errors).toEqual([]);
});

test('Release… sends a captured message for real through an SMTP mailer and shows the server answer', async ({ served, page }) => {
  const errors = watchErrors(page);
  const target = await startRelayTarget({ user: 'ui-user', pass: 'ui-pass-123' });
  try {
    const { id } = await sendEmail(page, served, 'customer@example.net', 'Release from the UI');
    // Without a mailer, the panel says where to add one.
    await page.goto(`${served.url}/messages/${id}`);
    const detail = page.getByTestId('message-detail');
    await detail.getByRole('button', { name: 'Release…' }).click();
    const form = detail.getByRole('form', { name: 'Release the message' });
    await expect(form).toContainText('Add one first.');
    await form.getByRole('button', { name: 'Close' }).click();

    await api(page, served, 'POST', '/v1/smtpbasic/verify', {
      name: 'Local relay',
      email: 'app@example.com',
      config_type: 'smtp',
      connection_type: 'basic',
      config: { host: '127.0.0.1', port: target.port, username: 'ui-user', password: 'ui-pass-123', secure: 'None' },
    });
    await page.reload();
    await detail.getByRole('button', { name: 'Release…' }).click();
    await expect(form.getByLabel('SMTP mailer')).toContainText(`Local relay (127.0.0.1:${target.port})`);
    await expect(form.getByLabel('Release to')).toHaveValue('customer@example.net');
    await form.getByLabel('Release to').fill('me@example.org, qa@example.org');
    await form.getByRole('button', { name: 'Release', exact: true }).click();
    await expect(form.getByTestId('release-result')).toContainText('Released to me@example.org, qa@example.org');
    const [got] = await target.waitFor(1);
    expect(got!.to).toEqual(['me@example.org', 'qa@example.org']);
    expect(got!.raw.toString()).toContain('Subject: Release from the UI');

    target.refuse.add('nobody@example.org');
    await form.getByLabel('Release to').fill('nobody@example.org');
    await form.getByRole('button', { name: 'Release', exact: true }).click();
    await expect(form.getByTestId('release-result')).toContainText('The SMTP server did not take the message: 550 5.1.1 <nobody@example.org>');

    // A request the API refuses: its message in the same place, as an error; the next release clears it.
    await form.getByLabel('Release to').fill('not an address');
    await form.getByRole('button', { name: 'Release', exact: true }).click();
    await expect(form.getByTestId('release-result')).toHaveClass(/error/);
    await expect(form.getByTestId('release-result')).toContainText('to.0');
    await form.getByLabel('Release to').fill('me@example.org');
    await form.getByRole('button', { name: 'Release', exact: true }).click();
    await expect(form.getByTestId('release-result')).toContainText('Released to me@example.org');
    await expect(form.getByTestId('release-result')).toHaveClass(/notice/);
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  } finally {
    await target.close();
  }
});

test('a message its SMTP mailer server refused for now says so in its header: sent (deferred), the reply, the next attempt', async ({ served, page }) => {
  const errors = watchErrors(page);
  const target = await startRelayTarget({ user: 'ui-user', pass: 'ui-pass-123' });
  try {
    target.tempfail.set('customer@example.net', 1);
    const mailer = await api(page, served, 'POST', '/v1/smtpbasic/verify', {
      name: 'Greylisting relay',
      email: 'app@example.com',
      config_type: 'smtp',
      connection_type: 'basic',
      config: { host: '127.0.0.1', port: target.port, username: 'ui-user', password: 'ui-pass-123', secure: 'None' },
    });
    const sent = await api(page, served, 'POST', '/v1/email/send', {
      from: { email: 'app@example.com' },
      to: [{ email: 'customer@example.net' }],
      subject: 'Greylisted once',
      content: [{ type: 'text/plain', value: 'Hello' }],
      mailer_id: mailer.data.mailer_id,
    });
    const [copy] = await copiesOf(page, served, sent.ref_id);
    await page.goto(`${served.url}/messages/${copy!.id}`);
    const detail = page.getByTestId('message-detail');
    // Deferred by a temporary refusal: the real service's status for it is sent.
    await expect(detail.getByTestId('message-status')).toHaveText('sent');
    const relay = detail.getByTestId('message-relay');
    await expect(relay).toContainText('refused for now once; next attempt in 1 min');
    await expect(relay).toContainText('451 4.7.1 <customer@example.net>: Recipient address rejected: Greylisted');
    expect(errors).toEqual([]);
  } finally {
    await target.close();
  }
});
