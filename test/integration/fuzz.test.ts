/**
 * Bad input on every operation of the table (/v1 and /emulator) gets a 4xx in the one error body,
 * never a 500: junk bodies, junk queries, and path parameters that are malformed, over-long or odd.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { controlOperations, type Operation, serviceOperations } from '../../src-shared/operations';
import { aliasBomb } from '../helpers/alias-bomb';
import { type RawResponse, startEmulator, type TestEmulator } from '../helpers/emulator';

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
});
afterAll(async () => {
  await emu.cleanup();
});

const BODIES = [
  'null',
  '[]',
  '"text"',
  '42',
  '{"',
  '{}',
  '{"a":{"b":{"c":{"d":{"e":[[[[[[[[[[]]]]]]]]]]}}}}}',
  JSON.stringify({ to: 'x', from: 7, subject: ['x'], content: {}, settings: true, event: null, webhook_url: 12, domain: {}, config: [], rules: 'x' }),
  JSON.stringify({ ['k'.repeat(2000)]: 'v'.repeat(10_000) }),
  '\u0000\u0001',
];

/** Path parameters a careless or hostile client sends. */
const PARAMS = ['%ZZ', '%', 'a'.repeat(5_000), '%E0%A4%A', '..%2F..%2Fetc%2Fpasswd', '%00', '%F0%9F%92%A9', '-1', '999999999999999999999999'];

const QUERIES = ['pageSize=-1', 'pageSize=1e9&limit=abc&cursor=%ZZ', `q=${'%25'.repeat(400)}&status=nope&pageToken=${'x'.repeat(300)}`, 'unknown=1'];

function fill(op: Operation, value: string): string {
  return op.path.replace(/\{\w+\}/g, value);
}

function expectClientError(res: RawResponse, what: string): void {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.json?.success, `${what}: ${res.text.slice(0, 300)}`).toBe(false);
    expect(typeof res.json?.error, what).toBe('string');
  }
}

const operations = Object.entries({ ...serviceOperations, ...controlOperations }) as Array<[string, Operation]>;

it.each(operations)('%s answers bad input with a 4xx in the error body, never a 500', { timeout: 60_000 }, async (name, op) => {
  const path = fill(op, 'x');
  for (const body of BODIES) {
    if (op.method === 'GET') break;
    expectClientError(await emu.request(op.method, path, { body }), `${name} body ${body.slice(0, 40)}`);
  }
  for (const query of QUERIES)
    expectClientError(await emu.request(op.method, `${path}?${query}`, op.method === 'GET' ? {} : { body: '{}' }), `${name} ?${query.slice(0, 40)}`);
  if (op.path.includes('{')) {
    for (const value of PARAMS) {
      expectClientError(await emu.request(op.method, fill(op, value), op.method === 'GET' ? {} : { body: '{}' }), `${name} param ${value.slice(0, 40)}`);
    }
  }
  // Without the API key, a /v1 operation answers 401 in the same body.
  if (op.auth === 'bearer') {
    const res = await emu.request(op.method, path, { apiKey: null, ...(op.method === 'GET' ? {} : { body: '{}' }) });
    expect([res.status, res.json.error]).toEqual([401, 'Unauthorized']);
  }
});

it.each(['/emulator/scenarios/validate', '/emulator/scenarios/runs'])('POST %s answers a YAML alias bomb with a 400 naming it', async (path) => {
  const res = await emu.request('POST', path, { body: { source: aliasBomb() } });
  expect(res.status, res.text.slice(0, 300)).toBe(400);
  expect(res.json.error).toMatch(/aliases expand too far/);
  expect((await emu.request('GET', '/emulator/scenarios/runs')).json.data).toEqual([]);
});
