import { isIP } from 'node:net';
import { MESSAGES } from '../../../src-shared/errors';
import { AppError } from '../errors';
import { isNonPublicAddress, UnreachableError, urlHost, type HostLookup, type UrlProbe } from './reachability';

/** How a URL the emulator will post to (a webhook, an inbound route) is checked when it is set. */
export interface WebhookUrlPolicy {
  /** `--strict-webhook-urls`: https only, and never a loopback, private or link-local address. */
  strict: boolean;
  timeoutMs: number;
  probe: UrlProbe;
  lookup: HostLookup;
}

/**
 * Rules 5 and 6 of the contract: the strict-mode address policy, then a real connection to the URL's
 * host and port (no request is sent). Failures are 400 (policy) or 422 (unreachable), naming `path`.
 */
export async function checkUrl(policy: WebhookUrlPolicy, value: string, path: string): Promise<void> {
  const url = new URL(value);
  const { strict, timeoutMs, probe, lookup } = policy;
  try {
    if (!strict) {
      await probe(url, { timeoutMs, verifyTls: false });
      return;
    }
    if (url.protocol !== 'https:') {
      const message = 'must be an https URL (strict webhook URLs are on)';
      throw new AppError('validation', `${path} ${message}`, [{ path, message }]);
    }
    const host = urlHost(url);
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
    await probe(url, { timeoutMs, verifyTls: true, address: addresses[0] });
  } catch (err) {
    if (err instanceof UnreachableError) {
      throw new AppError('unreachable', MESSAGES.unreachablePrefix + err.message, [{ path, message: err.message }]);
    }
    throw err;
  }
}
