/**
 * Sends whose To line names every recipient (1,000 of them) give each copy some 20 KB of header text to
 * index, so indexing a send costs as much as a thousand large messages. The indexer must do it without
 * holding the event loop: it held it 2.4-2.7 s (a send's copies indexed in one piece, five times over
 * in the work below), and closed kept-alive HTTP connections under a client's next request (a CI run
 * saw `ECONNRESET`). The bound is against the same run: no hold (and no /emulator/health answer)
 * longer than a twentieth of the whole work's time. Measured on the shared 2-core machine, busy with
 * other work: 449 ms of 18.4 s (0.024); with both cores also kept busy by two spinning processes,
 * 962 ms of 53 s (0.018). The old absolute bound (500 ms) failed on a busy machine.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { holdBoundMs, measureWhile } from '../helpers/under-load';

const SENDS = 5;
const RECIPIENTS = 1000;
/** The longest hold allowed, as a share of the whole work's time in the same run. */
const SHARE = 1 / 20;

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
});
afterAll(async () => {
  await emu.cleanup();
});

it('indexes 5 sends of 1,000 recipients, each To line naming all, without holding the event loop', { timeout: 120_000 }, async () => {
  const m = await measureWhile(emu, async () => {
    for (let s = 0; s < SENDS; s++) {
      const res = await emu.request('POST', '/v1/email/send', {
        body: {
          from: { email: 'news@example.com' },
          to: Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `w${s}-${i}@example.org` })),
          subject: `Wide ${s}`,
          content: [{ type: 'text/plain', value: `Issue ${s} of the quarterly letter` }],
        },
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
    }
    // A search waits for the index (at most 1 s, then it counts what is indexed, saying index_pending:
    // it asks again): once it counts them all, every copy above is indexed.
    const deadline = Date.now() + 60_000;
    let count = 0;
    while (count < SENDS * RECIPIENTS && Date.now() < deadline) count = (await emu.control.countMessages({ q: 'quarterly' })).data.count;
    return count;
  });
  expect(m.res).toBe(SENDS * RECIPIENTS);
  const boundMs = holdBoundMs(m, SHARE);
  const figures = {
    copies: SENDS * RECIPIENTS,
    seconds: Math.round(m.seconds * 10) / 10,
    health_worst_ms: Math.round(m.healthWorstMs),
    event_loop_max_ms: Math.round(m.eventLoopMaxMs),
    bound_ms: Math.round(boundMs),
    health_checks: m.healthChecks,
  };
  console.log(JSON.stringify(figures));
  expect(m.eventLoopMaxMs).toBeLessThanOrEqual(boundMs);
  expect(m.healthWorstMs).toBeLessThanOrEqual(boundMs);
  // An address found only in the last send's To line of another copy: the header text was indexed.
  const byHeader = await emu.control.countMessages({ q: `to:w${SENDS - 1}-${RECIPIENTS - 1}@example.org` });
  expect(byHeader.data.count).toBeGreaterThanOrEqual(1);
});
