/**
 * The error body of every /v1 operation, as the real service's getting-started page shows it
 * (https://docs.typesparrow.com/getting-started): `{"success": false, "error", "details"}` with
 * `details` an optional string; the webhook calls as their REST pages show it (`"details": {}`, e.g.
 * https://edith-docs-surveysparrow.pages.dev/rest-api/register-webhook). Each operation of the table is made to answer the 4xx a client meets
 * most (no API key, a body that is not an object, a path naming nothing, a query with a bad value);
 * every answer is checked. (test/unit/core/http/error-handler.test.ts checks every entry of the error
 * catalogue in each body shape.)
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Operation, serviceOperations } from '../../src-shared/operations';
import { type RawResponse, startEmulator, type TestEmulator } from '../helpers/emulator';

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.cleanup();
});

/** A value of each path parameter that is well formed and names nothing. */
const UNKNOWN: Record<string, string> = {
  domain: 'nothing-here.example',
  username: 'nobody',
  mailer_id: 'domain_01JC3BBW8S9YGX2VNKG5MD7BTA',
  template_id: 'tmpl_01JC3BBW8S9YGX2VNKG5MD7BTA',
};

function fill(op: Operation): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name: string) => UNKNOWN[name] ?? 'nope');
}

/**
 * The members an error body may carry: `details` a string (an object, always there, on the webhook
 * calls, whose REST pages show `"details": {}`), `fields` strings by path.
 */
function expectErrorBody(res: RawResponse, what: string, webhookCall: boolean): void {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, what).toBeLessThan(500);
  expect(res.json.success, what).toBe(false);
  expect(typeof res.json.error, what).toBe('string');
  expect(['details', 'error', 'fields', 'records', 'success'], what).toEqual(expect.arrayContaining(Object.keys(res.json)));
  if (webhookCall) {
    expect(res.json.details, what).toEqual(res.json.fields === undefined ? {} : { fields: res.json.fields });
  } else if ('details' in res.json) expect(typeof res.json.details, `${what}: details ${JSON.stringify(res.json.details)}`).toBe('string');
  if ('fields' in res.json) {
    expect(
      Object.values(res.json.fields).every((v) => typeof v === 'string'),
      what,
    ).toBe(true);
    // The sentence names each field the map has (up to ten).
    if (!webhookCall)
      for (const path of Object.keys(res.json.fields).slice(0, 10)) expect(res.json.details, what).toContain(path === 'body' ? 'the body' : path);
  }
}

const operations = Object.entries(serviceOperations) as Array<[string, Operation]>;

it.each(operations)('%s answers its 4xx with details as its page shows it, the field map under fields', async (name, op) => {
  const path = fill(op);
  const statuses = new Set<number>();
  const check = (res: RawResponse, what: string) => {
    expectErrorBody(res, `${name} ${what}`, op.errorShape === 'details');
    statuses.add(res.status);
  };
  const body = op.method === 'GET' ? {} : { body: '{}' };
  if (op.auth === 'bearer') check(await emu.request(op.method, path, { apiKey: null, ...body }), 'without a key');
  if (op.body) check(await emu.request(op.method, path, { body: '[]' }), 'with a body that is not an object');
  if (op.path.includes('{')) {
    const res = await emu.request(op.method, path, body);
    if (res.status >= 400) check(res, 'naming nothing');
  }
  if (op.query) check(await emu.request(op.method, `${path}?pageSize=many&startCreatedAt=yesterday`, body), 'with a bad query');
  // Each operation answered at least one 4xx beside the 401.
  expect([...statuses].some((s) => s !== 401) || (!op.body && !op.query && !op.path.includes('{')), `${name}: ${[...statuses]}`).toBe(true);
});
