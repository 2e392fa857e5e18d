import { isIP } from 'node:net';
import { appError } from '../error-catalogue';
import { type HostLookup, isNonPublicAddress, UnreachableError, type UrlProbe, urlHost } from '../net/reachability';

/** How a URL the emulator will post to (a webhook, an inbound route) is checked when it is set. */
export interface WebhookUrlPolicy {
  /** `--strict-webhook-urls`: https only, and never a loopback, private or link-local address. */
  strict: boolean;
  timeoutMs: number;
  probe: UrlProbe;
  lookup: HostLookup;
  /** A URL of Mailyard's own listener that it serves itself (a catcher): accepted as it is, strict or not. */
  own?: (url: URL) => boolean;
}

/**
 * Rules 5 and 6 of the contract: the strict-mode address policy, then a real connection to the URL's
 * host and port (no request is sent). Failures are 400 (policy) or 422 (unreachable), naming `path`.
 */
export async function checkUrl(policy: WebhookUrlPolicy, value: string, path: string): Promise<void> {
  const url = new URL(value);
  const { strict, timeoutMs, probe, lookup } = policy;
  if (policy.own?.(url)) return;
  try {
    if (!strict) {
      await probe(url, { timeoutMs, verifyTls: false });
      return;
    }
    if (url.protocol !== 'https:') throw appError('httpsRequired', { path });
    const address = await publicAddress(lookup, urlHost(url));
    await probe(url, { timeoutMs, verifyTls: true, address });
  } catch (err) {
    if (err instanceof UnreachableError) {
      throw appError('urlUnreachable', { path, reason: err.message });
    }
    throw err;
  }
}

/**
 * Strict mode's address policy for a host: its first address, when none of its addresses is a
 * loopback, private or link-local one; an IP literal is taken as it is, without DNS. Throws
 * UnreachableError in words otherwise.
 */
async function publicAddress(lookup: HostLookup, host: string): Promise<string> {
  const literal = isIP(host) !== 0;
  let addresses: string[];
  try {
    addresses = literal ? [host] : await lookup(host);
  } catch {
    throw new UnreachableError(`host ${host} not found`);
  }
  const internal = addresses.find(isNonPublicAddress);
  if (internal !== undefined || addresses.length === 0) {
    const what = literal ? host : `${host} resolves to ${internal ?? 'no address'}, which`;
    throw new UnreachableError(`${what} is not a public address (strict webhook URLs are on)`);
  }
  return addresses[0]!;
}

/**
 * `--strict-webhook-urls`' address rules for a mail server's host (an SMTP configuration): checked
 * before any connection. Returns the address to connect to in strict mode (so the connection goes
 * where the check looked, whatever DNS says later), undefined outside it. A refused host is a 422
 * naming `path`.
 */
export async function checkServerHost(policy: Pick<WebhookUrlPolicy, 'strict' | 'lookup'>, host: string, path: string): Promise<string | undefined> {
  if (!policy.strict) return undefined;
  try {
    return await publicAddress(policy.lookup, host.replace(/^\[(.*)\]$/, '$1'));
  } catch (err) {
    if (err instanceof UnreachableError) throw appError('serverHostRefused', { path, reason: err.message });
    throw err;
  }
}
