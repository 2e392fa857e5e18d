import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../../../src-main/core/config';
import { hostName } from '../../../../src-main/core/http/guards';
import { isNonPublicAddress } from '../../../../src-main/core/net/reachability';
import { loadMigrations } from '../../../../src-main/core/store/database';
import { buildPath } from '../../../../src-shared/http-client';

describe('isNonPublicAddress', () => {
  it.each(['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::3', '::ffff:10.0.0.1'])(
    '%s is not public',
    (address) => expect(isNonPublicAddress(address)).toBe(true),
  );
  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '172.15.255.255', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) =>
    expect(isNonPublicAddress(address)).toBe(false),
  );
});

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

describe('defaultDataDir', () => {
  it('follows each platform', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux')).toBe('/xdg/mailyard');
    expect(defaultDataDir({}, 'linux')).toMatch(/\.local\/share\/mailyard$/);
    expect(defaultDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/mailyard$/);
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toMatch(/Roaming.mailyard$/);
  });
});

describe('loadMigrations', () => {
  it('orders by number', () => {
    const m = loadMigrations({ './migrations/0002-b.sql': 'B', './migrations/0001-a.sql': 'A' });
    expect(m.map((x) => [x.version, x.name, x.sql])).toEqual([
      [1, 'a', 'A'],
      [2, 'b', 'B'],
    ]);
  });
  it('refuses gaps and bad names', () => {
    expect(() => loadMigrations({ './migrations/0001-a.sql': '', './migrations/0003-c.sql': '' })).toThrow(/without gaps/);
    expect(() => loadMigrations({ './migrations/first.sql': '' })).toThrow(/NNNN-name\.sql/);
  });
  it('ships the bundled migrations', () => {
    expect(loadMigrations()[0]).toMatchObject({ version: 1, name: 'accounts-webhooks' });
  });
});

describe('buildPath', () => {
  it('fills and encodes params and skips empty query values', () => {
    expect(buildPath('/v1/domain/{domain}', { domain: 'a b/c' }, { x: 1, y: undefined, z: 'q&r' })).toBe('/v1/domain/a%20b%2Fc?x=1&z=q%26r');
    expect(() => buildPath('/v1/domain/{domain}', {})).toThrow(/missing path parameter domain/);
  });
});
