import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../../../../src-main/core/dispatch/sign';
import { signatureVerdict } from '../../../../../src-main/core/services/catchers/signature';

const secret = generateSigningSecret();
const other = generateSigningSecret();
const body = '{"event":"open"}';
const now = Date.UTC(2026, 0, 1);

/** Headers signed by the standardwebhooks package itself, at `atMs`. */
function signed(key: string, atMs: number): Record<string, string> {
  const id = 'msg_1';
  const timestamp = new Date(atMs);
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(atMs / 1000)), 'webhook-signature': new Webhook(key).sign(id, timestamp, body) };
}

describe('signatureVerdict agrees with the standardwebhooks package', () => {
  it('valid with the secret, invalid with another, stale past 5 minutes, unsigned without a header', () => {
    const bytes = Buffer.from(body);
    expect(signatureVerdict(secret, signed(secret, now), bytes, now)).toBe('valid');
    expect(signatureVerdict(secret, signed(other, now), bytes, now)).toBe('invalid');
    expect(signatureVerdict(secret, signed(secret, now - 6 * 60_000), bytes, now)).toBe('stale');
    expect(signatureVerdict(secret, {}, bytes, now)).toBe('unsigned');
    expect(signatureVerdict(null, signed(secret, now), bytes, now)).toBe('no_secret');
    expect(signatureVerdict(secret, signed(secret, now), Buffer.from('{"event":"click"}'), now)).toBe('invalid');
  });

  it('accepts any one of several space-separated signatures (a rotation sends both)', () => {
    const headers = signed(secret, now);
    const both = { ...headers, 'webhook-signature': `${signed(other, now)['webhook-signature']} ${headers['webhook-signature']}` };
    expect(signatureVerdict(secret, both, Buffer.from(body), now)).toBe('valid');
  });
});
