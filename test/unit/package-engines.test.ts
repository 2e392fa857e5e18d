/**
 * The Node versions the package's `engines` names install it without a warning: npm prints EBADENGINE
 * for every installed package whose own `engines.node` refuses the running Node, and a user reads a
 * warning as breakage. Every package an install of Mailyard brings (the lock's packages outside the
 * development tree) must accept the first release of each Node major `engines` admits. `.ci/run` checks
 * the same on a real install of the packed tarball into a fresh project.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }>;
};

/** The first release of each Node major from 20 to 26 that Mailyard's `engines` admits (20.19.0, 22.0.0, ...). */
const admitted = ['20.0.0', '22.0.0', '24.0.0', '26.0.0'].map((first) => semver.minVersion(`${pkg.engines.node} ^${first}`)?.version).filter(Boolean);

describe('engines', () => {
  it('names Node 20.19 as the oldest, and the majors after it', () => {
    expect(admitted).toEqual(['20.19.0', '22.0.0', '24.0.0', '26.0.0']);
  });

  it('every runtime dependency, direct or not, accepts each of those Node versions (no EBADENGINE on install)', () => {
    const refused: string[] = [];
    let looked = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || entry.dev) continue;
      looked++;
      // An old form of the field (an array of strings) says nothing npm checks.
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!range) continue;
      const bad = admitted.filter((version) => !semver.satisfies(version!, range));
      if (bad.length > 0) refused.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${range}: refuses ${bad.join(', ')}`);
    }
    // The runtime tree is about 160 packages: a lock read wrong would look at none.
    expect(looked).toBeGreaterThan(100);
    expect(refused).toEqual([]);
  });
});
