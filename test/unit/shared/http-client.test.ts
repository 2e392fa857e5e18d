import { describe, expect, it } from 'vitest';
import { buildPath } from '../../../src-shared/http-client';

describe('buildPath', () => {
  it('fills and encodes params and skips empty query values', () => {
    expect(buildPath('/v1/domain/{domain}', { domain: 'a b/c' }, { x: 1, y: undefined, z: 'q&r' })).toBe('/v1/domain/a%20b%2Fc?x=1&z=q%26r');
    expect(() => buildPath('/v1/domain/{domain}', {})).toThrow(/missing path parameter domain/);
  });
});
