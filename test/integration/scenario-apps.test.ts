import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioLogLine, ScenarioReport, ScenarioRun } from '../../src-shared/scenario/report';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { reportOf, stopRunsUnderWay } from '../helpers/scenario-runs';

const EXAMPLES = resolve(import.meta.dirname, '../../examples/scenarios');

let emu: TestEmulator;
/** A folder the emulator allows (--scenarios), and one it does not. */
let allowed: string;
let elsewhere: string;

beforeAll(async () => {
  allowed = await mkdtemp(join(tmpdir(), 'mailyard-allowed-'));
  elsewhere = await mkdtemp(join(tmpdir(), 'mailyard-elsewhere-'));
  emu = await startEmulator({ scenarioDirs: [allowed, EXAMPLES] });
});
afterAll(async () => {
  await emu.cleanup();
  await rm(allowed, { recursive: true, force: true });
  await rm(elsewhere, { recursive: true, force: true });
});
afterEach(() => stopRunsUnderWay(emu));

async function runFile(path: string): Promise<ScenarioReport> {
  const res = await emu.request('POST', '/emulator/scenarios/runs', { body: { path } });
  expect(res.status, res.text).toBe(202);
  return reportOf(emu, (res.json.data as ScenarioRun).id, 60_000);
}

/** A scenario whose app is `node -e <script>`: the app's code in one line of JavaScript. */
function appScenario(name: string, script: string, extra = ''): string {
  return `version: 1
name: ${name}
clock: { speed: 60 }
duration: 2m
app:
  command: ${JSON.stringify(`node -e ${JSON.stringify(script)}`)}
${extra}`;
}

const logOf = async (id: string, after = 0) =>
  (await emu.request('GET', `/emulator/scenarios/runs/${id}/log?after=${after}`)).json.data as { lines: ScenarioLogLine[]; next: number };

describe('a scenario posted over HTTP never starts a program', () => {
  it('a posted scenario with an app is refused (403 saying how to run it) and its command never runs; validating it runs nothing either', async () => {
    const marker = join(elsewhere, 'posted-ran');
    const source = appScenario('posted', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`, 'expect: { app: { maxSendsPerRecipient: 1 } }\n');
    const refused = await emu.request('POST', '/emulator/scenarios/runs', { body: { source, file: 'posted.yaml' } });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatch(/cannot start an app/);
    expect(refused.json.error).toMatch(/mailyard scenario run FILE/);
    expect(refused.json.error).toMatch(/--scenarios DIR/);
    const validated = await emu.request('POST', '/emulator/scenarios/validate', { body: { source } });
    expect(validated.status).toBe(200);
    // No run was made, and given time to run the command would have written its marker.
    expect((await emu.request('GET', '/emulator/scenarios/runs')).json.data).toEqual([]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(existsSync(marker)).toBe(false);
  });

  it('a file outside the scenarios folders is refused, by absolute path, by a path that climbs out, and through a link that leads out', async () => {
    const marker = join(elsewhere, 'outside-ran');
    const outside = join(elsewhere, 'outside.yaml');
    await writeFile(outside, appScenario('outside', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`));
    await symlink(outside, join(allowed, 'link-out.yaml'));
    const id = basename(allowed);
    const byAbsolute = await emu.request('POST', '/emulator/scenarios/runs', { body: { path: outside } });
    expect(byAbsolute.status).toBe(403);
    expect(byAbsolute.json.error).toMatch(/outside the scenarios folders/);
    const climbing = await emu.request('POST', '/emulator/scenarios/runs', { body: { path: `${id}/../${basename(elsewhere)}/outside.yaml` } });
    expect(climbing.status).toBe(404);
    const viaLink = await emu.request('POST', '/emulator/scenarios/runs', { body: { path: `${id}/link-out.yaml` } });
    expect(viaLink.status).toBe(403);
    const read = await emu.request('GET', `/emulator/scenarios/files/content?path=${encodeURIComponent(outside)}`);
    expect(read.status).toBe(403);
    const notScenario = await emu.request('GET', `/emulator/scenarios/files/content?path=${encodeURIComponent(`${basename(EXAMPLES)}/../../package.json`)}`);
    expect(notScenario.status).toBe(404);
    expect((await emu.request('GET', '/emulator/scenarios/runs')).json.data).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(marker)).toBe(false);
    // The link is not listed either.
    const folders = (await emu.request('GET', '/emulator/scenarios/files')).json.data.folders as Array<{ id: string; files: Array<{ path: string }> }>;
    expect(folders.find((f) => f.id === id)!.files.map((f) => f.path)).not.toContain(`${id}/link-out.yaml`);
  });

  it('without a scenarios folder, a path is refused saying how to allow one', async () => {
    const bare = await startEmulator();
    try {
      const res = await bare.request('POST', '/emulator/scenarios/runs', { body: { path: join(EXAMPLES, 'hard-bounce-suppression.yaml') } });
      expect(res.status).toBe(403);
      expect(res.json.error).toMatch(/--scenarios DIR/);
      expect((await bare.request('GET', '/emulator/scenarios/files')).json.data).toEqual({ folders: [] });
    } finally {
      await bare.cleanup();
    }
  });
});

describe('an app that fails ends its run in error, never in a verdict', () => {
  it('an app that exits at once: error with its exit code and its stderr, in the error and in the log; progress complete', async () => {
    await writeFile(
      join(allowed, 'crash.yaml'),
      appScenario('crash', "console.error('boom: no MAIL_API_URL'); process.exit(3)", 'expect: { app: { noSendAfterHardBounce: true } }\n'),
    );
    const report = await runFile(join(allowed, 'crash.yaml'));
    expect(report.run.status).toBe('error');
    expect(report.verdict).toBe('fail');
    // Nothing the app did was judged: its expectation is shown as such, never as passed.
    expect(report.expectations.map((e) => [e.id, e.result, e.passed])).toEqual([['noSendAfterHardBounce', 'not-judged', false]]);
    expect(report.run.error).toMatch(/exited with code 3/);
    expect(report.run.error).toMatch(/boom: no MAIL_API_URL/);
    expect(report.run.progress.fraction).toBe(1);
    const log = await logOf(report.run.id);
    expect(log.lines).toContainEqual(expect.objectContaining({ source: 'stderr', text: 'boom: no MAIL_API_URL' }));
    expect(log.lines.some((l) => l.source === 'runner' && /app started: node -e/.test(l.text))).toBe(true);
    const text = await emu.request('GET', `/emulator/scenarios/runs/${report.run.id}/log.txt`);
    expect(text.headers['content-type']).toMatch(/text\/plain/);
    expect(text.text).toMatch(/\[stderr\] boom: no MAIL_API_URL/);
  });

  it("an app that exits (even with 0) before the run's end: error, the run's time of it named", async () => {
    await writeFile(
      join(allowed, 'early.yaml'),
      appScenario('early', 'setTimeout(() => process.exit(0), 300)', 'expect: { app: { noSendAfterHardBounce: true } }\n'),
    );
    const report = await runFile(join(allowed, 'early.yaml'));
    expect(report.run.status).toBe('error');
    expect(report.run.error).toMatch(/exited with code 0 before the run's end/);
  });

  it('an app killed by a signal: the signal is named', async () => {
    await writeFile(join(allowed, 'killed.yaml'), appScenario('killed', "setTimeout(() => process.kill(process.pid, 'SIGKILL'), 200)"));
    const report = await runFile(join(allowed, 'killed.yaml'));
    expect(report.run.status).toBe('error');
    expect(report.run.error).toMatch(/SIGKILL/);
  });

  it('an app never ready at its readyUrl: error naming the URL', async () => {
    await writeFile(
      join(allowed, 'never-ready.yaml'),
      appScenario('never ready', 'setInterval(() => {}, 1000)', '  readyUrl: http://127.0.0.1:9/ready\n  timeout: 1s\n'),
    );
    const report = await runFile(join(allowed, 'never-ready.yaml'));
    expect(report.run.status).toBe('error');
    expect(report.run.error).toMatch(/not ready at http:\/\/127\.0\.0\.1:9\/ready within 1000 ms/);
  });

  it('an app that runs but sends nothing, with expectations of the app: inconclusive, each naming why, and the log says where to look', async () => {
    await writeFile(
      join(allowed, 'silent.yaml'),
      appScenario(
        'silent',
        "console.log('listening'); setInterval(() => {}, 1000)",
        'expect: { app: { noSendAfterHardBounce: true, maxSendsPerRecipient: 2 } }\n',
      ),
    );
    const report = await runFile(join(allowed, 'silent.yaml'));
    expect(report.run.status).toBe('inconclusive');
    expect(report.verdict).toBe('inconclusive');
    expect(report.run.error).toBeNull();
    expect(report.expectations.map((e) => [e.id, e.result, e.observed])).toEqual([
      ['noSendAfterHardBounce', 'not-judged', 'nothing to judge: the app sent nothing'],
      ['maxSendsPerRecipient', 'not-judged', 'nothing to judge: the app sent nothing'],
    ]);
    const log = (await logOf(report.run.id)).lines;
    expect(log).toContainEqual(expect.objectContaining({ source: 'stdout', text: 'listening' }));
    expect(log).toContainEqual(
      expect.objectContaining({ source: 'runner', text: expect.stringMatching(/the app sent nothing: does it send to MAILYARD_URL/) }),
    );
    expect(log).toContainEqual(
      expect.objectContaining({
        source: 'runner',
        text: expect.stringMatching(/^inconclusive: 2 expectations judged nothing: noSendAfterHardBounce \(the app sent nothing\)/),
      }),
    );
  });

  it('the log is read in parts with after', async () => {
    await writeFile(join(allowed, 'chatty.yaml'), appScenario('chatty', "for (let i = 0; i < 5; i++) console.log('line ' + i); process.exit(1)"));
    const report = await runFile(join(allowed, 'chatty.yaml'));
    const all = await logOf(report.run.id);
    const rest = await logOf(report.run.id, all.lines.find((l) => l.text === 'line 2')!.n);
    expect(rest.lines[0]!.text).toBe('line 3');
    expect(rest.next).toBe(all.next);
  });
});

describe('the scenarios folders: listed, read and run with their app', () => {
  it('lists the example files, each with its name and whether it starts an app, and serves one file', async () => {
    const folders = (await emu.request('GET', '/emulator/scenarios/files')).json.data.folders as Array<{
      id: string;
      dir: string;
      files: Array<{ path: string; name: string; valid: boolean; starts_app: boolean }>;
    }>;
    const examples = folders.find((f) => f.dir === EXAMPLES)!;
    expect(examples.id).toBe('scenarios');
    expect(examples.files.map((f) => f.path)).toEqual([
      'scenarios/complaint-flow.yaml',
      'scenarios/duplicates-and-reordering.yaml',
      'scenarios/failing-keeps-sending.yaml',
      'scenarios/hard-bounce-suppression.yaml',
      'scenarios/receiver-outage-catch-up.yaml',
    ]);
    expect(examples.files.every((f) => f.valid && f.starts_app)).toBe(true);
    expect(examples.files.find((f) => f.path === 'scenarios/hard-bounce-suppression.yaml')!.name).toBe('hard-bounce suppression');
    const file = await emu.request('GET', '/emulator/scenarios/files/content?path=scenarios/hard-bounce-suppression.yaml');
    expect(file.status).toBe(200);
    expect(file.json.data.file).toBe(join(EXAMPLES, 'hard-bounce-suppression.yaml'));
    expect(file.json.data.source).toMatch(/name: hard-bounce suppression/);
  });

  it('an example runs with its app from its listed path and gets the verdict the CLI gives: the failing one fails naming the violation', async () => {
    const failing = await runFile('scenarios/failing-keeps-sending.yaml');
    expect(failing.run.status).toBe('failed');
    expect(failing.run.file).toBe('scenarios/failing-keeps-sending.yaml');
    expect(failing.totals.sends).toBeGreaterThan(0);
    const violation = failing.expectations.find((e) => e.id === 'noSendAfterHardBounce')!.violations[0]!;
    expect(violation.message).toMatch(/sent to gone@bounce\.example after its hard bounce/);
    const passing = await runFile('scenarios/hard-bounce-suppression.yaml');
    expect(passing.run.status, passing.run.error ?? '').toBe('passed');
    expect(passing.totals.sends).toBeGreaterThan(0);
    expect(passing.run.progress.fraction).toBe(1);
    // The shop's own output is in the run's log.
    expect((await logOf(passing.run.id)).lines.some((l) => l.source === 'stdout' && /webhook receiver registered/.test(l.text))).toBe(true);
  }, 60_000);

  it('a file in a subfolder is named by its path inside the folder', async () => {
    await mkdir(join(allowed, 'team'), { recursive: true });
    await writeFile(
      join(allowed, 'team', 'traffic.yaml'),
      'version: 1\nname: nested\nclock: { speed: 100 }\ntraffic: { count: 2, rate: 10/s }\nexpect: { app: { maxSendsPerRecipient: 1 } }\n',
    );
    const report = await runFile(`${basename(allowed)}/team/traffic.yaml`);
    expect(report.run.status).toBe('passed');
    expect(report.run.file).toBe(`${basename(allowed)}/team/traffic.yaml`);
  });
});
