import { afterEach, describe, expect, it } from 'vitest';
import type { ProbeOptions } from '../../src-main/core/net/reachability';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

// No public network exists here, so name resolution and the connection are seams: the policy under
// test is which addresses strict mode refuses and how it connects to the ones it accepts.
const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'internal.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.216.34', '192.168.0.7'],
  'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'v6-internal.example.com': ['fd00::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
};

let emu: TestEmulator;
let probes: Array<{ url: string; options: ProbeOptions }>;

async function start() {
  probes = [];
  emu = await startEmulator(
    { strictWebhookUrls: true },
    {
      lookup: async (host) => {
        const found = DNS[host];
        if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        return found;
      },
      probe: async (url, options) => {
        probes.push({ url: url.href, options });
      },
    },
  );
}
afterEach(() => emu.cleanup());

const body = (webhook_url: string) => ({ webhook_url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } });

describe('--strict-webhook-urls', () => {
  it('refuses http with 400', async () => {
    await start();
    const res = await emu.request('POST', '/v1/webhook/register', { body: body('http://hooks.example.com/x') });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('webhook_url must be an https URL (strict webhook URLs are on)');
    expect(probes).toEqual([]);
  });

  it.each([
    ['a loopback literal', 'https://127.0.0.1/x', '127.0.0.1'],
    ['an IPv6 loopback literal', 'https://[::1]/x', '::1'],
    ['a private name', 'https://internal.example.com/x', '10.1.2.3'],
    ['a name with one private address among public ones', 'https://mixed.example.com/x', '192.168.0.7'],
    ['an IPv6 unique-local name', 'https://v6-internal.example.com/x', 'fd00::1'],
    ['an IPv4-mapped loopback', 'https://mapped.example.com/x', '::ffff:127.0.0.1'],
    // The URL parser writes [::127.0.0.1] as [::7f00:1]. The probe is a seam: nothing connects even if the check let it through.
    ['an IPv4-compatible loopback literal', 'https://[::127.0.0.1]:8443/x', '::7f00:1'],
    ['a link-local literal', 'https://169.254.169.254/latest', '169.254.169.254'],
  ])('refuses %s with 422 without connecting', async (_name, url, address) => {
    await start();
    const res = await emu.request('POST', '/v1/webhook/register', { body: body(url) });
    expect(res.status).toBe(422);
    const literal = new URL(url).hostname.replace(/[[\]]/g, '') === address;
    expect(res.json.error).toBe(
      literal
        ? `Webhook URL is not reachable: ${address} is not a public address (strict webhook URLs are on)`
        : `Webhook URL is not reachable: ${new URL(url).hostname} resolves to ${address}, which is not a public address (strict webhook URLs are on)`,
    );
    expect(probes).toEqual([]);
  });

  it('422 for a name that does not resolve', async () => {
    await start();
    const res = await emu.request('POST', '/v1/webhook/register', { body: body('https://nowhere.example.com/x') });
    expect(res.status).toBe(422);
    expect(res.json.error).toBe('Webhook URL is not reachable: host nowhere.example.com not found');
  });

  it('accepts a public https URL, connecting to the checked address with certificate verification', async () => {
    await start();
    for (const [url, address] of [
      ['https://hooks.example.com/x', '93.184.216.34'],
      ['https://v6.example.com/x', '2606:2800:220:1:248:1893:25c8:1946'],
    ] as const) {
      const res = await emu.request('POST', '/v1/webhook/register', { body: body(url) });
      expect(res.status, url).toBe(200);
      expect(probes.at(-1)).toEqual({ url, options: { timeoutMs: 3000, verifyTls: true, address } });
      await emu.request('DELETE', '/v1/webhook/delete', { body: { event: 'EMAIL_EVENT' } });
    }
  });
});
