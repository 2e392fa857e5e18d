import { describe, expect, it } from 'vitest';
import { addressRange, embeddedIPv4, isNonPublicAddress } from '../../../../src-main/core/net/reachability';
import { checkedAddresses, describeRange, StrictAddressError, serverAddressPolicy } from '../../../../src-main/core/net/strict-addresses';

describe('address classification (ipaddr.js ranges)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12::3', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    // Wrongly passed by the hand-kept list before: documentation, benchmarking, future use.
    ['192.0.2.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.5', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.254', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['64:ff9b::808:808', 'rfc6052'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    // ISATAP (any /64, then 0:5efe or 200:5efe and an IPv4 address): public prefixes, carrying addresses that are not.
    ['2600:1f18::5efe:a9fe:a9fe', 'isatap'],
    ['2600:1f18::200:5efe:a9fe:a9fe', 'isatap'],
    ['2600:1f18::5efe:169.254.169.254', 'isatap'],
    ['2a00:1450:4001:1:200:5efe:a00:1', 'isatap'],
    ['2606:4700::5efe:7f00:1', 'isatap'],
    ['2606:4700::300:5efe:c0a8:101', 'isatap'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    // IPv4-compatible (::/96, deprecated): ipaddr.js calls it unicast, and it leaves by the IPv6 default route.
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::10.0.0.1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::2', 'ipv4Compatible'],
    ['not-an-address', 'invalid'],
    ['127.1', 'invalid'],
  ])('%s is refused (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2606:4700::200:5efe:808:808',
    '2606:4700::5efe:0:a9fe:a9fe',
  ])('%s is public (unicast)', (address) => {
    expect(addressRange(address)).toBe('unicast');
    expect(isNonPublicAddress(address)).toBe(false);
  });

  it('names the IPv4 address an IPv6 address carries, where its range says where', () => {
    expect(embeddedIPv4('::127.0.0.1')).toBe('127.0.0.1');
    expect(embeddedIPv4('64:ff9b::a00:1')).toBe('10.0.0.1');
    expect(embeddedIPv4('2002:a9fe:a9fe::1')).toBe('169.254.169.254');
    expect(embeddedIPv4('::ffff:0:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIPv4('2600:1f18::200:5efe:a9fe:a9fe')).toBe('169.254.169.254');
    for (const none of ['::1', '::', '2606:4700::1111', '64:ff9b:1::a00:1', '127.0.0.1', 'x']) expect(embeddedIPv4(none)).toBeUndefined();
  });

  it('says what a range is in words', () => {
    expect(describeRange('loopback')).toBe('a loopback address');
    expect(describeRange('teredo')).toBe('a special-purpose address (teredo)');
  });
});

describe('checkedAddresses (strict mode at every connection)', () => {
  const never = async (): Promise<string[]> => {
    throw new Error('an IP literal is not looked up');
  };

  it('refuses a literal that is not public, saying why', async () => {
    await expect(checkedAddresses(never, '127.0.0.1', 1000)).rejects.toThrow('refused by --strict-webhook-urls: 127.0.0.1 is a loopback address');
    await expect(checkedAddresses(never, '[::1]', 1000)).rejects.toThrow('refused by --strict-webhook-urls: ::1 is a loopback address');
    await expect(checkedAddresses(never, '192.0.2.1', 1000)).rejects.toBeInstanceOf(StrictAddressError);
  });

  it('refuses IPv4 carried in IPv6 (IPv4-compatible, NAT64, 6to4, ISATAP), naming the IPv4 address, with no lookup and no connection', async () => {
    await expect(checkedAddresses(never, '[::127.0.0.1]', 1000)).rejects.toThrow(
      'refused by --strict-webhook-urls: ::127.0.0.1 is a deprecated IPv4-compatible IPv6 address (it carries 127.0.0.1)',
    );
    await expect(checkedAddresses(never, '[::7f00:1]', 1000)).rejects.toBeInstanceOf(StrictAddressError);
    await expect(checkedAddresses(never, '64:ff9b::10.0.0.1', 1000)).rejects.toThrow('is a NAT64 address (it carries 10.0.0.1)');
    await expect(checkedAddresses(async () => ['2002:a9fe:a9fe::1'], 'sixtofour.test', 1000)).rejects.toThrow(
      'sixtofour.test resolves to 2002:a9fe:a9fe::1, which is a 6to4 address (it carries 169.254.169.254)',
    );
    for (const isatap of ['2600:1f18::5efe:a9fe:a9fe', '2600:1f18::200:5efe:a9fe:a9fe']) {
      await expect(checkedAddresses(async () => ['8.8.8.8', isatap], 'isatap.test', 1000)).rejects.toThrow(
        `isatap.test resolves to ${isatap}, which is an ISATAP address carrying an IPv4 address that is not public (it carries 169.254.169.254)`,
      );
    }
    await expect(checkedAddresses(never, '[2600:1f18::200:5efe:10.0.0.1]', 1000)).rejects.toThrow('(it carries 10.0.0.1)');
  });

  it('checks every address a name resolves to (one refused address refuses the host)', async () => {
    const lookup = async () => ['8.8.8.8', '::ffff:127.0.0.1'];
    await expect(checkedAddresses(lookup, 'mixed.test', 1000)).rejects.toThrow(
      'refused by --strict-webhook-urls: mixed.test resolves to ::ffff:127.0.0.1, which is a loopback address',
    );
  });

  it('passes a public name, returning its addresses to connect to (no connection is made here)', async () => {
    await expect(checkedAddresses(async () => ['8.8.8.8'], 'public.test', 1000)).resolves.toEqual(['8.8.8.8']);
  });

  it('a failed or late lookup is an error of its own, not a refusal', async () => {
    const missing = async (): Promise<string[]> => {
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    await expect(checkedAddresses(missing, 'nowhere.test', 1000)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(checkedAddresses(async () => [], 'empty.test', 1000)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const slow = () => new Promise<string[]>(() => {});
    await expect(checkedAddresses(slow, 'slow.test', 20)).rejects.toMatchObject({ code: 'EAI_AGAIN' });
  });

  it('serverAddressPolicy: the first checked address in strict mode, nothing (connect by name) outside it', async () => {
    const lookup = async (host: string) => (host === 'mail.test' ? ['127.0.0.1'] : ['8.8.4.4', '8.8.8.8']);
    await expect(serverAddressPolicy({ strict: false, lookup, timeoutMs: 1000 })('mail.test')).resolves.toBeUndefined();
    const strict = serverAddressPolicy({ strict: true, lookup, timeoutMs: 1000 });
    await expect(strict('mail.test')).rejects.toThrow('refused by --strict-webhook-urls: mail.test resolves to 127.0.0.1, which is a loopback address');
    await expect(strict('public.test')).resolves.toBe('8.8.4.4');
  });
});
