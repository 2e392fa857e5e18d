import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src-shared/clients';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../../src-shared/events';
import { EMAIL_EVENT_PAYLOADS } from '../../src-shared/schemas/events';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type ReceivedRequest, type Receiver, startReceiver } from '../helpers/receiver';

/**
 * The newer webhooks guide's table (edith-docs-salesparrow, guides/webhooks): subscription key ->
 * the value the delivered payload's `mailer_events.event` carries. Written out here, not imported,
 * so the emulator is checked against the guide.
 */
const GUIDE: Record<EmailEventKind, string> = {
  delivery: 'MAIL_DELIVERED',
  open: 'MAIL_OPENED',
  click: 'MAIL_CLICKED',
  bounce: 'MAIL_BOUNCE',
  spam: 'MAIL_SPAM',
  unsubscribe: 'MAIL_UNSUBSCRIBED',
  policy_rejection: 'MAIL_POLICY_REJECTION',
  generation_failure: 'MAIL_GENERATION_FAILURE',
  generation_rejection: 'MAIL_GENERATION_REJECTION',
  smtp_error: 'SMTP_ERROR',
  phishing: 'PHISHING',
  imap_error: 'IMAP_ERROR',
};
const KIND_OF = new Map(Object.entries(GUIDE).map(([kind, value]) => [value, kind as EmailEventKind]));
const SIM = 'sim.mailyard.test';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(config: Parameters<typeof startEmulator>[0] = {}): Promise<{ emu: TestEmulator; receiver: Receiver }> {
  const receiver = await startReceiver();
  const emu = await startEmulator(config);
  cleanups.push(
    () => emu.cleanup(),
    () => receiver.close(),
  );
  return { emu, receiver };
}

async function setFormat(emu: TestEmulator, accountId: string, format: string) {
  return emu.request('PUT', `/emulator/accounts/${accountId}/payload-format`, { body: { payload_format: format } });
}

/** Fires one synthetic event of every kind for the account and answers the requests its receiver got, by kind. */
async function fireEveryKind(emu: TestEmulator, receiver: Receiver, accountId: string): Promise<ReceivedRequest[]> {
  const before = receiver.requests.length;
  for (const event of EMAIL_EVENT_KINDS) {
    const fired = (await emu.control.fireEvent({ event, account_id: accountId })).data;
    expect(fired.sent, `${event}: ${fired.reason}`).toBe(true);
  }
  return (await receiver.waitFor(before + EMAIL_EVENT_KINDS.length)).slice(before);
}

/** The spec's payload a body in the newer shape carries: every field but `event` unchanged inside `mailer_events`. */
function innerPayload(body: { mailer_events: Record<string, unknown> }): { kind: EmailEventKind; payload: Record<string, unknown> } {
  const kind = KIND_OF.get(body.mailer_events.event as string);
  expect(kind, `mailer_events.event ${String(body.mailer_events.event)} is not in the guide's table`).toBeDefined();
  return { kind: kind!, payload: { ...body.mailer_events, event: kind } };
}

describe('the payload shape of email events, per account', () => {
  it("an account that asks for mailer_events gets the newer guide's shape for every kind of its table, signed over the body sent; another account the spec's", async () => {
    const { emu, receiver } = await setup();
    const mine = emu.handle.defaultAccount.id;
    await emu.registerEmailWebhook(receiver.url);
    const secret = (await emu.control.setSigningSecret(mine)).data.signing_secret!;

    const chosen = await setFormat(emu, mine, 'mailer-events');
    expect(chosen.status, chosen.text).toBe(200);
    expect(chosen.json.data).toMatchObject({ id: mine, payload_format: 'mailer-events' });
    expect((await emu.control.listAccounts()).data.find((a) => a.id === mine)?.payload_format).toBe('mailer-events');

    const newer = await fireEveryKind(emu, receiver, mine);
    const seen = new Set<string>();
    for (const req of newer) {
      // Signed over exactly the bytes received: a receiver verifying the newer shape's body succeeds.
      const verified = new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as { mailer_events: Record<string, unknown> };
      expect(Object.keys(verified)).toEqual(['mailer_events']);
      const { kind, payload } = innerPayload(verified);
      seen.add(kind);
      // Inside: the spec payload's fields of that kind, exactly.
      expect(() => EMAIL_EVENT_PAYLOADS[kind].parse(payload), kind).not.toThrow();
    }
    expect([...seen].sort()).toEqual([...EMAIL_EVENT_KINDS].sort());

    // Another account, which chose nothing, gets the spec's shape: `event` the lowercase kind.
    const other = (await emu.control.createAccount({ name: 'Spec receiver' })).data;
    expect(other.payload_format).toBe('spec');
    const otherReceiver = await startReceiver();
    cleanups.push(() => otherReceiver.close());
    await new ServiceClient({ baseUrl: emu.url, apiKey: other.api_key }).registerWebhook({
      webhook_url: otherReceiver.url,
      event: 'EMAIL_EVENT',
      method: 'POST',
      webhook_options: { events: Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true])) },
    });
    const spec = await fireEveryKind(emu, otherReceiver, other.id);
    expect(spec.map((r) => (JSON.parse(r.body) as { event: string }).event).sort()).toEqual([...EMAIL_EVENT_KINDS].sort());
    for (const req of spec) {
      const body = JSON.parse(req.body) as { event: EmailEventKind };
      expect(() => EMAIL_EVENT_PAYLOADS[body.event].parse(body)).not.toThrow();
    }

    // Back to the spec's shape: the next event is sent so.
    expect((await setFormat(emu, mine, 'spec')).json.data.payload_format).toBe('spec');
    await emu.control.fireEvent({ event: 'open' });
    const [again] = (await receiver.waitFor(newer.length + 1)).slice(-1);
    expect(JSON.parse(again!.body)).toMatchObject({ event: 'open' });
  });

  it('simulated events follow the choice too; the fired answer and the deliveries list show the body as sent', async () => {
    const { emu, receiver } = await setup();
    const mine = emu.handle.defaultAccount.id;
    await emu.registerEmailWebhook(receiver.url);
    await emu.control.setClock({ speed: 0 });
    await setFormat(emu, mine, 'mailer-events');
    const sent = await emu.service.sendEmail({
      from: { email: 'app@example.com', name: 'App' },
      to: [{ email: `bounce@${SIM}`, name: 'B' }],
      subject: 'Receipt',
      content: [{ type: 'text/plain', value: 'hello' }],
    } as never);
    await emu.control.setClock({ advance_ms: 5_000 });
    const [req] = await receiver.waitFor(1);
    const body = JSON.parse(req!.body) as { mailer_events: Record<string, unknown> };
    expect(body.mailer_events).toMatchObject({ event: 'MAIL_BOUNCE', ref_id: sent.ref_id, recipient: { email: `bounce@${SIM}` }, bounce_type: 'hard' });

    const fired = (await emu.control.fireEvent({ event: 'delivery', ref_id: sent.ref_id })).data;
    expect(fired.payload).toMatchObject({ mailer_events: { event: 'MAIL_DELIVERED', ref_id: sent.ref_id, subject: 'Receipt' } });
    const dry = (await emu.control.fireEvent({ event: 'spam', dry_run: true })).data;
    expect(dry.payload).toMatchObject({ mailer_events: { event: 'MAIL_SPAM' } });

    await receiver.waitFor(2);
    const listed = (await emu.control.listDeliveries()).data.deliveries;
    expect(listed.map((d) => [d.event, d.recipient, d.subject])).toEqual([
      ['delivery', `bounce@${SIM}`, 'Receipt'],
      ['bounce', `bounce@${SIM}`, 'Receipt'],
    ]);
  });

  it('--payload-format sets the shape of accounts that chose none; an account choice wins; bad values are named', async () => {
    const { emu, receiver } = await setup({ payloadFormat: 'mailer-events' });
    const mine = emu.handle.defaultAccount.id;
    expect((await emu.control.listAccounts()).data[0]).toMatchObject({ id: mine, payload_format: 'mailer-events' });
    await emu.registerEmailWebhook(receiver.url);
    await emu.control.fireEvent({ event: 'smtp_error' });
    const [first] = await receiver.waitFor(1);
    expect(JSON.parse(first!.body)).toMatchObject({ mailer_events: { event: 'SMTP_ERROR', smtp_code: 421 } });

    await setFormat(emu, mine, 'spec');
    await emu.control.fireEvent({ event: 'smtp_error' });
    const [, second] = await receiver.waitFor(2);
    expect(JSON.parse(second!.body)).toMatchObject({ event: 'smtp_error' });

    const bad = await setFormat(emu, mine, 'xml');
    expect(bad.status).toBe(400);
    expect(bad.json.fields).toHaveProperty('payload_format');
    expect(bad.json.error).toContain('spec, mailer-events');
    const unknown = await setFormat(emu, '01NOSUCHACCOUNT', 'spec');
    expect([unknown.status, unknown.json.error]).toEqual([404, 'Account Not Found']);
  });

  it('the choice survives a restart on the same data directory', async () => {
    const first = await startEmulator();
    const dir = first.dataDir;
    await setFormat(first, first.handle.defaultAccount.id, 'mailer-events');
    await first.stop();
    const again = await startEmulator({}, {}, dir);
    cleanups.push(async () => {
      await again.cleanup();
      await first.cleanup();
    });
    expect((await again.control.listAccounts()).data[0]!.payload_format).toBe('mailer-events');
  });
});
