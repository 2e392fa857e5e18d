import { afterEach, describe, expect, it } from 'vitest';
import { EmulatorClock } from '../../src-main/core/clock';
import type { DeliveryDetail } from '../../src-shared/schemas/dispatch';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

/**
 * Every due retry happens on time (a test asserts on it right after moving the clock). Many failing
 * deliveries at once, repeated: each delivery's second attempt starts within its scheduled delay
 * plus a small bound after the first ended. A retry missed by the worker waits for the next alarm
 * (the schedule's next step, a minute here), so a miss shows as a second attempt far too late, or
 * none. The bound is set against the same wave: a retry may be late by 2 s of emulated time, or by
 * three times the latest first attempt of its wave (from its delivery's creation to its start) when
 * that is more, as on a machine busy with other work, which delays first attempts and retries alike
 * (the first wave, warming up, most of all: first attempts 670 ms late and retries 765 ms with both
 * cores kept busy by two spinning processes).
 */

/** The emulator clock runs this many times faster than wall time, so a wave takes about half a second. */
const SPEED = 5;
/** Emulated milliseconds (200 ms of wall time). */
const FIRST_RETRY_MS = 1_000;
/** Lateness always allowed, in emulated time (400 ms of wall time). A missed retry waits a minute. */
const BOUND_MS = 2_000;
/** Lateness allowed beyond BOUND_MS, as a multiple of the latest first attempt of the same wave. */
const OVER_FIRST_ATTEMPTS = 3;
const RECIPIENTS = 20;

/**
 * An emulator clock that moves forward a little on every read, as the clock of a machine busy with
 * other work appears to between two reads close together in the code. It makes every "two reads of
 * now" gap in the scheduler real on every tick instead of on an unlucky one.
 */
class StutteringClock extends EmulatorClock {
  private reads = 0;
  override now(): number {
    return super.now() + Math.floor(this.reads++ / 4);
  }
}

let emu: TestEmulator | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await emu?.cleanup();
  await receiver?.close();
  emu = receiver = undefined;
});

async function sendWave(wave: number): Promise<string> {
  const to = Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `${i % 2 === 0 ? 'bounce' : 'smtp-error'}+w${wave}r${i}@sim.mailyard.test` }));
  const res = await emu!.service.sendEmail({
    from: { email: 'app@example.com' },
    to,
    subject: `wave ${wave}`,
    content: [{ type: 'text/plain', value: 'hello' }],
  } as never);
  return (res as { ref_id: string }).ref_id;
}

/** The deliveries of one send, with their attempts, once each has at least two (or the wait ends). */
async function deliveriesWithRetries(refId: string, expected: number, timeoutMs: number): Promise<DeliveryDetail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await emu!.control.listDeliveries({ ref_id: refId, limit: 500 })).data.deliveries;
    const done = list.filter((d) => d.attempts >= 2 && d.status !== 'sending');
    if ((list.length >= expected && done.length === list.length) || Date.now() > deadline) {
      return Promise.all(list.map(async (d) => (await emu!.control.getDelivery(d.id)).data));
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** How late the wave's latest first attempt started after its delivery was made, in emulated time. */
function firstAttemptLateness(deliveries: DeliveryDetail[]): number {
  return Math.max(0, ...deliveries.map((d) => (d.attempt_log[0] ? Date.parse(d.attempt_log[0].started_at) - Date.parse(d.created_at) : 0)));
}

function lateRetries(deliveries: DeliveryDetail[], allowedMs: number): string[] {
  const late: string[] = [];
  for (const d of deliveries) {
    const [first, second] = d.attempt_log;
    if (!first || !second) {
      late.push(`${d.id} (${d.event}) has ${d.attempt_log.length} attempt(s), status ${d.status}, next ${d.next_attempt_at}`);
      continue;
    }
    // Emulated time between the starts; the receiver answers at once, so the first attempt's own
    // duration is within the bound.
    const gap = Date.parse(second.started_at) - Date.parse(first.started_at);
    if (gap < FIRST_RETRY_MS || gap > FIRST_RETRY_MS + allowedMs)
      late.push(`${d.id} (${d.event}): second attempt ${gap} ms after the first (allowed ${allowedMs} ms late)`);
  }
  return late;
}

async function runWaves(waves: number, clock?: EmulatorClock): Promise<void> {
  receiver = await startReceiver();
  receiver.status = 500;
  emu = await startEmulator({ retrySchedule: [FIRST_RETRY_MS, 60_000] }, clock ? { clock } : {});
  await emu.registerEmailWebhook(receiver.url);
  await emu.control.setClock({ speed: SPEED });
  for (let wave = 0; wave < waves; wave++) {
    const refId = await sendWave(wave);
    // Every recipient gets one event a second after the send (a bounce or an SMTP error), each one delivery.
    const deliveries = await deliveriesWithRetries(refId, RECIPIENTS, 5_000);
    expect(deliveries.length, `wave ${wave}`).toBeGreaterThanOrEqual(RECIPIENTS);
    const allowedMs = Math.max(BOUND_MS, OVER_FIRST_ATTEMPTS * firstAttemptLateness(deliveries));
    expect(lateRetries(deliveries, allowedMs), `wave ${wave}`).toEqual([]);
  }
}

describe('due retries under many failing deliveries at once', () => {
  it('retries every delivery within its schedule, wave after wave (100 waves)', async () => {
    await runWaves(100);
  }, 240_000);

  it('does so when the clock moves between two reads of it (a busy machine)', async () => {
    await runWaves(20, new StutteringClock());
  }, 120_000);
});
