import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

/**
 * A clock move settles. `POST /emulator/clock` answers once every simulated event that fell due up
 * to the new time is recorded in the log and its webhook delivery attempted and recorded, so a test
 * can assert right after the move, without waiting.
 */

let emu: TestEmulator;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  emu = await startEmulator();
  await emu.registerEmailWebhook(receiver.url);
});
afterAll(async () => {
  await emu.cleanup();
  await receiver.close();
});

async function send(local: string): Promise<string> {
  const res = await emu.service.sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email: `${local}@sim.mailyard.test` }],
    subject: 'Settle',
    content: [{ type: 'text/plain', value: 'hello' }],
  } as never);
  return (res as { ref_id: string }).ref_id;
}

describe('a clock move settles before it answers', () => {
  it('records the bounce and its attempted delivery, and a delivered log, right after the move (100 runs)', async () => {
    for (let run = 0; run < 100; run++) {
      receiver.status = 200;
      const bounced = await send(`bounce+r${run}`);
      const delivered = await send(`delivered+r${run}`);
      const moved = (await emu.control.setClock({ advance_ms: 60_000 })).data;
      expect(moved.in_flight, `run ${run}`).toBe(0);

      const deliveries = (await emu.control.listDeliveries({ ref_id: bounced, limit: 50 })).data.deliveries;
      const bounce = deliveries.find((d) => d.event === 'bounce');
      expect(bounce, `run ${run}: the bounce's delivery`).toBeDefined();
      expect(bounce!.status, `run ${run}`).toBe('succeeded');
      expect(bounce!.attempts, `run ${run}`).toBe(1);

      const log = (await emu.service.getEmailLogs({ refId: delivered })).emailLogs[0];
      expect(log?.status, `run ${run}: the delivered@ log`).toBe('delivered');
      const bouncedLog = (await emu.service.getEmailLogs({ refId: bounced })).emailLogs[0];
      expect(bouncedLog?.status, `run ${run}: the bounce@ log`).toBe('bounced');
    }
  }, 120_000);

  it('waits for a failing attempt to be recorded with its retry scheduled', async () => {
    receiver.status = 503;
    const ref = await send('bounce+failing');
    const moved = (await emu.control.setClock({ advance_ms: 60_000 })).data;
    const [d] = (await emu.control.listDeliveries({ ref_id: ref, event: 'bounce', limit: 5 })).data.deliveries;
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 503 });
    // The retry is scheduled on the clock, 5 s after the attempt: not due yet, so not waited for.
    expect(moved.pending_deliveries).toBeGreaterThanOrEqual(1);
    expect(Date.parse(moved.next_due_at!)).toBeGreaterThan(moved.now_ms);
    receiver.status = 200;
    const next = (await emu.control.setClock({ advance_ms: Date.parse(moved.next_due_at!) - moved.now_ms + 1 })).data;
    const detail = (await emu.control.getDelivery(d!.id)).data;
    expect(detail.status).toBe('succeeded');
    expect(detail.attempt_log.map((a) => a.outcome)).toEqual(['failed', 'succeeded']);
    expect(next.pending_deliveries).toBe(0);
  });

  it('answers with the attempts still in flight when a receiver does not answer in time', async () => {
    const hanging = await startReceiver();
    hanging.answer = () => 'hang';
    try {
      const other = await startEmulator({ deliveryTimeoutMs: 60_000 });
      try {
        await other.registerEmailWebhook(hanging.url);
        await other.service.sendEmail({
          from: { email: 'app@example.com' },
          to: [{ email: 'bounce@sim.mailyard.test' }],
          subject: 'Hang',
          content: [{ type: 'text/plain', value: 'hello' }],
        } as never);
        const started = performance.now();
        const moved = (await other.control.setClock({ advance_ms: 60_000 })).data;
        const waited = performance.now() - started;
        // It waited for the receiver, a bounded time (2 s), and did not hold the answer until the attempt's
        // time-out (60 s): it answered with the attempt still in flight, and the attempt is still on the wire.
        expect(waited).toBeGreaterThan(1_500);
        expect(moved.in_flight).toBe(1);
        const [d] = (await other.control.listDeliveries({ event: 'bounce', limit: 5 })).data.deliveries;
        expect(d!.status).toBe('sending');
      } finally {
        await other.cleanup();
      }
    } finally {
      await hanging.close();
    }
  }, 30_000);
});
