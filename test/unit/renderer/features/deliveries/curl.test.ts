import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { deliveryCurl, shellQuote, toCurl } from '../../../../../src-renderer/features/deliveries/curl';
import { relative } from '../../../../../src-renderer/components/Time';

describe('copy as curl', () => {
  it('sends a payload the emulator answered in part from its downloaded file, never the part', () => {
    const request = {
      method: 'POST',
      url: 'http://127.0.0.1:3000/hooks',
      headers: { 'content-type': 'application/json' },
      body: '{"event":"inbound","text":"aaa',
    };
    const d = { id: '01J', target: { url: request.url }, payload: null, payload_truncated: true, attempt_log: [{ request }] };
    expect(deliveryCurl(d)).toBe(
      ["curl -X POST 'http://127.0.0.1:3000/hooks'", "  -H 'content-type: application/json'", "  --data-binary '@delivery-01J.json'"].join(' \\\n'),
    );
    expect(deliveryCurl({ ...d, payload_truncated: false, attempt_log: [] })).toContain(`--data-raw 'null'`);
  });

  it('quotes any text as one shell word, quotes included', () => {
    for (const text of ["it's", `a "b" $HOME \`x\` \\ ;|&`, "''", 'line\nbreak', '']) {
      expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(text)}`], { encoding: 'utf8' })).toBe(text);
    }
  });

  it('builds the request as sent, without the headers curl sets itself', () => {
    const cmd = toCurl({
      method: 'POST',
      url: 'http://127.0.0.1:3000/hooks?a=1&b=2',
      headers: { 'content-type': 'application/json', 'content-length': '17', host: 'x', 'webhook-id': '01J', 'x-note': "it's" },
      body: '{"event":"bounce","note":"it\'s"}',
    });
    expect(cmd).toBe(
      [
        "curl -X POST 'http://127.0.0.1:3000/hooks?a=1&b=2'",
        "  -H 'content-type: application/json'",
        "  -H 'webhook-id: 01J'",
        `  -H 'x-note: it'\\''s'`,
        `  --data-raw '{"event":"bounce","note":"it'\\''s"}'`,
      ].join(' \\\n'),
    );
  });

  it('a GET without a body has no --data-raw', () => {
    expect(toCurl({ method: 'GET', url: 'http://h/x', headers: {}, body: '' })).toBe("curl -X GET 'http://h/x'");
  });
});

describe('relative times', () => {
  const now = Date.parse('2026-11-22T10:00:00.000Z');
  it.each([
    ['2026-11-22T10:00:00.500Z', 'just now'],
    ['2026-11-22T09:59:30.000Z', '30 s ago'],
    ['2026-11-22T09:55:00.000Z', '5 min ago'],
    ['2026-11-22T07:00:00.000Z', '3 h ago'],
    ['2026-11-19T10:00:00.000Z', '3 d ago'],
    ['2026-11-22T10:05:00.000Z', 'in 5 min'],
  ])('%s is "%s"', (iso, text) => {
    expect(relative(iso, now)).toBe(text);
  });
  it('a time that has happened never reads "in ...", however far the estimate of now lags', () => {
    expect(relative('2026-11-22T10:00:05.000Z', now, false)).toBe('just now');
    expect(relative('2026-11-22T10:05:00.000Z', now, false)).toBe('just now');
    expect(relative('2026-11-22T09:55:00.000Z', now, false)).toBe('5 min ago');
  });
});
