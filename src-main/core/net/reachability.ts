import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import ipaddr from 'ipaddr.js';

/** Why a URL could not be connected to, in words for the 422 message. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
}

export interface ProbeOptions {
  timeoutMs: number;
  /** Connect to this resolved address instead of resolving the host again. */
  address?: string;
  /** Verify the server certificate (strict mode). Off by default: local receivers often use self-signed certificates. */
  verifyTls: boolean;
}

/** Opens a TCP connection (and completes a TLS handshake for https) to a URL's host and port, then closes it. */
export type UrlProbe = (url: URL, options: ProbeOptions) => Promise<void>;

/** Resolves a host name to all its addresses. */
export type HostLookup = (host: string) => Promise<string[]>;

export const lookupHost: HostLookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The host of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export function urlPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function describe(err: NodeJS.ErrnoException & { library?: string }, host: string, port: number): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `connection refused by ${where}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
      return `host ${host} not found`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return `${where} is unreachable (${err.code})`;
    case 'ECONNRESET':
      return `connection reset by ${where}`;
    default:
      if (err.code?.startsWith('ERR_SSL') || err.code?.includes('CERT') || err.code?.includes('SIGNATURE') || err.library === 'SSL routines') {
        return `TLS handshake with ${where} failed: ${err.message}`;
      }
      return `${err.code ? `${err.code}: ` : ''}${err.message} (${where})`;
  }
}

export const probeUrl: UrlProbe = (url, { timeoutMs, address, verifyTls }) => {
  const host = urlHost(url);
  const port = urlPort(url);
  const target = address ?? host;
  return new Promise<void>((resolve, reject) => {
    let socket: Socket;
    const secure = url.protocol === 'https:';
    if (secure) {
      socket = tlsConnect({
        host: target,
        port,
        servername: isIP(host) ? undefined : host,
        rejectUnauthorized: verifyTls,
        ALPNProtocols: ['http/1.1'],
      });
    } else {
      socket = netConnect({ host: target, port });
    }
    // A network time-out, not scheduled work: wall time is right here.
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new UnreachableError(`no ${secure ? 'TLS ' : ''}connection to ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new UnreachableError(describe(err, host, port)));
    });
  });
};

/** IPv4-compatible IPv6 (`::a.b.c.d`, RFC 4291, deprecated): ipaddr.js has no class for it and calls it `unicast`. */
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('::'), 96];
/** NAT64's well-known prefix (RFC 6052), the IPv4 address in its last 32 bits. */
const NAT64_WELL_KNOWN: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('64:ff9b::'), 96];

/**
 * An ISATAP address (RFC 5214): any /64 prefix, then the interface identifier `0:5efe` (`200:5efe` when
 * the IPv4 address is global; the u and g bits may be set) and an IPv4 address in the last 32 bits,
 * which an ISATAP router tunnels to. ipaddr.js has no class for it and calls it `unicast`.
 */
function isIsatap(address: ipaddr.IPv6): boolean {
  const [, , , , id, marker] = address.parts;
  return (id! & 0xfcff) === 0 && marker === 0x5efe;
}

/**
 * ipaddr.js reads the text `::a.b.c.d` as `::ffff:a.b.c.d` (IPv4-mapped), while Node, the kernel and
 * the URL parser take it as the IPv4-compatible `::xxxx:xxxx` it is: the address is parsed in that form.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const compatible = /^::(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/.exec(address);
  if (!compatible) return ipaddr.process(address);
  const [a, b, c, d] = compatible.slice(1, 5).map(Number) as [number, number, number, number];
  return ipaddr.process(`::${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${compatible[5] ?? ''}`);
}

/**
 * What an address is, by ipaddr.js's classification of the IANA special-purpose registries:
 * `unicast` for a public address, else the range it falls in (`loopback`, `private`, `linkLocal`,
 * `uniqueLocal`, `carrierGradeNat`, `reserved`, `multicast`, `unspecified`, ...), and
 * `ipv4Compatible` for `::a.b.c.d` (which Linux does not route to the IPv4 address: it leaves by the
 * IPv6 default route), `isatap` for an ISATAP address carrying an IPv4 address that is not public.
 * An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is classified as the IPv4
 * address it carries; text that is no address at all is `invalid`.
 */
export function addressRange(address: string): string {
  // Only the forms an address takes on the wire (ipaddr.js also reads legacy ones such as `127.1`).
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return 'invalid';
  const parsed = parseAddress(address);
  const range = parsed.range();
  // `::` and `::1` are in ::/96 too, and already have their own class.
  if (range === 'unicast' && parsed instanceof ipaddr.IPv6 && parsed.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  // An ISATAP address is as public as the IPv4 address it carries: one that carries a private,
  // link-local or metadata address leads there through the tunnel.
  if (range === 'unicast' && parsed instanceof ipaddr.IPv6 && isIsatap(parsed) && new ipaddr.IPv4(ipv4Bytes(parsed)).range() !== 'unicast') return 'isatap';
  return range;
}

/**
 * The IPv4 address an IPv6 address carries by its range (IPv4-compatible, IPv4-translated, NAT64's
 * well-known prefix 64:ff9b::/96, 6to4, an ISATAP address refused for it), for a refusal's words;
 * undefined for any other.
 */
export function embeddedIPv4(address: string): string | undefined {
  const range = addressRange(address);
  if (range === 'invalid') return undefined;
  const parsed = parseAddress(address);
  if (!(parsed instanceof ipaddr.IPv6)) return undefined;
  if (range === '6to4') return ipv4Bytes(parsed, 1).join('.');
  if (range === 'ipv4Compatible' || range === 'rfc6145' || range === 'isatap' || (range === 'rfc6052' && parsed.match(NAT64_WELL_KNOWN))) {
    return ipv4Bytes(parsed).join('.');
  }
  return undefined;
}

/** The four bytes of the IPv4 address in words `at` and `at + 1` of an IPv6 address (by default its last 32 bits). */
function ipv4Bytes(address: ipaddr.IPv6, at = 6): [number, number, number, number] {
  const [high, low] = [address.parts[at]!, address.parts[at + 1]!];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

/** True for every address that is not public: anything ipaddr.js does not classify as `unicast`. */
export function isNonPublicAddress(address: string): boolean {
  return addressRange(address) !== 'unicast';
}
