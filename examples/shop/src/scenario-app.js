// @ts-check
/**
 * The shop as the app under test of a Mailyard scenario (examples/scenarios/): starts its webhook
 * receiver (registered with the service), then sends the newsletter SHOP_ROUNDS times, SHOP_ROUND_MS
 * apart, to SHOP_RECIPIENTS (comma-separated), skipping the addresses the webhooks suppressed; then
 * keeps receiving until stopped. Reads what server.js reads (MAIL_API_URL, MAIL_API_KEY,
 * MAIL_WEBHOOK_SECRET, PORT), which `mailyard scenario run` provides.
 *
 * SHOP_IGNORE_SUPPRESSIONS=1 is a bug on purpose, for the scenario built to fail
 * (failing-keeps-sending.yaml): the shop then sends to every address, bounced or not.
 *
 * Before the next round, the shop waits until an event of each send of the round has reached its
 * receiver (at most SHOP_EVENT_WAIT_MS, default 30 s): as a newsletter's rounds are days apart, the
 * next one is sent knowing what became of the last, so a scenario's verdict does not depend on how
 * fast a busy machine delivered the webhooks.
 */
import { configFromEnv } from './config.js';
import { createShop } from './shop.js';

const shop = createShop(configFromEnv());
const url = await shop.start(Number(process.env.PORT ?? 0));
console.log(`webhook receiver registered at ${url}`);

const recipients = (process.env.SHOP_RECIPIENTS ?? 'ann@example.test')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const rounds = Number(process.env.SHOP_ROUNDS ?? 3);
const roundMs = Number(process.env.SHOP_ROUND_MS ?? 1000);
const ignoreSuppressions = process.env.SHOP_IGNORE_SUPPRESSIONS === '1';
const eventWaitMs = Number(process.env.SHOP_EVENT_WAIT_MS ?? 30_000);

/**
 * Resolves once the receiver has handled an event of each of these sends, or after `eventWaitMs`.
 * @param {string[]} refIds
 */
async function eventsOf(refIds) {
  const deadline = Date.now() + eventWaitMs;
  const missing = () => refIds.filter((ref) => !shop.receiver.handled.some((e) => e.ref_id === ref));
  while (missing().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const left = missing().length;
  if (left > 0) console.log(`no event yet of ${left} of the round's ${refIds.length} sends after ${eventWaitMs} ms; going on`);
}

for (let round = 1; round <= rounds; round++) {
  /** @type {string[]} */
  let refIds;
  if (ignoreSuppressions) {
    refIds = [];
    for (const to of recipients) {
      refIds.push(await shop.api.send({ to, subject: 'News from the shop', html: '<p>New arrivals this week.</p>', campaignId: 'newsletter' }));
    }
    console.log(`round ${round}: sent to all ${recipients.length} (suppressions ignored)`);
  } else {
    const { sent, skipped } = await shop.sendNewsletter(recipients);
    refIds = [...sent.values()];
    console.log(`round ${round}: sent ${sent.size}, skipped ${skipped.length} (${skipped.join(', ')})`);
  }
  if (round < rounds) {
    await eventsOf(refIds);
    await new Promise((r) => setTimeout(r, roundMs));
  }
}

process.on('SIGTERM', () => shop.stop().then(() => process.exit(0)));
