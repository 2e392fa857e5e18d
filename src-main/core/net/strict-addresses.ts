import { isIP } from 'node:net';
import { addressRange, embeddedIPv4, type HostLookup } from './reachability';

/** ipaddr.js's range names in words, for the reason of a refusal. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  private: 'a private address',
  reserved: 'a reserved address (documentation, benchmarking or future use)',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  benchmarking: 'a benchmarking address',
  ipv4Compatible: 'a deprecated IPv4-compatible IPv6 address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  rfc6145: 'an IPv4-translated IPv6 address',
  isatap: 'an ISATAP address carrying an IPv4 address that is not public',
  invalid: 'not an IP address',
};

/** `a loopback address`, `a private address`, ... (`a special-purpose address (teredo)` for the rarer ranges). */
export function describeRange(range: string): string {
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

/**
 * `--strict-webhook-urls` refused a connection before it was made: the host is, or resolves to, an
 * address that is not public. Its message says why, e.g. `refused by --strict-webhook-urls:
 * 127.0.0.1 is a loopback address`.
 */
export class StrictAddressError extends Error {
  override name = 'StrictAddressError';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    const what = host === address ? `${address} is` : `${host} resolves to ${address}, which is`;
    const carried = embeddedIPv4(address);
    super(`refused by --strict-webhook-urls: ${what} ${describeRange(range)}${carried ? ` (it carries ${carried})` : ''}`);
  }
}

/** Resolves `host` with `lookup` within `timeoutMs`; an IP literal is taken as it is. */
async function resolveHost(lookup: HostLookup, host: string, timeoutMs: number): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A network wait, not scheduled work: wall time.
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no DNS answer for ${host} within ${timeoutMs} ms`), { code: 'EAI_AGAIN' })), timeoutMs);
  });
  try {
    const addresses = await Promise.race([lookup(host), late]);
    if (addresses.length === 0) throw Object.assign(new Error(`host ${host} has no address`), { code: 'ENOTFOUND' });
    return addresses;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Strict mode's check of where a connection goes, made at every connection: resolves `host` (an IP
 * literal as it is) and checks every address it resolves to. Only public addresses pass (`addressRange`'s
 * `unicast`; an IPv4-mapped IPv6 address as the IPv4 address it carries); one that does not throws
 * StrictAddressError. Returns the addresses, to connect to the first: the connection goes where the
 * check looked, whatever DNS answers next. A failed lookup throws its own error (`ENOTFOUND`, ...).
 */
export async function checkedAddresses(lookup: HostLookup, host: string, timeoutMs: number): Promise<string[]> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const addresses = await resolveHost(lookup, bare, timeoutMs);
  for (const address of addresses) {
    const range = addressRange(address);
    if (range !== 'unicast') throw new StrictAddressError(bare, address, range);
  }
  return addresses;
}

/**
 * Where to connect for a mail server's host (an SMTP relay, an IMAP connection): in strict mode the
 * first address of `checkedAddresses` (or its refusal); outside it undefined, meaning connect by name
 * as usual.
 */
export type ServerAddress = (host: string) => Promise<string | undefined>;

export function serverAddressPolicy(policy: { strict: boolean; lookup: HostLookup; timeoutMs: number }): ServerAddress {
  if (!policy.strict) return async () => undefined;
  return async (host) => (await checkedAddresses(policy.lookup, host, policy.timeoutMs))[0];
}
