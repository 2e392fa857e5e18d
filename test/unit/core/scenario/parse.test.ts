import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scenarioJsonSchema } from '../../../../src-main/core/scenario/json-schema';
import { formatScenarioError, parseScenario, validateScenario } from '../../../../src-main/core/scenario/parse';
import { Scenario, scenarioSeed } from '../../../../src-shared/scenario/format';
import { aliasBomb } from '../../../helpers/alias-bomb';

const base = `version: 1
name: checkout
clock: { speed: 60 }
traffic:
  count: 10
  rate: 5/s
`;

function errorsOf(src: string) {
  const r = parseScenario(src);
  if (r.ok) throw new Error('expected errors');
  return r.errors;
}

describe('scenario format', () => {
  it('takes a good YAML file and fills the defaults', () => {
    const r = parseScenario(`${base}outcomes:\n  - match: { share: 0.03 }\n    fate: hard_bounce\n    after: 30s\n`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.scenario.outcomes[0]!.after).toBe(30_000);
    expect(r.scenario.duration).toBe(600_000);
    expect(r.scenario.account).toBe('new');
    expect(r.scenario.traffic!.to).toBe('user{n}@example.test');
  });

  it('takes JSON too', () => {
    const r = parseScenario(JSON.stringify({ version: 1, name: 'j', traffic: { count: 1 } }));
    expect(r.ok).toBe(true);
  });

  it('names an unknown field with its line and column', () => {
    const errors = errorsOf(`${base}  bogus: 1\n`);
    expect(errors).toEqual([{ path: 'traffic', line: 5, column: 3, message: 'unknown field: bogus' }]);
  });

  it('refuses a share over 100% at its line', () => {
    const errors = errorsOf(`${base}outcomes:\n  - match: { share: 1.5 }\n    fate: spam\n`);
    expect(errors).toContainEqual({
      path: 'outcomes.0.match.share',
      line: 8,
      column: 21,
      message: 'must be at most 1 (100%); a share is a fraction: 0.03 is 3%',
    });
    expect(errors).toContainEqual({ path: 'outcomes', line: 8, column: 3, message: 'the shares add up to 150%, over 100%' });
  });

  it('refuses shares that add up to over 100%', () => {
    const errors = errorsOf(`${base}outcomes:\n  - match: { share: 0.7 }\n    fate: spam\n  - match: { share: 0.5 }\n    fate: hard_bounce\n`);
    expect(errors).toEqual([{ path: 'outcomes', line: 8, column: 3, message: 'the shares add up to 120%, over 100%' }]);
  });

  it('refuses an unknown fate and an unknown event kind, naming the kinds it takes', () => {
    const errors = errorsOf(
      `${base}outcomes:\n  - match: { pattern: "*@x.test" }\n    fate: explode\nwebhook:\n  url: http://127.0.0.1:9/h\n  events: [delivery, nope]\n`,
    );
    expect(errors.map((e) => [e.path, e.line])).toEqual(
      [
        ['webhook.events.1', 12],
        ['outcomes.0.fate', 9],
      ].sort((a, b) => (a[0]! < b[0]! ? 1 : -1)),
    );
    expect(errors.find((e) => e.path === 'outcomes.0.fate')!.message).toMatch(/must be one of delivered, hard_bounce/);
    expect(errors.find((e) => e.path === 'webhook.events.1')!.message).toMatch(/must be one of delivery, open/);
  });

  it('refuses a negative delay at its line and column', () => {
    const errors = errorsOf(`${base}outcomes:\n  - match: { share: 0.1 }\n    fate: spam\n    after: -5s\n`);
    expect(errors).toEqual([{ path: 'outcomes.0.after', line: 10, column: 12, message: 'must not be negative (got "-5s")' }]);
    expect(formatScenarioError(errors[0]!, 'a.yaml')).toBe('a.yaml:10:12: outcomes.0.after: must not be negative (got "-5s")');
  });

  it('refuses a malformed duration and a wrong version', () => {
    const errors = errorsOf(`${base.replace('version: 1', 'version: 2')}duration: soon\n`);
    expect(errors.map((e) => e.path).sort()).toEqual(['duration', 'version']);
    expect(errors.find((e) => e.path === 'version')!.line).toBe(1);
  });

  it('reports a YAML syntax error with its place, and odd documents, without throwing', () => {
    const errors = errorsOf('version: 1\nname: [\n');
    expect(errors[0]!.message).toMatch(/^YAML: /);
    expect(errors[0]!.line).not.toBeNull();
    expect(errorsOf('- a\n- b\n')[0]!.message).toMatch(/must be a mapping/);
    expect(errorsOf('')[0]!.message).toMatch(/must be a mapping/);
    expect(errorsOf('a: &x [*x]\n').length).toBeGreaterThan(0);
  });

  it('needs traffic or an app', () => {
    const errors = errorsOf('version: 1\nname: idle\n');
    expect(errors[0]!.message).toMatch(/give traffic/);
  });

  it('refuses an alias bomb before it expands, as a YAML problem of the file (never a throw)', () => {
    expect(errorsOf(aliasBomb())).toEqual([{ path: '', line: null, column: null, message: expect.stringMatching(/^YAML: aliases expand too far/) }]);
    // A few aliases are read as ever: here the fields they fill are then refused as unknown.
    expect(errorsOf(`${base}a: &x { k: 1 }\nb: *x\n`)[0]!.message).toBe('unknown fields: a, b');
  });

  it('the seed: 1 when none is given, the top-level one, or the older webhookDelivery.seed; two that differ are refused', () => {
    const seedOf = (extra: object) => {
      const r = validateScenario({ version: 1, name: 's', traffic: { count: 1 }, ...extra });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      return scenarioSeed(r.scenario);
    };
    expect(seedOf({})).toBe(1);
    expect(seedOf({ seed: 42 })).toBe(42);
    expect(seedOf({ webhookDelivery: { seed: 7 } })).toBe(7);
    expect(seedOf({ seed: 7, webhookDelivery: { seed: 7 } })).toBe(7);
    const r = validateScenario({ version: 1, name: 's', traffic: { count: 1 }, seed: 1, webhookDelivery: { seed: 2 } });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors).toEqual([{ path: 'webhookDelivery.seed', line: null, column: null, message: 'differs from seed (1): give the seed once, at the top' }]);
  });

  it('validates an object (the testing API) with paths and no lines', () => {
    const r = validateScenario({ version: 1, name: 'o', traffic: { count: 0 } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual([{ path: 'traffic.count', line: null, column: null, message: 'must be at least 1' }]);
  });

  it('the published JSON Schema is up to date (regenerate: UPDATE_SCENARIO_SCHEMA=1 npx vitest run test/unit/core/scenario/parse.test.ts)', () => {
    const file = join(__dirname, '../../../../schemas/scenario.schema.json');
    if (process.env.UPDATE_SCENARIO_SCHEMA === '1') writeFileSync(file, `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
    const shipped = JSON.parse(readFileSync(file, 'utf8'));
    expect(shipped).toEqual(scenarioJsonSchema());
    expect(Scenario).toBeInstanceOf(z.ZodType);
  });
});
