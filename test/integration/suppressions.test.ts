import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, ServiceClient } from '../../src-shared/clients';
import { BOUNCE_REPLIES } from '../../src-shared/simulator';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

let emu: TestEmulator;

beforeEach(async () => {
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
});
afterEach(async () => {
  await emu.cleanup();
});

const SIM = 'sim.mailyard.test';

async function send(to: string, client: ServiceClient = emu.service) {
  const { ref_id } = await client.sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email: to }],
    subject: 'Hello',
    content: [{ type: 'text/plain', value: 'Hi' }],
  });
  return ref_id;
}

/**
 * Recipients the simulation bounces or complains about through rules, as a QA engineer sets them up:
 * the simulator's own addresses (`bounce@sim...`) are fixtures that never get suppressed by a bounce.
 */
async function useRules() {
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
    ],
  });
}

/** Runs the simulation's due events (delivery 1 s, engagement 4 s later) on the paused clock. */
async function settle() {
  await emu.control.setClock({ advance_ms: 10_000 });
}

async function logOf(refId: string, client: ServiceClient = emu.service) {
  const { emailLogs } = await client.getEmailLogs({ refId });
  expect(emailLogs).toHaveLength(1);
  return emailLogs[0]!;
}

describe('bounce reasons in the email logs', () => {
  it('a hard bounce carries its 550 5.1.1 reply in failedReason, a soft bounce its 452 4.2.2 reply', async () => {
    const hard = await send(`hard-bounce@${SIM}`);
    const soft = await send(`soft-bounce@${SIM}`);
    await settle();
    // A soft bounce's first refusal comes a minute after the send (it is retried after).
    await emu.control.setClock({ advance_ms: 50_000 });
    const h = await logOf(hard);
    expect(h.status).toBe('bounced');
    expect(h.failedReason).toBe(BOUNCE_REPLIES.invalid_recipient.hard(`hard-bounce@${SIM}`));
    expect(h.failedReason).toMatch(/^550 5\.1\.1 /);
    const s = await logOf(soft);
    expect(s.status).toBe('bounced');
    expect(s.failedReason).toMatch(/^452 4\.2\.2 /);
    // The message detail (the UI's page) has the same reason.
    const copy = (await emu.control.listMessages({ q: hard })).data.messages[0]!;
    expect(copy.failed_reason).toBe(h.failedReason);
  });

  it('a delivered copy keeps failedReason ""', async () => {
    const ref = await send(`delivered@${SIM}`);
    await settle();
    expect(await logOf(ref)).toMatchObject({ status: 'delivered', failedReason: '' });
  });
});

describe('suppression after hard bounces and complaints', () => {
  it('a hard bounce suppresses the address with its reply and the message; the next send fails as suppressed, with no event', async () => {
    await useRules();
    const to = 'ann@bounces.example';
    const first = await send(to);
    await settle();
    const copy = (await emu.control.listMessages({ q: first })).data.messages[0]!;
    const { data } = await emu.control.listSuppressions();
    expect(data.suppressions).toEqual([
      {
        email: to,
        source: 'hard bounce',
        reason: BOUNCE_REPLIES.invalid_recipient.hard(to),
        message_id: copy.id,
        since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    const second = await send(to);
    await settle();
    const log = await logOf(second);
    expect(log.status).toBe('failed');
    expect(log.failedReason).toBe('recipient is on the suppression list (hard bounce)');
    expect(Object.keys(log.track)).toEqual([]);
  });

  it('a spam complaint suppresses the address; a soft bounce does not', async () => {
    await useRules();
    await send('bob@complainers.example');
    await send('carol@full.example');
    await settle();
    const { data } = await emu.control.listSuppressions();
    expect(data.suppressions.map((s) => [s.email, s.source, s.reason])).toEqual([
      ['bob@complainers.example', 'spam complaint', 'the recipient marked the message as spam'],
    ]);
  });

  it("the simulator's addresses are not suppressed by their bounces and complaints: a test sends to them again and again", async () => {
    for (const local of ['bounce', 'spam']) {
      const first = await send(`${local}@${SIM}`);
      await settle();
      const second = await send(`${local}@${SIM}`);
      await settle();
      expect((await logOf(first)).status).toBe((await logOf(second)).status);
      expect((await logOf(second)).status).toMatch(/bounced|spam/);
    }
    expect((await emu.control.listSuppressions()).data.suppressions).toEqual([]);
  });

  it('the unsubscribe API still suppresses (source api, no message); subscribe lifts it', async () => {
    await emu.service.unsubscribeEmail({ email: 'Ann@Example.com' });
    expect((await emu.control.listSuppressions()).data.suppressions).toMatchObject([{ email: 'ann@example.com', source: 'api', message_id: null }]);
    await emu.service.subscribeEmail({ email: 'ann@example.com' });
    expect((await emu.control.listSuppressions()).data.suppressions).toEqual([]);
  });
});

describe('the suppressions control routes', () => {
  it('lists per account and removes one; the address then gets mail again', async () => {
    const { data: other } = await emu.control.createAccount({ name: 'Other' });
    const otherClient = new ServiceClient({ baseUrl: emu.url, apiKey: other.api_key });
    await useRules();
    const to = 'dave@bounces.example';
    await send(to, otherClient);
    await settle();
    expect((await emu.control.listSuppressions()).data.suppressions).toEqual([]);
    const listed = (await emu.control.listSuppressions({ account_id: other.id })).data;
    expect(listed).toMatchObject({ account_id: other.id, truncated: false, suppressions: [{ email: to, source: 'hard bounce' }] });

    expect((await emu.control.removeSuppression(to.toUpperCase(), { account_id: other.id })).data).toEqual({ account_id: other.id, email: to, removed: true });
    expect((await emu.control.listSuppressions({ account_id: other.id })).data.suppressions).toEqual([]);
    const again = await send(to, otherClient);
    await settle();
    expect((await logOf(again, otherClient)).status).toBe('bounced');
  });

  it('looks up only the addresses named (the Send form asks for its recipients), case-insensitive; at most 100 a look-up', async () => {
    for (const email of ['ann@example.com', 'bob@example.com', 'cy@example.com']) await emu.service.unsubscribeEmail({ email });
    const found = (await emu.control.listSuppressions({ email: 'Bob@Example.com,nobody@example.com,ann@example.com,bob@example.com' })).data;
    expect(found.suppressions.map((s) => s.email)).toEqual(['bob@example.com', 'ann@example.com']);
    expect(found.suppressions[0]).toMatchObject({ source: 'api', reason: '', message_id: null });
    expect(found.truncated).toBe(false);
    const many = Array.from({ length: 101 }, (_, i) => `r${i}@example.com`).join(',');
    const res = await fetch(`${emu.url}/emulator/suppressions?email=${encodeURIComponent(many)}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/email.*at most 100 addresses/);
  });

  it('answers 404 for an address that is not suppressed and for an unknown account, 400 naming a bad query field', async () => {
    const notSuppressed = await emu.control.removeSuppression('nobody@example.com').catch((e: unknown) => e);
    expect(notSuppressed).toBeInstanceOf(ApiError);
    expect((notSuppressed as ApiError).status).toBe(404);
    expect((notSuppressed as ApiError).body.error).toMatch(/nobody@example.com is not suppressed/);
    const unknown = await emu.control.listSuppressions({ account_id: 'no-such-account' }).catch((e: unknown) => e);
    expect((unknown as ApiError).status).toBe(404);
    const res = await fetch(`${emu.url}/emulator/suppressions?account_id=&extra=1`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/account_id|extra/);
  });
});
