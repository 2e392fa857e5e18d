import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SECRET_GRACE_MS } from '../../src-shared/schemas/dispatch';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver';
import { deliveryHelpers, registerHook } from '../helpers/deliveries';

let emu: TestEmulator;
let receiver: Receiver;
const cleanups: Array<() => Promise<unknown>> = [];

beforeEach(async () => {
  receiver = await startReceiver();
  emu = await startEmulator();
  cleanups.push(
    () => emu.cleanup(),
    () => receiver.close(),
  );
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const { pauseClock, advance } = deliveryHelpers(() => emu);

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
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifies(old, during!)).toBe(true);
    expect(verifies(rotated.signing_secret!, during!)).toBe(true);

    await advance(DEFAULT_SECRET_GRACE_MS);
    const after = (await emu.control.listAccounts()).data.find((a) => a.id === accountId)!;
    expect(after.previous_signing_secret).toBeNull();
    await emu.control.fireEvent({ event: 'delivery' });
    const [, later] = await receiver.waitFor(2);
    expect(later!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
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
