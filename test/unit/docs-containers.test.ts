import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envName, SERVE_FLAGS } from '../../src-main/cli/args';

/**
 * docs/containers.md is what a team without Node reads to run the image: its environment table must
 * name every `mailyard serve` option's variable and say what the Dockerfile really sets, and its Node
 * snippet must be the test CI runs against the image (examples/runners), word for word.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const page = readFileSync(join(ROOT, 'docs/containers.md'), 'utf8');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The environment table's rows: variable -> what the image sets ("unset..." when nothing). */
function tableRows(): Map<string, string> {
  const section = /^## Environment\n([\s\S]*?)^## /m.exec(page)?.[1];
  if (section === undefined) throw new Error('docs/containers.md has no "## Environment" section');
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([A-Z_]+)` \| ([^|]*) \|/gm)) rows.set(m[1]!, m[2]!.trim());
  return rows;
}

/** The variables the final stage's ENV sets (the last `ENV` instruction, its `NAME=value` pairs). */
function imageEnv(): Map<string, string> {
  const stages = dockerfile.split(/^FROM /m);
  const final = stages[stages.length - 1]!;
  const env = /^ENV ((?:.*\\\n)*.*)$/m.exec(final)?.[1];
  if (env === undefined) throw new Error('the Dockerfile sets no ENV in its final stage');
  return new Map([...env.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

describe('docs/containers.md', () => {
  it("lists every `mailyard serve` option's variable", () => {
    const rows = tableRows();
    const missing = Object.keys(SERVE_FLAGS)
      .map(envName)
      .filter((name) => !rows.has(name));
    expect(missing).toEqual([]);
  });

  it('says what the Dockerfile sets: each of its variables with its value, every other row unset', () => {
    const rows = tableRows();
    const env = imageEnv();
    expect(env.size).toBeGreaterThan(0);
    for (const [name, value] of env) expect(rows.get(name), name).toBe(`\`${value}\``);
    for (const [name, said] of rows) if (!env.has(name)) expect(said, name).toMatch(/^unset/);
  });

  it('shows the Node test CI runs against the image, as it is', () => {
    const example = readFileSync(join(ROOT, 'examples/runners/test/testcontainers/mailyard-container.test.mjs'), 'utf8');
    const blocks = [...page.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(blocks).toContain(example);
  });
});
