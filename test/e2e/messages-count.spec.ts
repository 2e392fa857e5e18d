import type { Page, Route } from '@playwright/test';
import { api, expect, type Served, test, watchErrors } from './fixtures';

/**
 * The Messages list and its count ("N messages", "Delete N matches") describe one answer. Each test
 * holds back the answers a screen that asked for them apart would depend on, in the order a busy
 * machine can give them, and checks the count shown agrees with the rows shown.
 */

const newsletter = (page: Page, served: Served, subject: string) =>
  api(page, served, 'POST', '/v1/email/send', {
    from: { email: 'news@letters.test', name: 'Letters' },
    to: [{ email: 'ann@example.com' }],
    subject,
    content: [{ type: 'text/plain', value: 'the weekly letter' }],
  });

/** Holds the answers to requests of `path` (the server has answered them) until `release()`. */
async function holdAnswers(page: Page, path: string) {
  const held: Array<() => Promise<void>> = [];
  let holding = true;
  await page.route(
    (url) => url.pathname === path,
    async (route: Route) => {
      if (!holding) return route.continue();
      const answer = await route.fetch();
      held.push(() => route.fulfill({ response: answer }));
    },
  );
  return {
    held: () => held.length,
    release: async () => {
      holding = false;
      for (const fulfil of held.splice(0)) await fulfil();
    },
  };
}

async function openNewsletters(page: Page, served: Served) {
  await newsletter(page, served, 'Newsletter one');
  await newsletter(page, served, 'Newsletter two');
  await page.goto(`${served.url}/messages?q=newsletter`);
  await expect(page.getByTestId('message-list').getByRole('option')).toHaveCount(2);
  await expect(page.getByTestId('message-count')).toHaveText('2 messages');
}

test('Messages: a search that finds nothing never shows the count of the search before it', async ({ served, page }) => {
  const errors = watchErrors(page);
  await openNewsletters(page, served);
  // A count asked apart from its list can be answered late (a busy machine): it is held here.
  const counts = await holdAnswers(page, '/emulator/messages/count');
  await page.getByLabel('Search messages').fill('newsletter after:2000-01-01 before:2000-01-02');
  await expect(page.getByText('No message matches these filters.')).toBeVisible();
  try {
    await expect(page.getByTestId('message-count')).toHaveText('0 messages');
    await expect(page.getByRole('button', { name: /^Delete/ })).toHaveText('Delete 0 matches');
  } finally {
    await counts.release();
  }
  expect(errors).toEqual([]);
});

test('Messages: a message that arrives while the count is on its way is counted once, like its row', async ({ served, page }) => {
  const errors = watchErrors(page);
  await openNewsletters(page, served);
  const list = page.getByTestId('message-list');
  // The next count is answered before the new message is stored, and reaches the page after its live row.
  const counts = await holdAnswers(page, '/emulator/messages/count');
  await page.getByLabel('Search messages').fill('newsletter one');
  await expect(list.getByRole('option')).toHaveCount(1);
  await page.getByLabel('Search messages').fill('newsletter');
  await expect(list.getByRole('option')).toHaveCount(2);
  await newsletter(page, served, 'Newsletter three');
  try {
    await expect(list.getByRole('option')).toHaveCount(3);
  } finally {
    await counts.release();
  }
  await expect(page.getByTestId('message-count')).toHaveText('3 messages');
  await expect(page.getByRole('button', { name: /^Delete/ })).toHaveText('Delete 3 matches');
  expect(errors).toEqual([]);
});

test('Messages: a message stored while the list is on its way shows on top of it and in its count', async ({ served, page }) => {
  const errors = watchErrors(page);
  await openNewsletters(page, served);
  const list = page.getByTestId('message-list');
  // The list is answered (two newsletters) before the third is stored, and reaches the page after its announcement.
  const lists = await holdAnswers(page, '/emulator/messages');
  await page.getByLabel('Search messages').fill('newsletter letters');
  await expect.poll(lists.held).toBe(1);
  await newsletter(page, served, 'Newsletter three');
  await lists.release();
  await expect(list.getByRole('option')).toHaveCount(3);
  await expect(list).toContainText('Newsletter three');
  await expect(page.getByTestId('message-count')).toHaveText('3 messages');
  expect(errors).toEqual([]);
});
