import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Electronegativity (Doyensec's Electron security scanner) over src-main/desktop, in `npm test`:
 * any finding above LOW severity fails unless the allow-list explains it; a stale allow-list entry
 * fails too. Its CLI does not run with the commander version installed here, so it is called as a
 * library; its one network call of a run (fetching translations) is answered offline.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const SOURCE = join(ROOT, 'src-main/desktop');

interface Finding {
  id: string;
  file: string;
  location: { line: number; column: number };
  severity: { name: string; value: number };
  confidence: { name: string };
  description: string;
}
interface Allowlist {
  findings: { id: string; file: string; reason: string }[];
  excludedChecks: { check: string; reason: string }[];
}

async function scan(excluded: string[]): Promise<{ issues: Finding[]; errors: { file: string; message: string }[]; checks: number }> {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@doyensec/electronegativity');
  const fromScanner = createRequire(entry);
  // No request leaves the machine: `got` answers every call with an error, which the scanner tolerates.
  const gotPath = fromScanner.resolve('got');
  const offline = () => Promise.reject(new Error('offline'));
  require.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: Object.assign(offline, { default: offline }) } as unknown as NodeJS.Module;
  const run = require(entry) as (
    options: Record<string, unknown>,
  ) => Promise<{ issues: Finding[]; errors: { file: string; message: string }[]; atomicChecks: number; globalChecks: number }>;
  const electronVersion = (JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')) as { version: string }).version;
  const result = await run({ input: SOURCE, isRelative: true, electronVersionOverride: electronVersion, excludeFromScan: excluded });
  return { issues: result.issues, errors: result.errors, checks: result.atomicChecks + result.globalChecks };
}

describe('electronegativity on src-main/desktop', () => {
  it('finds nothing above LOW severity that the allow-list does not explain', async () => {
    const allow = JSON.parse(readFileSync(join(ROOT, 'test/desktop/electronegativity-allowlist.json'), 'utf8')) as Allowlist;
    for (const entry of [...allow.findings, ...allow.excludedChecks]) expect(entry.reason.length, JSON.stringify(entry)).toBeGreaterThan(40);
    const { issues, errors, checks } = await scan(allow.excludedChecks.map((c) => c.check));
    expect(checks).toBeGreaterThan(30);
    // A file it cannot parse would hide its findings.
    expect(errors).toEqual([]);
    const file = (f: Finding) => f.file.replace(/\\/g, '/').replace(/^\.?\//, '');
    const serious = issues.filter((f) => f.severity.value > 1); // MEDIUM (2) and HIGH (3)
    const unexplained = serious.filter((f) => !allow.findings.some((a) => a.id === f.id && a.file === file(f)));
    expect(
      unexplained.map((f) => `${f.id} ${f.severity.name} ${file(f)}:${f.location.line} ${f.description}`),
      'findings above LOW without a reason in test/desktop/electronegativity-allowlist.json',
    ).toEqual([]);
    const stale = allow.findings.filter((a) => !serious.some((f) => a.id === f.id && a.file === file(f)));
    expect(stale, 'allow-list entries that match no finding (remove them)').toEqual([]);
  }, 60_000);
});
