import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient, ServiceClient } from '../../src-shared/clients';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { startServeProcess } from '../helpers/serve-process';

const KEY = 'crash-test-key-1234';
const TOTAL = 2_000;

let dir: string;
let receiver: Receiver;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailyard-crash-'));
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `task` over `items` with at most `limit` at a time. */
async function pool<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i]!);
      }
    }),
  );
  return results;
}

describe('crash safety', () => {
  it(`loses none of ${TOTAL} pending deliveries to kill -9: the next start delivers every one`, { timeout: 120_000 }, async () => {
    // Phase 1: the receiver never answers, so deliveries pile up (8 in flight, the rest pending).
    let phase = 1;
    receiver.answer = () => (phase === 1 ? 'hang' : 200);
    const first = await startServeProcess(['--http-port', '0', '--data-dir', dir, '--api-key', KEY]);
    const control = new ControlClient({ baseUrl: first.url });
    await new ServiceClient({ baseUrl: first.url, apiKey: KEY }).registerWebhook({
      webhook_url: receiver.url,
      event: 'EMAIL_EVENT',
      method: 'POST',
      webhook_options: { events: { delivery: true } },
    });
    const ids = await pool([...Array(TOTAL).keys()], 16, async (i) => {
      const res = await control.fireEvent({ event: 'delivery', fields: { ref_id: `crash-${i}` } });
      return res.data.delivery_id!;
    });
    expect(new Set(ids).size).toBe(TOTAL);
    await receiver.waitFor(8);
    // 8 on the wire (the per-target cap), at most one more round claimed to go next, the rest pending.
    const pending = (await control.getClock()).data.pending_deliveries;
    expect(pending).toBeGreaterThanOrEqual(TOTAL - 16);
    expect(pending).toBeLessThanOrEqual(TOTAL - 8);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests).toHaveLength(8);

    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    // Phase 2: a new process on the same data; the receiver now answers 200.
    phase = 2;
    const answeredBefore = receiver.requests.length;
    const second = await startServeProcess(['--http-port', '0', '--data-dir', dir, '--api-key', KEY]);
    try {
      const control2 = new ControlClient({ baseUrl: second.url });
      // The 8 interrupted attempts count as failed and are retried after 5 s of emulated time.
      await control2.setClock({ advance_ms: 10_000 });
      const deadline = Date.now() + 60_000;
      let delivered = new Set<string>();
      while (delivered.size < TOTAL && Date.now() < deadline) {
        delivered = new Set(receiver.requests.slice(answeredBefore).map((r) => String(r.headers['webhook-id'])));
        if (delivered.size < TOTAL) await new Promise((r) => setTimeout(r, 100));
      }
      expect([...ids].filter((id) => !delivered.has(id))).toEqual([]);

      // Every delivery is recorded as succeeded; the interrupted ones say so in their attempt log.
      let succeeded = 0;
      let cursor: string | undefined;
      do {
        const page = (await control2.listDeliveries({ status: 'succeeded', limit: 500, cursor })).data;
        succeeded += page.deliveries.length;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(succeeded).toBe(TOTAL);
      const interrupted = receiver.requests.slice(0, 8).map((r) => String(r.headers['webhook-id']));
      const detail = (await control2.getDelivery(interrupted[0]!)).data;
      expect(detail.attempt_log[0]).toMatchObject({ trigger: 'recovered', outcome: 'failed', error: { code: 'interrupted' } });
      expect(detail.attempt_log.at(-1)).toMatchObject({ outcome: 'succeeded' });
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  it('resumes pending deliveries after a clean stop too', { timeout: 60_000 }, async () => {
    const cleanDir = join(dir, 'clean');
    receiver.answer = () => 503;
    const first = await startServeProcess(['--http-port', '0', '--data-dir', cleanDir, '--api-key', KEY]);
    const control = new ControlClient({ baseUrl: first.url });
    await new ServiceClient({ baseUrl: first.url, apiKey: KEY }).registerWebhook({
      webhook_url: receiver.url,
      event: 'EMAIL_EVENT',
      method: 'POST',
      webhook_options: { events: { open: true } },
    });
    const before = receiver.requests.length;
    const id = (await control.fireEvent({ event: 'open' })).data.delivery_id!;
    await receiver.waitFor(before + 1);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    receiver.answer = () => 200;
    const second = await startServeProcess(['--http-port', '0', '--data-dir', cleanDir, '--api-key', KEY]);
    try {
      const control2 = new ControlClient({ baseUrl: second.url });
      // Its retry may already be due (the emulator's clock ran on while the processes stopped and
      // started): the clock moved past it makes it due in any case.
      await control2.setClock({ advance_ms: 5_000 });
      await receiver.waitFor(before + 2);
      expect(receiver.requests[before + 1]!.headers['webhook-id']).toBe(id);
      await expect.poll(async () => (await control2.getDelivery(id)).data.status).toBe('succeeded');
      // The stop was clean: the first attempt's answer was kept (nothing was interrupted), the retry took.
      const log = (await control2.getDelivery(id)).data.attempt_log;
      expect(log.map((a) => a.outcome)).toEqual(['failed', 'succeeded']);
      expect(log[0]).toMatchObject({ response: { status: 503 } });
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
