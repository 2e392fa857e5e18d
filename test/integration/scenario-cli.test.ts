import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasBomb } from '../helpers/alias-bomb';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startServeProcess } from '../helpers/serve-process';

// The built CLI (`npx electron-vite build` first), as a user runs it.
const BIN = resolve(import.meta.dirname, '../../bin/mailyard.js');
const EXAMPLES = resolve(import.meta.dirname, '../../examples/scenarios');

function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('node', [BIN, ...args], { cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let dir: string;
let receiver: Receiver;
beforeAll(async () => {
  if (!existsSync(resolve(import.meta.dirname, '../../out/main/cli.js'))) throw new Error('build first: npx electron-vite build');
  dir = await mkdtemp(join(tmpdir(), 'mailyard-scenario-cli-'));
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

describe('mailyard scenario run', () => {
  it('exits 0 on a passing run, prints progress and the verdict, and writes report.json and report.html', async () => {
    const file = join(dir, 'pass.yaml');
    await writeFile(file, `version: 1\nname: cli pass\nclock: { speed: 100 }\nwebhook: { url: ${receiver.url} }\ntraffic: { count: 5, rate: 20/s }\nexpect:\n  receiver: { acknowledgedAll: true }\n`);
    const r = await run(['scenario', 'run', file, '--report-dir', join(dir, 'out')], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/Scenario "cli pass": PASS/);
    expect(r.stdout).toMatch(/ok {3}acknowledgedAll/);
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    expect(report).toMatchObject({ version: 1, verdict: 'pass', totals: { sends: 5, acknowledged: 5 } });
    expect(await readFile(join(dir, 'out', 'report.html'), 'utf8')).toMatch(/<html[\s>]/i);
  });

  it('exits 1 on the example built to fail, naming the violation', async () => {
    const r = await run(['scenario', 'run', join(EXAMPLES, 'failing-keeps-sending.yaml'), '--report-dir', join(dir, 'fail')], dir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FAIL noSendAfterHardBounce/);
    expect(r.stdout).toMatch(/violation noSendAfterHardBounce: sent to gone@bounce\.example after its hard bounce/);
  });

  it('exits 2 on a bad file, each problem named by file, line, column and field', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'version: 1\nname: bad\ntraffic:\n  count: 3\noutcomes:\n  - match: { share: 1.2 }\n    fate: vanish\n    after: -1s\n');
    const r = await run(['scenario', 'run', file], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:6:21: outcomes.0.match.share: must be at most 1`);
    expect(r.stderr).toContain(`${file}:7:11: outcomes.0.fate: must be one of delivered`);
    expect(r.stderr).toContain(`${file}:8:12: outcomes.0.after: must not be negative`);
    expect((await run(['scenario', 'run', join(dir, 'missing.yaml')], dir)).code).toBe(2);
    expect((await run(['scenario', 'walk', file], dir)).code).toBe(2);
  });

  it('exits 2 on a YAML alias bomb, naming the problem, with no stack trace', async () => {
    const file = join(dir, 'bomb.yaml');
    await writeFile(file, aliasBomb());
    const r = await run(['scenario', 'run', file], dir);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('YAML: aliases expand too far');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs on a running emulator with --url, --json printing the report', async () => {
    const serve = await startServeProcess(['--memory', '--http-port', '0', '--smtp-port', '0']);
    try {
      const file = join(dir, 'remote.yaml');
      await writeFile(file, `version: 1\nname: remote\nclock: { speed: 100 }\ntraffic: { count: 3, rate: 20/s }\n`);
      const r = await run(['scenario', 'run', file, '--url', serve.url, '--json', '--report-dir', join(dir, 'remote')], dir);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'pass', totals: { sends: 3 } });
      expect(r.stderr).toMatch(/on http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.exited;
    }
  });
});
