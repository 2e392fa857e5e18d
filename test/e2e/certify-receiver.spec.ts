import { api, expect, test, watchErrors } from './fixtures';

test("certify a receiver from the Webhooks screen: the webhook's settings filled in, a wrong secret accepted fails that check, then a fixed receiver passes", async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  // The receiver refuses a missing secret but, until fixed, never compares the value.
  let compares = false;
  receiver.answer = (req) => {
    const secret = req.headers['x-webhook-secret'];
    return (compares ? secret === 's3cret' : secret !== undefined) ? 200 : 401;
  };
  await api(page, served, 'POST', '/v1/webhook/register', {
    webhook_url: receiver.url,
    event: 'EMAIL_EVENT',
    method: 'PUT',
    headers: { 'X-Webhook-Secret': 's3cret' },
    webhook_options: { events: { delivery: true, open: true, click: true } },
  });
  await page.goto(`${served.url}/webhooks`);
  const card = page.getByTestId('certify-receiver');
  await expect(card.getByLabel('Receiver URL')).toHaveValue(receiver.url);
  await expect(card.getByLabel('Receiver method')).toHaveValue('PUT');
  await expect(card.getByLabel('Receiver headers')).toHaveValue('X-Webhook-Secret: s3cret');

  await card.getByRole('button', { name: 'Run the checks' }).click();
  // The verdict names the failed check, and it comes first in the list.
  await expect(card.getByTestId('receiver-verdict')).toContainText('Failed: secret-wrong (1 of 12 checks). 9 passed, 2 skipped');
  await expect(card.getByTestId('receiver-verdict')).toContainText('Processing was not observed (no effects URL)');
  await expect(card.locator('.receiver-check').first()).toHaveAttribute('data-testid', 'receiver-check-secret-wrong');
  const wrong = card.getByTestId('receiver-check-secret-wrong');
  await expect(wrong).toHaveAttribute('data-status', 'failed');
  await expect(wrong).toContainText(/with a wrong X-Webhook-Secret: PUT http:\/\/127\.0\.0\.1:\d+\/hooks answered 200/);
  await expect(card.getByTestId('receiver-check-secret-missing')).toHaveAttribute('data-status', 'passed');
  await wrong.locator('summary').click();
  await expect(wrong.locator('pre')).toContainText('x-webhook-secret: ');
  expect(receiver.requests.every((r) => r.method === 'PUT')).toBe(true);
  await page.setViewportSize({ width: 1100, height: 800 });
  await card.screenshot({ path: 'test-results/workbench-certify.png' });

  compares = true;
  await card.getByRole('button', { name: 'Run the checks' }).click();
  await expect(card.getByTestId('receiver-verdict')).toContainText('Passed: 10 passed, 0 failed, 2 skipped');
  // Without an effects URL the duplicate passed on its answers only, and says processing was not observed.
  await expect(card.getByTestId('receiver-processed-duplicate')).toHaveText('Processing not observed (a correct receiver: +1)');
  await expect(card.getByTestId('receiver-check-duplicate')).toContainText('Only the answers were graded');
  expect(errors).toEqual([]);
});

test('certify with an effects URL: a receiver acting on a duplicate twice fails that check, named first; the quick-ack fold counts every answer it graded', async ({
  served,
  receiver,
  page,
}) => {
  const errors = watchErrors(page);
  // It acts on every request it acknowledges, a duplicate included, and counts them at GET /effects.
  let processed = 0;
  receiver.answer = (req) => {
    if (req.method === 'GET') return { status: 200, body: JSON.stringify({ processed }) };
    processed++;
    return 200;
  };
  await api(page, served, 'POST', '/v1/webhook/register', {
    webhook_url: receiver.url,
    event: 'EMAIL_EVENT',
    method: 'POST',
    webhook_options: { events: { delivery: true, open: true, click: true, bounce: true } },
  });
  await page.goto(`${served.url}/webhooks`);
  const card = page.getByTestId('certify-receiver');
  await card.getByLabel('Effects URL').fill(`${receiver.url}/effects`);
  await card.getByRole('button', { name: 'Run the checks' }).click();
  const verdict = card.getByTestId('receiver-verdict');
  await expect(verdict).toContainText(/^Failed: duplicate \(1 of 13 checks\)\. 8 passed, 4 skipped/);
  await expect(verdict).not.toContainText('not observed');
  await expect(card.locator('.receiver-check').first()).toHaveAttribute('data-testid', 'receiver-check-duplicate');
  const duplicate = card.getByTestId('receiver-check-duplicate');
  await expect(duplicate).toContainText(/processed went from \d+ to \d+ \(\+2; a receiver that acts on the event once makes \+1\)/);
  await expect(duplicate).toContainText(
    'Deduplicate by webhook-id: an event keeps one webhook-id through all its retries, and two different events never share one.',
  );
  await expect(card.getByTestId('receiver-processed-duplicate')).toHaveText('Processed +2 (a correct receiver: +1)');
  await expect(card.getByTestId('receiver-processed-same-kind-twice')).toHaveText('Processed +2 (a correct receiver: +2)');
  // quick-ack graded the four event checks' answers, and its fold says so and lists them.
  await expect(card.getByTestId('receiver-fold-quick-ack')).toContainText('4 answers graded');
  await expect(card.getByTestId('receiver-check-quick-ack')).toContainText('all 4 answers within 5000 ms');
  await page.setViewportSize({ width: 1280, height: 900 });
  await card.screenshot({ path: test.info().outputPath('certify-effects-failed-first.png') });
  expect(errors).toEqual([]);
});
