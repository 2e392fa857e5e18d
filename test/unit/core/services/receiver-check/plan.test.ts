import { describe, expect, it } from 'vitest';
import { secretHeaderOf, wrongValue } from '../../../../../src-main/core/services/receiver-check/plan';

describe('the secret header of a receiver check', () => {
  it('is the one named, else the first named like a secret, else the first', () => {
    const headers = { 'X-Tenant': 'shop', Authorization: 'Bearer abc', 'X-Webhook-Secret': 's' };
    expect(secretHeaderOf(headers, 'x-webhook-secret')).toBe('X-Webhook-Secret');
    expect(secretHeaderOf(headers)).toBe('Authorization');
    expect(secretHeaderOf({ 'X-Tenant': 'shop', 'X-Other': 'o' })).toBe('X-Tenant');
    expect(secretHeaderOf({})).toBeNull();
  });

  it('is made wrong in its secret only: an auth scheme stays, the value changes', () => {
    const wrong = wrongValue('Bearer abcdefgh1234');
    expect(wrong).toMatch(/^Bearer [0-9a-f]{12}$/);
    expect(wrong).not.toBe('Bearer abcdefgh1234');
    expect(wrongValue('s')).toMatch(/^[0-9a-f]{8}$/);
  });
});
