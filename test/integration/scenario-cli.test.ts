import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasBomb } from '../helpers/alias-bomb';
import { type Receiver, startReceiver } from '../helpers/receiver';
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
    await writeFile(
      file,
      `version: 1\nname: cli pass\nclock: { speed: 100 }\nwebhook: { url: ${receiver.url} }\ntraffic: { count: 5, rate: 20/s }\nexpect:\n  receiver: { acknowledgedAll: true }\n`,
    );
    const r = await run(['scenario', 'run', file, '--report-dir', join(dir, 'out')], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/Scenario "cli pass": PASS/);
    expect(r.stdout).toMatch(/^ {2}ok {9}acknowledgedAll: /m);
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    expect(report).toMatchObject({ version: 1, verdict: 'pass', totals: { sends: 5, deliveries: 5, attempts: 5, acknowledged: 5 } });
    expect(await readFile(join(dir, 'out', 'report.html'), 'utf8')).toMatch(/<html[\s>]/i);
    // The run's log beside the report: the runner's steps, with their times.
    const log = await readFile(join(dir, 'out', 'run.log'), 'utf8');
    expect(log).toMatch(/^\S+Z \[runner\] scenario "cli pass"/m);
    expect(log).toMatch(/\[runner\] traffic: 5 of 5 sends made/);
  });

  it('exits 3, not 0, on a traffic-only scenario with no app and no webhook: inconclusive, each expectation that judged nothing named', async () => {
    const file = join(dir, 'nothing.yaml');
    await writeFile(
      file,
      'version: 1\nname: nothing to judge\nclock: { speed: 100 }\ntraffic: { count: 6, rate: 20/s }\noutcomes:\n  - match: { pattern: "user1@*" }\n    fate: hard_bounce\nexpect:\n  receiver: { acknowledgedAll: true }\n  app: { noSendAfterHardBounce: true }\n',
    );
    const r = await run(['scenario', 'run', file, '--report-dir', join(dir, 'nothing')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^Scenario "nothing to judge": INCONCLUSIVE \(inconclusive\)$/m);
    expect(r.stdout).toMatch(/^ {2}inconclusive: 2 expectations judged nothing: acknowledgedAll \(no event went to a webhook/m);
    expect(r.stdout).toMatch(/^ {2}NOT JUDGED acknowledgedAll: .*\(nothing to judge: no event went to a webhook/m);
    expect(r.stdout).toMatch(/^ {2}NOT JUDGED noSendAfterHardBounce: .*there is no app/m);
    expect(r.stdout).not.toMatch(/^ {2}ok /m);
    const report = JSON.parse(await readFile(join(dir, 'nothing', 'report.json'), 'utf8'));
    expect(report.verdict).toBe('inconclusive');
    expect(report.run.status).toBe('inconclusive');
  });

  it('exits 1 on the example built to fail, naming the violation', async () => {
    const r = await run(['scenario', 'run', join(EXAMPLES, 'failing-keeps-sending.yaml'), '--report-dir', join(dir, 'fail')], dir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^ {2}FAIL {7}noSendAfterHardBounce: /m);
    expect(r.stdout).toMatch(/violation noSendAfterHardBounce: sent to gone@bounce\.example after its hard bounce/);
    // The shop's own output is in the run's log, as it was on the terminal.
    expect(r.stdout).toMatch(/^app: round 1: sent to all 2 \(suppressions ignored\)$/m);
    expect(await readFile(join(dir, 'fail', 'run.log'), 'utf8')).toMatch(/\[stdout\] round 1: sent to all 2/);
  }, 60_000);

  it('exits 1 when the app exits before the run ends, its exit code and stderr printed, never a verdict of pass', async () => {
    const file = join(dir, 'crash.yaml');
    await writeFile(
      file,
      'version: 1\nname: crash\nclock: { speed: 60 }\nduration: 1m\napp:\n  command: "node -e \\"console.error(\'cannot connect\'); process.exit(4)\\""\nexpect:\n  app: { noSendAfterHardBounce: true }\n',
    );
    const r = await run(['scenario', 'run', file, '--report-dir', join(dir, 'crash')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/Scenario "crash": FAIL \(error\)/);
    expect(r.stdout).toMatch(/error: the app exited with code 4 before the run's end/);
    expect(r.stdout).toMatch(/cannot connect/);
    expect(await readFile(join(dir, 'crash', 'run.log'), 'utf8')).toMatch(/\[stderr\] cannot connect/);
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
    const noUrl = await run(['scenario', 'run', file, '--account', 'acc_1'], dir);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--account needs --url/);
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
      await writeFile(
        file,
        `version: 1\nname: remote\nclock: { speed: 100 }\ntraffic: { count: 3, rate: 20/s }\nexpect: { app: { maxSendsPerRecipient: 1 } }\n`,
      );
      const r = await run(['scenario', 'run', file, '--url', serve.url, '--json', '--report-dir', join(dir, 'remote')], dir);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'pass', totals: { sends: 3 } });
      expect(r.stderr).toMatch(/on http:\/\/127\.0\.0\.1:\d+/);
      expect(await readFile(join(dir, 'remote', 'run.log'), 'utf8')).toMatch(/\[runner\] traffic: 3 of 3 sends made/);
      // A scenario that starts an app is run as its file, which this emulator was not started to allow.
      const refused = await run(['scenario', 'run', join(EXAMPLES, 'hard-bounce-suppression.yaml'), '--url', serve.url], dir);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/refused to run .*hard-bounce-suppression\.yaml: no scenarios folder: .*--scenarios DIR/);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('runs on an existing account of a running emulator with --account, sending as it; an unknown one exits 2', async () => {
    const serve = await startServeProcess(['--memory', '--http-port', '0', '--smtp-port', '0']);
    try {
      const file = join(dir, 'on-account.yaml');
      await writeFile(
        file,
        `version: 1\nname: on an account\nclock: { speed: 100 }\ntraffic: { count: 3, rate: 20/s }\nexpect: { app: { maxSendsPerRecipient: 1 } }\n`,
      );
      // --account: on one of that emulator's accounts, sending as it.
      const created = await fetch(`${serve.url}/emulator/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Demo account' }),
      });
      const demo = ((await created.json()) as { data: { id: string } }).data;
      const onDemo = await run(['scenario', 'run', file, '--url', serve.url, '--account', demo.id, '--json', '--report-dir', join(dir, 'on-account')], dir);
      expect(onDemo.code, onDemo.stderr).toBe(0);
      expect(JSON.parse(onDemo.stdout)).toMatchObject({ verdict: 'pass', run: { accountId: demo.id } });
      // That emulator's clock stays where the run left it: the command says how far it moved.
      expect(onDemo.stderr).toMatch(/^ {2}clock: The emulator clock, which every account shares, moved .* It is not moved back\.$/m);
      const unknown = await run(['scenario', 'run', file, '--url', serve.url, '--account', 'nope'], dir);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/no account nope to run the scenario on/);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  }, 60_000);

  it('runs a scenario that starts an app on an emulator started with --scenarios for its folder, with the same verdict as in memory', async () => {
    const serve = await startServeProcess(['--memory', '--http-port', '0', '--scenarios', EXAMPLES]);
    try {
      expect(serve.stdout()).toMatch(new RegExp(`^Scenarios: ${EXAMPLES.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
      const r = await run(['scenario', 'run', join(EXAMPLES, 'failing-keeps-sending.yaml'), '--url', serve.url, '--report-dir', join(dir, 'remote-app')], dir);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(/violation noSendAfterHardBounce: sent to gone@bounce\.example/);
      expect(await readFile(join(dir, 'remote-app', 'run.log'), 'utf8')).toMatch(/\[stdout\] round 1: sent to all 2/);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  }, 60_000);

  it('serve refuses a scenarios folder that is not there (exit 2, naming it)', async () => {
    const r = await run(['serve', '--memory', '--http-port', '0', '--smtp-port', '0', '--scenarios', join(dir, 'nowhere')], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid value for --scenarios: no such folder ".*nowhere"/);
  });
});
