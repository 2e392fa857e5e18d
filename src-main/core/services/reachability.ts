import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

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

const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  nonPublic.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
] as const) {
  nonPublic.addSubnet(net, prefix, 'ipv6');
}

/** True for loopback, private, link-local, CGNAT and unspecified addresses (IPv4-mapped IPv6 included). */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return nonPublic.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
