import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote, toCurl } from '../../../src-shared/curl';

describe('copy as curl', () => {
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
