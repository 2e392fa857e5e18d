import { describe, expect, it } from 'vitest';
import { hostName } from '../../../../src-main/core/http/guards';

describe('hostName', () => {
  it.each([
    ['localhost:4400', 'localhost'],
    ['LocalHost', 'localhost'],
    ['[::1]:4400', '::1'],
    ['[::1]', '::1'],
    ['127.0.0.1', '127.0.0.1'],
    ['', ''],
  ])('%s -> %s', (header, name) => expect(hostName(header)).toBe(name));
});
