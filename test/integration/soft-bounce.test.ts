import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
  emu = await startEmulator();
  await emu.registerEmailWebhook(receiver.url);
  await emu.control.setClock({ speed: 0 });
});
afterEach(async () => {
  await emu.cleanup();
  await receiver.close();
});

const SIM = 'sim.mailyard.test';
const RETRIES = `soft-bounce@${SIM}`;
const GIVES_UP = `soft-bounce-gives-up@${SIM}`;

type Body = { event: string; timestamp: string; recipient: { email: string }; bounce_type?: string; bounce_category?: string; bounce_reason?: string };

/** The webhook bodies received so far about `email`, in the order their events happened. */
function eventsOf(email: string): Body[] {
  return receiver.requests
    .map((r) => JSON.parse(r.body) as Body)
    .filter((b) => b.recipient.email === email)
    .sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}

async function logOf(refId: string, email: string) {
  const { emailLogs } = await emu.service.getEmailLogs({ refId, email });
  expect(emailLogs).toHaveLength(1);
  return emailLogs[0]!;
}

/** Moves the paused clock; the events it makes due are recorded and their webhooks sent before it answers. */
async function advance(ms: number, thenReceived: number) {
  await emu.control.setClock({ advance_ms: ms });
  await receiver.waitFor(thenReceived);
}

describe('soft bounces are retried on the emulator clock', () => {
  it('soft-bounce@ soft-bounces a minute apart, then is delivered; soft-bounce-gives-up@ ends hard-bounced; the log follows', async () => {
    const start = (await emu.control.getClock()).data.now_ms;
    const { ref_id: refId } = await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: RETRIES }, { email: GIVES_UP }],
      subject: 'Your receipt',
      content: [{ type: 'text/plain', value: 'Thanks!' }],
    } as never);

    // The first attempt is refused a minute after the send, not before.
    await emu.control.setClock({ advance_ms: 59_999 });
    expect(receiver.requests).toHaveLength(0);
    expect((await emu.control.getClock()).data.next_event_at).toBe(new Date(start + 60_000).toISOString());
    await advance(1, 2);
    for (const email of [RETRIES, GIVES_UP]) {
      expect(eventsOf(email)).toEqual([expect.objectContaining({ event: 'bounce', bounce_type: 'soft', bounce_category: 'mailbox_full' })]);
      expect(eventsOf(email)[0]!.bounce_reason).toMatch(/^452 4\.2\.2 /);
      // Not final: the log says soft-bounced for now, and the address is not suppressed.
      expect(await logOf(refId, email)).toMatchObject({ status: 'bounced', failedReason: expect.stringMatching(/^452 4\.2\.2 /), deliveredDate: '' });
    }
    expect((await emu.control.getClock()).data.next_event_at).toBe(new Date(start + 120_000).toISOString());

    // The retry a minute later is refused again.
    await advance(60_000, 4);
    expect(eventsOf(RETRIES).map((b) => b.bounce_type)).toEqual(['soft', 'soft']);
    expect(eventsOf(GIVES_UP).map((b) => b.bounce_type)).toEqual(['soft', 'soft']);

    // The next one gets through, or the service gives up.
    await advance(60_000, 6);
    const delivered = eventsOf(RETRIES);
    expect(delivered.map((b) => b.event)).toEqual(['bounce', 'bounce', 'delivery']);
    expect(delivered[2]!.timestamp).toBe(new Date(start + 180_000).toISOString());
    const gaveUp = eventsOf(GIVES_UP);
    expect(gaveUp.map((b) => [b.event, b.bounce_type])).toEqual([
      ['bounce', 'soft'],
      ['bounce', 'soft'],
      ['bounce', 'hard'],
    ]);
    expect(gaveUp[2]).toMatchObject({ bounce_category: 'mailbox_full', bounce_reason: expect.stringMatching(/^552 5\.2\.2 /) });

    expect(await logOf(refId, RETRIES)).toMatchObject({
      status: 'delivered',
      failedReason: '',
      deliveredDate: new Date(start + 180_000).toISOString(),
      track: { bounce: [new Date(start + 60_000).toISOString(), new Date(start + 120_000).toISOString()], delivery: [new Date(start + 180_000).toISOString()] },
    });
    expect(await logOf(refId, GIVES_UP)).toMatchObject({ status: 'bounced', failedReason: expect.stringMatching(/^552 5\.2\.2 /), deliveredDate: '' });

    // The copy's detail tells its three bounces apart as its webhook bodies do: the Events tab reads it.
    const copy = (await emu.control.listMessages({ q: refId })).data.messages.find((m) => m.recipient.email === GIVES_UP)!;
    const events = (await emu.control.getMessage(copy.id)).data.events;
    expect(events.map((e) => [e.event, e.details?.bounce_type])).toEqual([
      ['bounce', 'soft'],
      ['bounce', 'soft'],
      ['bounce', 'hard'],
    ]);
    expect(events.map((e) => e.details)).toEqual(
      gaveUp.map(({ bounce_type, bounce_category, bounce_reason }) => ({ bounce_type, bounce_category, bounce_reason })),
    );
    // A delivery carries nothing of its own.
    const retried = (await emu.control.listMessages({ q: refId })).data.messages.find((m) => m.recipient.email === RETRIES)!;
    expect((await emu.control.getMessage(retried.id)).data.events.map((e) => [e.event, 'details' in e])).toEqual([
      ['bounce', true],
      ['bounce', true],
      ['delivery', false],
    ]);

    // Nothing more is scheduled for either.
    expect((await emu.control.getClock()).data.next_event_at).toBeNull();
  });
});
