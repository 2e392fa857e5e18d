import { api, expect, sendEmail, test, watchErrors } from './fixtures';

const SIM = 'sim.mailyard.test';

test('search: operators, phrases and is:bounced find the right rows; the URL keeps the filters; delete the matches in an in-app dialog', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  await sendEmail(page, served, 'ann@example.com', 'Your order shipped', '<p>Track your <b>parcel</b></p>');
  await sendEmail(page, served, 'bob@example.com', 'Order received', '<p>thanks</p>');
  await sendEmail(page, served, 'joann@example.com', 'Gift card', '<p>for you</p>');
  await api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'news@letters.test', name: 'Letters' },
    to: [{ email: `bounce@${SIM}` }],
    subject: 'Spring newsletter',
    campaign_id: 'spring-2026',
    content: [{ type: 'text/html', value: '<p>Hello</p>' }],
  });
  // The bounce is simulated shortly after the send.
  await expect.poll(async () => (await (await page.request.get(`${served.url}/emulator/messages?status=bounced`)).json()).data.messages.length).toBe(1);

  await page.goto(`${served.url}/messages`);
  const list = page.getByTestId('message-list');
  const search = page.getByLabel('Search messages');
  await expect(list.getByRole('option')).toHaveCount(4);

  const expectRows = async (q: string, subjects: string[]) => {
    await search.fill(q);
    await expect(page).toHaveURL(`${served.url}/messages?q=${encodeURIComponent(q).replace(/%20/g, '+')}`);
    await expect(list.getByRole('option')).toHaveCount(subjects.length);
    for (const s of subjects) await expect(list).toContainText(s);
  };
  await expectRows('from:news', ['Spring newsletter']);
  await expectRows('subject:order', ['Your order shipped', 'Order received']);
  await expectRows('"order shipped"', ['Your order shipped']);
  await expectRows('parcel', ['Your order shipped']); // the HTML body
  await expectRows('is:bounced', ['Spring newsletter']);
  await expectRows('to:bob', ['Order received']);
  // An address pasted as a mail client copies it is one word: Ann's mail, not Joann's.
  await expectRows('<ann@example.com>', ['Your order shipped']);
  await expectRows('@example.com', ['Your order shipped', 'Order received', 'Gift card']);

  // Status and campaign (a prefix) go into the URL too; a reload keeps all of them.
  await search.fill('');
  await page.getByLabel('Campaign').fill('spring');
  await expect(page).toHaveURL(`${served.url}/messages?campaign=spring`);
  await expect(list.getByRole('option')).toHaveCount(1);
  await page.getByLabel('Campaign').fill('');
  await search.fill('order');
  await page.getByLabel('Status').selectOption('queued');
  await expect(page).toHaveURL(/[?&]status=/);
  await page.getByLabel('Status').selectOption('');
  await expect(page).toHaveURL(`${served.url}/messages?q=order`);
  await page.reload();
  await expect(search).toHaveValue('order');
  await expect(list.getByRole('option')).toHaveCount(2);
  await expect(page.getByTestId('message-count')).toHaveText('2 messages');

  // Opening a match keeps the search in the URL.
  await list.getByText('Order received').click();
  await expect(page).toHaveURL(/\/messages\/[0-9A-Z]{26}\?q=order$/);
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(`${served.url}/messages?q=order`);

  // Delete the matches: an in-app dialog (no window.confirm), Cancel keeps them.
  page.on('dialog', () => errors.push('a browser dialog opened'));
  await page.getByRole('button', { name: 'Delete 2 matches' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Delete 2 matching messages?');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(list.getByRole('option')).toHaveCount(2);
  await page.getByRole('button', { name: 'Delete 2 matches' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete 2 matches' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();
  await expect(page.getByTestId('message-count')).toHaveText('0 messages');
  await search.fill('');
  await expect(list.getByRole('option')).toHaveCount(2);
  await expect(list).toContainText('Spring newsletter');
  await expect(list).toContainText('Gift card');

  // Delete all, through the same dialog.
  await page.getByRole('button', { name: 'Delete all' }).click();
  await expect(page.getByRole('dialog')).toContainText('Delete every captured message?');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete all' }).click();
  await expect(page.getByTestId('messages-empty')).toBeVisible();
  expect(errors).toEqual([]);
});

test('search: Mailpit operators (negation, has:attachment, cc:, after:) find the right rows; an unknown operator is said under the box', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  const news = (subject: string, text: string, extra: Record<string, unknown> = {}) =>
    api(page, served, 'POST', '/v1/email/send', {
      from: { email: 'news@letters.test', name: 'Letters' },
      to: [{ email: 'ann@example.com' }],
      subject,
      content: [{ type: 'text/plain', value: text }],
      ...extra,
    });
  await news('Newsletter with a link', 'click to unsubscribe');
  await news('Newsletter plain', 'nothing to click', { cc: [{ email: 'carol@example.com' }] });
  await news('Invoice attached', 'see attached', {
    attachments: [{ filename: 'invoice-77.pdf', content: Buffer.from('pdf').toString('base64'), type: 'application/pdf' }],
  });

  await page.goto(`${served.url}/messages`);
  const list = page.getByTestId('message-list');
  const search = page.getByLabel('Search messages');
  const warnings = page.getByTestId('search-warnings');
  await expect(list.getByRole('option')).toHaveCount(4);

  const expectRows = async (q: string, subjects: string[], rows = subjects.length) => {
    await search.fill(q);
    await expect(page).toHaveURL(`${served.url}/messages?q=${encodeURIComponent(q).replace(/%20/g, '+')}`);
    await expect(list.getByRole('option')).toHaveCount(rows);
    for (const s of subjects) await expect(list).toContainText(s);
    await expect(warnings).toBeHidden();
  };
  await expectRows('newsletter -unsubscribe', ['Newsletter plain'], 2); // both copies of the plain one: Ann's and Carol's
  await expectRows('has:attachment', ['Invoice attached']);
  await expectRows('filename:invoice', ['Invoice attached']);
  await expectRows('cc:carol@example.com', ['Newsletter plain']);
  await expectRows('-has:attachment -cc:carol@example.com', ['Newsletter with a link', 'Newsletter plain']);
  await expectRows('after:2000-01-01 before:2000-01-02', []);

  // An operator it does not know is named under the box, not left to "No message matches".
  await search.fill('label:work');
  await expect(warnings).toContainText('label: is not an operator: searched as text');
  await expect(warnings).toContainText('has:');
  await expect(search).toHaveAttribute('aria-describedby', 'messages-search-warnings');
  await expect(list.getByRole('option')).toHaveCount(0);
  await search.fill('after:last-week');
  await expect(warnings).toContainText('after:last-week is not a date');
  await search.fill('newsletter');
  await expect(warnings).toBeHidden();
  await expect(list.getByRole('option')).toHaveCount(3);
  expect(errors).toEqual([]);
});

test('search: an answer given before the index caught up says so under the box, and is asked again until complete (Search again asks at once)', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  await sendEmail(page, served, 'ann@example.com', 'Your order shipped', '<p>Track your parcel</p>');
  // The emulator answers index_pending when its index lags behind the stored messages (a load the
  // integration tests make by holding the indexer back): here the first search's answer says so.
  let lagging = true;
  await page.route(/\/emulator\/messages\?.*q=/, async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    if (lagging) body.data.index_pending = 1234;
    await route.fulfill({ response, json: body });
  });
  await page.goto(`${served.url}/messages?q=order`);
  const list = page.getByTestId('message-list');
  const note = page.getByTestId('search-incomplete');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(note).toContainText('The search index is catching up: 1,234 stored messages are not searchable by words yet');

  // Still behind: the page asks again by itself, and keeps saying so.
  let asked = 0;
  page.on('request', (r) => /\/emulator\/messages\?.*q=/.test(r.url()) && asked++);
  await expect.poll(() => asked, { timeout: 10_000 }).toBeGreaterThan(0);
  await expect(note).toBeVisible();
  lagging = false;
  await note.getByRole('button', { name: 'Search again' }).click();
  await expect(note).toBeHidden();
  await expect(list.getByRole('option')).toHaveCount(1);
  // Complete: no more asking.
  const settled = asked;
  await page.waitForTimeout(2500);
  expect(asked).toBe(settled);
  expect(errors).toEqual([]);
});

test("search: deleting a message from its page goes back to the list with the user's search and filters", async ({ served, page }) => {
  const errors = watchErrors(page);
  for (const subject of ['Invoice 1', 'Invoice 2', 'Receipt']) await sendEmail(page, served, 'ann@example.com', subject);
  await page.goto(`${served.url}/messages?q=subject%3Ainvoice`);
  const list = page.getByTestId('message-list');
  await expect(list.getByRole('option')).toHaveCount(2);
  await list.getByRole('option', { name: /Invoice 2/ }).click();
  await expect(page.getByTestId('message-detail')).toContainText('Invoice 2');
  await expect(page).toHaveURL(/\/messages\/[^?]+\?q=subject%3Ainvoice$/);
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('message-detail').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page).toHaveURL(`${served.url}/messages?q=subject%3Ainvoice`);
  await expect(page.getByLabel('Search messages')).toHaveValue('subject:invoice');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(list).toContainText('Invoice 1');
  await expect(page.getByTestId('message-count')).toHaveText('1 message');
  expect(errors).toEqual([]);
});
