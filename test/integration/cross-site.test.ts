import { get as httpGet, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_MAX_MS } from '../../src-shared/schemas/messages';
import { type RawResponse, rawRequest, startEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * A page of another site could read captured mail by timing a long poll (a match answers at once, a
 * miss after wait_ms), so `/emulator` and `/v1` refuse every request a browser marks
 * as cross-site, whatever its method, before any work or wait begins.
 */

/** What browsers send for a page of another site: Sec-Fetch-Site, or only a foreign Origin (older browsers). */
const FOREIGN: Array<Record<string, string>> = [
  { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
  // Another port of the same host is the same site: its pages are not the emulator's.
  { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' },
  { origin: 'http://evil.example' },
  { origin: 'null' },
];

const SUBJECT = 'Your login code is 583920';

describe('requests a browser marks as from another site', () => {
  let emu: TestEmulator;
  let host: string;

  beforeAll(async () => {
    emu = await startEmulator();
    host = new URL(emu.url).host;
    await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.com' }],
      subject: SUBJECT,
      content: [{ type: 'text/plain', value: 'hi' }],
    });
  });
  afterAll(() => emu.cleanup());

  const get = (path: string, headers: Record<string, string> = {}) => rawRequest(emu.url, 'GET', path, headers);

  function expectRefused(res: RawResponse, what: string): void {
    expect(res.status, what).toBe(403);
    expect(res.json, what).toMatchObject({
      success: false,
      error: expect.stringMatching(/^Forbidden: a request from another site \(.+\): this API answers Mailyard's own web UI and programs/),
    });
  }

  it.each(FOREIGN)('get a 403 from the long polls before any wait, a right guess as a wrong one: %o', async (headers) => {
    // A wait as long as allowed: answered 403 (never the long poll's 200 with timed_out) proves none began.
    const wait = (subject: string) => get(`/emulator/messages/wait?subject=${encodeURIComponent(subject)}&wait_ms=${WAIT_MAX_MS}`, headers);
    const [right, wrong, deliveries] = await Promise.all([
      wait('583920'),
      wait('111111'),
      get(`/emulator/deliveries/wait?q=583920&wait_ms=${WAIT_MAX_MS}`, headers),
    ]);
    expectRefused(right, 'right guess');
    expectRefused(wrong, 'wrong guess');
    expect(right.text).toBe(wrong.text);
    expectRefused(deliveries, 'deliveries');
    // The same right guess from a program is answered at once: the guess is right.
    const program = await get('/emulator/messages/wait?subject=583920&wait_ms=0');
    expect(program.json.data.messages.map((m: { subject: string }) => m.subject)).toEqual([SUBJECT]);
  });

  it.each(FOREIGN)('are refused on every method of /emulator and /v1, and change nothing: %o', async (headers) => {
    expectRefused(await get('/emulator/messages', headers), 'list');
    expectRefused(await get('/emulator/stream', headers), 'stream');
    expectRefused(await rawRequest(emu.url, 'POST', '/emulator/reset', headers), 'reset');
    expectRefused(await rawRequest(emu.url, 'POST', '/emulator/clock', { ...headers, 'content-type': 'application/json' }, '{"advance_ms":60000}'), 'clock');
    // /v1 too, with a valid API key (sent by the page's own script, say): no key is even looked at.
    const auth = { ...headers, authorization: `Bearer ${emu.apiKey}` };
    expectRefused(await get('/v1/webhook', auth), 'v1 GET');
    const send = JSON.stringify({
      from: { email: 'app@example.com' },
      to: [{ email: 'bob@example.com' }],
      subject: 'From a page',
      content: [{ type: 'text/plain', value: 'x' }],
    });
    expectRefused(await rawRequest(emu.url, 'POST', '/v1/email/send', { ...auth, 'content-type': 'application/json' }, send), 'v1 send');
    const { data } = await emu.control.listMessages();
    expect(data.messages.map((m) => m.subject)).toEqual([SUBJECT]);
    expect((await emu.control.getClock()).data.offset_ms).toBeLessThan(60_000);
  });

  it('leave the emulator own pages and programs alone, and every answer is Cross-Origin-Resource-Policy: same-origin', async () => {
    const own: Array<Record<string, string>> = [
      {},
      // node's fetch (the clients, the testing API, the CLI): Sec-Fetch-Mode only.
      { 'sec-fetch-mode': 'cors' },
      { 'sec-fetch-site': 'same-origin', origin: `http://${host}` },
      // An address typed or bookmarked.
      { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' },
      // Behind a proxy that rewrites Host, the browser's word counts.
      { 'sec-fetch-site': 'same-origin', origin: 'https://mailyard.example.com' },
      // An older browser without Sec-Fetch-Site, from the UI's own page.
      { origin: `http://${host}` },
    ];
    for (const headers of own) {
      const res = await get('/emulator/messages/wait?subject=583920&wait_ms=0', headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      const v1 = await get('/v1/webhook', { ...headers, authorization: `Bearer ${emu.apiKey}` });
      expect(v1.status, JSON.stringify(headers)).toBe(200);
      expect(v1.headers['cross-origin-resource-policy']).toBe('same-origin');
    }
    // The live stream (written by hand) carries them too.
    const stream = await new Promise<IncomingMessage>((resolve, reject) => httpGet(`${emu.url}/emulator/stream`, resolve).on('error', reject));
    stream.destroy();
    expect(stream.statusCode).toBe(200);
    expect(stream.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cross-origin-resource-policy': 'same-origin',
      'x-content-type-options': 'nosniff',
    });
  });

  it('leave tracking links, the OAuth consent page, the OpenAPI document and the UI open to every site', async () => {
    const res = await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'cat@example.com' }],
      subject: 'Tracked',
      content: [{ type: 'text/html', value: '<a href="https://example.com/pricing">pricing</a>' }],
      settings: { click_tracking: { enable: true } },
    });
    const [copy] = (await emu.control.listMessages({ q: res.ref_id })).data.messages;
    const html = (await emu.control.getMessage(copy!.id)).data.html!;
    const click = new URL(/https?:\/\/[^"' ]+\/t\/c\/[A-Za-z0-9_-]+/.exec(html)![0]);
    const fromMail = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };
    const followed = await get(click.pathname, fromMail);
    expect(followed.status).toBe(302);
    expect(followed.headers.location).toBe('https://example.com/pricing');
    expect((await get('/oauth/authorize', fromMail)).status).not.toBe(403);
    expect((await get('/openapi.json', fromMail)).status).toBe(200);
    expect((await get('/', { ...fromMail, accept: 'text/html' })).status).toBe(200);
  });
});
