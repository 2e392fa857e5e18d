import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { ServiceClient } from '../../src-shared/clients';
import { DEFAULT_SECRET_GRACE_MS } from '../../src-shared/schemas/dispatch';
import { deliveryHelpers, emulatorAndReceiverPerTest, registerHook } from '../helpers/deliveries';
import type { TestEmulator } from '../helpers/emulator';
import { type ReceivedRequest, type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;
const cleanups = emulatorAndReceiverPerTest((e, r) => {
  emu = e;
  receiver = r;
});

const { pauseClock, advance, attemptsOf } = deliveryHelpers(() => emu);

/** The account's signing secret, newly set. */
async function signing(on: TestEmulator = emu): Promise<string> {
  return (await on.control.setSigningSecret(on.handle.defaultAccount.id)).data.signing_secret!;
}

/** Runs `body` with the wall clock read `ms` ahead (Date.now, as the signer and standardwebhooks read it). */
async function wallAhead<T>(ms: number, body: () => Promise<T>): Promise<T> {
  const real = Date.now.bind(Date);
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + ms);
  try {
    return await body();
  } finally {
    spy.mockRestore();
  }
}

/** Whether a receiver holding `secret` accepts the request (standardwebhooks: signature and a 5-minute timestamp tolerance). */
function verifies(secret: string, req: Pick<ReceivedRequest, 'body' | 'headers'>): boolean {
  try {
    new Webhook(secret).verify(req.body, req.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

describe('rotating the signing secret', () => {
  it('signs with both secrets during the grace period on the emulator clock, then with the new one only', async () => {
    await registerHook(emu.service, receiver.url);
    const accountId = emu.handle.defaultAccount.id;
    const old = (await emu.control.setSigningSecret(accountId)).data.signing_secret!;
    const now = await pauseClock();

    const rotated = (await emu.control.setSigningSecret(accountId)).data;
    expect(rotated.previous_signing_secret).toBe(old);
    expect(rotated.previous_secret_until).toBe(new Date(now + DEFAULT_SECRET_GRACE_MS).toISOString());
    await emu.control.fireEvent({ event: 'delivery' });
    const [during] = await receiver.waitFor(1);
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(old, during!)).toBe(true);
    expect(verifies(rotated.signing_secret!, during!)).toBe(true);

    await advance(DEFAULT_SECRET_GRACE_MS);
    const after = (await emu.control.listAccounts()).data.find((a) => a.id === accountId)!;
    expect(after.previous_signing_secret).toBeNull();
    await emu.control.fireEvent({ event: 'delivery' });
    const [, later] = await receiver.waitFor(2);
    expect(String(later!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(old, later!)).toBe(false);
    expect(verifies(rotated.signing_secret!, later!)).toBe(true);
  });

  it('takes a grace period of 0 (the old secret stops at once) and refuses a negative one', async () => {
    await registerHook(emu.service, receiver.url);
    const accountId = emu.handle.defaultAccount.id;
    const old = (await emu.control.setSigningSecret(accountId)).data.signing_secret!;
    const rotated = (await emu.control.setSigningSecret(accountId, { grace_period_ms: 0 })).data;
    expect(rotated.previous_signing_secret).toBeNull();
    await emu.control.fireEvent({ event: 'delivery' });
    const [req] = await receiver.waitFor(1);
    expect(verifies(old, req!)).toBe(false);
    expect(verifies(rotated.signing_secret!, req!)).toBe(true);

    const bad = await emu.request('PUT', `/emulator/accounts/${accountId}/signing-secret`, { body: { grace_period_ms: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('grace_period_ms must be at least 0 (0: the old secret stops signing at once)');
  });

  it('stops both signatures when signing is turned off', async () => {
    await registerHook(emu.service, receiver.url);
    const accountId = emu.handle.defaultAccount.id;
    await emu.control.setSigningSecret(accountId);
    await emu.control.setSigningSecret(accountId);
    const off = (await emu.control.deleteSigningSecret(accountId)).data;
    expect(off.previous_signing_secret).toBeNull();
    await emu.control.fireEvent({ event: 'delivery' });
    const [req] = await receiver.waitFor(1);
    expect(req!.headers['webhook-signature']).toBeUndefined();
  });
});

const TEN_MINUTES = 10 * 60 * 1000;

describe('Retry now', () => {
  it('of an acknowledged delivery, failing now, leaves it succeeded: the failed replay is an attempt of its own', async () => {
    await registerHook(emu.service, receiver.url);
    const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    expect((await attemptsOf(id, 1)).status).toBe('succeeded');
    receiver.status = 500;
    const replay = (await emu.control.retryDelivery(id)).data;
    expect(replay.attempt).toMatchObject({ number: 2, trigger: 'manual', outcome: 'failed', response: { status: 500 } });
    // The event was acknowledged by the first attempt: the delivery says so still.
    expect(replay.delivery).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200, last_error: null });
    const stats = (await emu.control.getStats()).data.deliveries;
    expect([stats.succeeded, stats.failed, stats.failing]).toEqual([1, 0, 0]);
    const endpoint = (await emu.control.listEndpoints({})).data.endpoints[0]!;
    expect((await emu.control.countFailingDeliveries(endpoint.target.kind, endpoint.target.id)).data.count).toBe(0);
    expect((await emu.control.listDeliveries({ status: 'failed' })).data.deliveries).toEqual([]);
    // A replay that succeeds again changes nothing either; one of a failed delivery that succeeds ends it.
    receiver.status = 200;
    expect((await emu.control.retryDelivery(id)).data.delivery).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200 });
  });
});

describe('resend and copy as curl re-sign at the moment they are made', () => {
  it('a resend and a copied request ten minutes later verify with a 5-minute tolerance; the first attempt no longer does', async () => {
    await registerHook(emu.service, receiver.url);
    const secret = await signing();
    await pauseClock();
    const id = (await emu.control.fireEvent({ event: 'bounce' })).data.delivery_id!;
    const [first] = await receiver.waitFor(1);
    expect(verifies(secret, first!)).toBe(true);

    await wallAhead(TEN_MINUTES, async () => {
      // What the first attempt sent (what Copy as curl used to replay) is stale by now.
      expect(verifies(secret, first!)).toBe(false);
      const signed = (await emu.control.signDeliveryRequest(id)).data;
      expect(Number(signed.headers['webhook-timestamp'])).toBeGreaterThan(Number(first!.headers['webhook-timestamp']) + 500);
      expect(signed.body).toBe(first!.body);
      expect(verifies(secret, { body: signed.body!, headers: signed.headers })).toBe(true);
      await emu.control.retryDelivery(id);
      const [, resent] = await receiver.waitFor(2);
      expect(resent!.headers['webhook-id']).toBe(id);
      expect(verifies(secret, resent!)).toBe(true);
    });
  });

  it('the copied curl command, run as it is, is accepted by a receiver verifying the signature', async () => {
    await registerHook(emu.service, receiver.url);
    const secret = await signing();
    const id = (await emu.control.fireEvent({ event: 'click' })).data.delivery_id!;
    await receiver.waitFor(1);
    const { curl } = (await emu.control.signDeliveryRequest(id)).data;
    await promisify(execFile)('sh', ['-c', `${curl} --silent --fail`]);
    const [, replayed] = await receiver.waitFor(2);
    expect(replayed!.headers['webhook-id']).toBe(id);
    expect(verifies(secret, replayed!)).toBe(true);
  });

  it('answers 404 for an unknown delivery and 409 when its webhook is gone', async () => {
    expect((await emu.request('POST', '/emulator/deliveries/01ABCDEFGHJKMNPQRSTVWXYZ00/signed-request')).status).toBe(404);
    await registerHook(emu.service, receiver.url);
    const id = (await emu.control.fireEvent({ event: 'click' })).data.delivery_id!;
    await receiver.waitFor(1);
    await emu.service.deleteWebhook({ event: 'EMAIL_EVENT' });
    const gone = await emu.request('POST', `/emulator/deliveries/${id}/signed-request`);
    expect(gone.status).toBe(409);
    expect(gone.json.error).toBe('The target of this delivery no longer exists (its webhook was deleted)');
  });
});

describe('resending an edited payload', () => {
  it('sends the edited body as a new delivery (its own webhook-id), signed over that body', async () => {
    await registerHook(emu.service, receiver.url);
    const secret = await signing();
    const original = (await emu.control.fireEvent({ event: 'bounce', recipient: 'ann@example.com' })).data;
    await receiver.waitFor(1);
    const edited = { ...original.payload, bounce_type: 'soft', note: 'edited by hand' };
    const resent = (await emu.control.resendDelivery(original.delivery_id!, { payload: edited })).data;
    expect(resent.id).not.toBe(original.delivery_id);
    expect(resent).toMatchObject({ event: 'bounce', ref_id: original.payload.ref_id, target: { url: receiver.url } });
    const [, req] = await receiver.waitFor(2);
    expect(req!.headers['webhook-id']).toBe(resent.id);
    expect(JSON.parse(req!.body)).toEqual(edited);
    expect(verifies(secret, req!)).toBe(true);
    const done = await attemptsOf(resent.id, 1);
    expect(done.status).toBe('succeeded');
    expect(done.payload).toEqual(edited);
    // The original is left as it was.
    expect((await emu.control.getDelivery(original.delivery_id!)).data.attempts).toBe(1);
  });

  it('refuses a payload that is not a JSON object, and an unknown delivery', async () => {
    await registerHook(emu.service, receiver.url);
    const id = (await emu.control.fireEvent({ event: 'open' })).data.delivery_id!;
    for (const payload of [[1, 2], 'text', null]) {
      const bad = await emu.request('POST', `/emulator/deliveries/${id}/resend`, { body: { payload } });
      expect(bad.status).toBe(400);
      expect(bad.json.error).toBe('payload must be a JSON object');
    }
    const missing = await emu.request('POST', '/emulator/deliveries/01ABCDEFGHJKMNPQRSTVWXYZ00/resend', { body: { payload: {} } });
    expect(missing.status).toBe(404);
  });
});

describe('retry all failing, per endpoint', () => {
  it("counts, then retries only that endpoint's failed deliveries and those waiting for a retry", async () => {
    const other = await startReceiver();
    cleanups.push(() => other.close());
    other.status = 500;
    const second = (await emu.control.createAccount({ name: 'Other' })).data;
    await registerHook(new ServiceClient({ baseUrl: emu.url, apiKey: second.api_key }), other.url);
    await registerHook(emu.service, receiver.url);
    await pauseClock();
    // This endpoint: the delivery event succeeds, the others fail and wait for a retry.
    receiver.answer = (req) => (JSON.parse(req.body).event === 'delivery' ? 200 : 500);
    const ok = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
    const failing = [(await emu.control.fireEvent({ event: 'bounce' })).data.delivery_id!, (await emu.control.fireEvent({ event: 'open' })).data.delivery_id!];
    const elsewhere = (await emu.control.fireEvent({ event: 'bounce', account_id: second.id })).data.delivery_id!;
    for (const id of [ok, ...failing, elsewhere]) await attemptsOf(id, 1);
    const endpoint = (await emu.control.listEndpoints({ account_id: emu.handle.defaultAccount.id })).data.endpoints[0]!;

    expect((await emu.control.countFailingDeliveries(endpoint.target.kind, endpoint.target.id)).data.count).toBe(2);
    receiver.answer = undefined;
    const retried = (await emu.control.retryFailingDeliveries(endpoint.target.kind, endpoint.target.id)).data;
    expect(retried).toEqual({ delivery_ids: failing, left: 0 });
    for (const id of failing) expect((await attemptsOf(id, 2)).status).toBe('succeeded');
    const again = receiver.requests.slice(3).map((r) => r.headers['webhook-id']);
    expect(receiver.requests).toHaveLength(5);
    expect(again.sort()).toEqual([...failing].sort());
    expect((await emu.control.getDelivery(ok)).data.attempts).toBe(1);
    expect((await emu.control.getDelivery(elsewhere)).data.attempts).toBe(1);
    expect(other.requests).toHaveLength(1);
    expect((await emu.control.countFailingDeliveries(endpoint.target.kind, endpoint.target.id)).data.count).toBe(0);
  });
});
