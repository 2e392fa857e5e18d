import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src-shared/clients';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { BOUNCE_REPLIES } from '../../src-shared/simulator';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * A message's detail answers the rules a client would otherwise copy: what firing each event kind at
 * the copy would do (`fire_outcomes`), and whether its recipient is suppressed (`suppression`). The UI
 * asks before a fire that changes a final status and says whether a bounced address is suppressed from
 * these answers alone, so they must be what the emulator then does.
 */

let emu: TestEmulator;

beforeEach(async () => {
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
  await emu.control.setRules({
    rules: [
      { pattern: '*@bounces.example', events: [{ event: 'bounce', delay_ms: 1000 }] },
      { pattern: '*@full.example', events: [{ event: 'bounce', delay_ms: 1000, fields: { bounce_type: 'soft' } }] },
      {
        pattern: '*@complainers.example',
        events: [
          { event: 'delivery', delay_ms: 1000 },
          { event: 'spam', delay_ms: 1000 },
        ],
      },
      {
        pattern: '*@leavers.example',
        events: [
          { event: 'delivery', delay_ms: 1000 },
          { event: 'unsubscribe', delay_ms: 1000 },
        ],
      },
      { pattern: '*@refused.example', events: [{ event: 'policy_rejection', delay_ms: 1000 }] },
    ],
  });
});
afterEach(async () => {
  await emu.cleanup();
});

const SIM = 'sim.mailyard.test';
/** The statuses no later open or click replaces (docs/web-ui.md: the Fire button asks before changing them). */
const FINAL = ['bounced', 'failed', 'spam', 'unsubscribed'];

/** Sends one message to `to` and answers its copy's id. */
async function copyTo(to: string): Promise<string> {
  const { ref_id } = await emu.service.sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email: to }],
    subject: 'Hello',
    content: [{ type: 'text/plain', value: 'Hi' }],
  });
  return (await emu.control.listMessages({ q: ref_id })).data.messages[0]!.id;
}

const detail = async (id: string) => (await emu.control.getMessage(id)).data;

/** Runs the simulation's due events on the paused clock. */
const settle = () => emu.control.setClock({ advance_ms: 10_000 });

/** A copy in each state, by the address that gets it there (`{n}` a number, so each copy has its own recipient). */
const STATES: [state: string, address: string, status: string][] = [
  ['delivered', 'd{n}@example.com', 'delivered'],
  ['hard-bounced (suppressed)', 'b{n}@bounces.example', 'bounced'],
  ["hard-bounced at the simulator's address (not suppressed)", `bounce@${SIM}`, 'bounced'],
  ['soft-bounced', 's{n}@full.example', 'bounced'],
  ['marked as spam', 'c{n}@complainers.example', 'spam'],
  ['unsubscribed', 'u{n}@leavers.example', 'unsubscribed'],
  ['failed', 'r{n}@refused.example', 'failed'],
];

describe('fire_outcomes: what firing each kind would do, as firing it then does', () => {
  it.each(STATES)('a copy %s: every kind', async (_state, address, status) => {
    const copies = await Promise.all(EMAIL_EVENT_KINDS.map(async (kind, n) => ({ kind, id: await copyTo(address.replace('{n}', String(n))) })));
    await settle();
    for (const { kind, id } of copies) {
      const before = await detail(id);
      expect(before.status).toBe(status);
      const outcome = before.fire_outcomes[kind];
      await emu.control.fireEvent({ event: kind, ref_id: before.ref_id, recipient: before.recipient.email });
      const after = await detail(id);
      expect({ kind, status: after.status }).toEqual({ kind, status: outcome.status });
      const changed = after.status !== before.status || after.failed_reason !== before.failed_reason;
      expect({ kind, changes_final: outcome.changes_final }).toEqual({ kind, changes_final: FINAL.includes(before.status) && changed });
      if (outcome.suppresses) expect(after.suppression, kind).not.toBeNull();
      else expect(after.suppression, kind).toEqual(before.suppression);
    }
  });

  it('a delivery or an open fired at a bounced copy changes nothing final; spam does, and says so', async () => {
    const id = await copyTo(`bounce@${SIM}`);
    await settle();
    const { fire_outcomes: outcomes } = await detail(id);
    expect(outcomes.delivery).toEqual({ status: 'bounced', changes_final: false, suppresses: false });
    expect(outcomes.open).toEqual({ status: 'bounced', changes_final: false, suppresses: false });
    // A simulator address is a fixture: a complaint about it does not suppress it.
    expect(outcomes.spam).toEqual({ status: 'spam', changes_final: true, suppresses: false });
    expect(outcomes.unsubscribe).toEqual({ status: 'unsubscribed', changes_final: true, suppresses: true });
  });

  it('spam fired at a copy already marked as spam changes nothing final', async () => {
    const id = await copyTo('ann@complainers.example');
    await settle();
    expect((await detail(id)).fire_outcomes.spam).toEqual({ status: 'spam', changes_final: false, suppresses: true });
  });
});

describe("suppression: the recipient's entry on the suppression list now", () => {
  it('a hard bounce of an address names its entry; a bounce of the simulator address and a soft bounce none; lifting it clears it', async () => {
    const to = 'ann@bounces.example';
    const bounced = await copyTo(to);
    const simulated = await copyTo(`hard-bounce@${SIM}`);
    const soft = await copyTo('carol@full.example');
    await settle();
    expect((await detail(bounced)).suppression).toEqual({
      email: to,
      source: 'hard bounce',
      reason: BOUNCE_REPLIES.invalid_recipient.hard(to),
      message_id: bounced,
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await detail(simulated)).suppression).toBeNull();
    expect((await detail(soft)).suppression).toBeNull();

    await emu.control.removeSuppression(to);
    expect((await detail(bounced)).suppression).toBeNull();
  });

  it("an address suppressed through the API shows on every copy to it, in the copy's account only", async () => {
    const id = await copyTo('Dora@Example.com');
    await emu.service.unsubscribeEmail({ email: 'dora@example.com' });
    expect((await detail(id)).suppression).toMatchObject({ email: 'dora@example.com', source: 'api', message_id: null });
    await emu.service.subscribeEmail({ email: 'dora@example.com' });
    const { data: other } = await emu.control.createAccount({ name: 'Other' });
    await new ServiceClient({ baseUrl: emu.url, apiKey: other.api_key }).unsubscribeEmail({ email: 'dora@example.com' });
    expect((await detail(id)).suppression).toBeNull();
  });
});

describe('the live announcement of an event says whether it suppressed its recipient', () => {
  it('a hard bounce of an address and a complaint do; a soft bounce and a bounce of the simulator address do not', async () => {
    const announced = new Set<string>();
    const suppressing = new Set<string>();
    const off = emu.handle.live.on('message.updated', (u) => {
      announced.add(u.message_id);
      if (u.suppressed) suppressing.add(u.message_id);
    });
    const hard = await copyTo('ann@bounces.example');
    const complained = await copyTo('bob@complainers.example');
    const soft = await copyTo('carol@full.example');
    const simulated = await copyTo(`hard-bounce@${SIM}`);
    await settle();
    off();
    const copies = [hard, complained, soft, simulated];
    expect(copies.filter((id) => announced.has(id))).toEqual(copies);
    expect(copies.map((id) => suppressing.has(id))).toEqual([true, true, false, false]);
  });
});
