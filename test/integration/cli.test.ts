import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver';
import { startServeProcess } from '../helpers/serve-process';

const BIN = resolve(import.meta.dirname, '../../bin/mailyard.js');
const BUILT = resolve(import.meta.dirname, '../../out/main/cli.js');

let dir: string;
beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error('the CLI is not built: run `npm run build` (npm test does) before these tests');
  dir = await mkdtemp(join(tmpdir(), 'mailyard-cli-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mailyard` to completion (for commands that exit by themselves). */
function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** The start-up lines of `mailyard serve` as `{HTTP: ..., SMTP: ..., "API key": ..., Data: ...}`. */
function startupLines(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .split('\n')
      .filter((l) => /^\w[\w ]*:\s/.test(l))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
  );
}

describe('mailyard serve', () => {
  it('starts with the documented flags, prints its lines, serves, and stops cleanly on SIGTERM', async () => {
    const dataDir = join(dir, 'serve');
    const {
      child,
      stdout: output,
      exited,
    } = await startServeProcess(['--http-port', '0', '--smtp-port', '0', '--data-dir', dataDir, '--api-key', 'cli-test-key-1234']);
    const lines = startupLines(output());
    expect(output()).toMatch(/^Mailyard \d+\.\d+\.\d+\n/);
    const url = lines.HTTP!.split(/\s/)[0]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines['API key']).toMatch(/^cli-test-key-1234 /);
    expect(lines.Data).toBe(dataDir);
    expect(lines.SMTP).toMatch(
      /^smtp:\/\/127\.0\.0\.1:\d+ {2}\(AUTH optional: any user name, an API key as the password; STARTTLS off \(--smtp-tls starttls\)\)$/,
    );

    const health = await (await fetch(`${url}/emulator/health`)).json();
    expect(health.data.data_dir).toBe(dataDir);
    const hooks = await fetch(`${url}/v1/webhook`, { headers: { authorization: 'Bearer cli-test-key-1234' } });
    expect(hooks.status).toBe(200);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output()).toContain('Stopped.');
    expect(existsSync(join(dataDir, 'mailyard.db'))).toBe(true);
  });

  it('sends, simulates and shows an email in the built bundle (plain Node, not the test runner)', async () => {
    const { child, url, stdout, exited } = await startServeProcess([
      '--http-port',
      '0',
      '--memory',
      '--api-key',
      'bundle-key-1234567',
      '--smtp-tls',
      'starttls',
    ]);
    try {
      const auth = { authorization: 'Bearer bundle-key-1234567', 'content-type': 'application/json' };
      const sent = await fetch(`${url}/v1/email/send`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          from: { email: 'app@example.com' },
          to: [{ email: 'open@sim.mailyard.test' }],
          subject: 'Bundle check',
          content: [{ type: 'text/html', value: '<a href="https://example.com/">link</a>' }],
          settings: { click_tracking: { enable: true }, open_tracking: { enable: true } },
          attachments: [{ filename: 'a.txt', content: Buffer.from('hello').toString('base64') }],
        }),
      });
      expect(sent.status).toBe(200);
      const answer = await sent.json();
      expect(answer).toEqual({ success: true, ref_id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/) });
      const ref = answer.ref_id as string;
      await fetch(`${url}/emulator/clock`, { method: 'POST', headers: auth, body: JSON.stringify({ advance_ms: 60_000 }) });
      await new Promise((r) => setTimeout(r, 200));
      const logs = await (await fetch(`${url}/v1/email/logs?refId=${ref}`, { headers: auth })).json();
      expect(logs).toMatchObject({ success: true, totalCount: 1, nextPageToken: '' });
      expect(logs.emailLogs[0]).toMatchObject({ refId: ref, recipientAddress: 'open@sim.mailyard.test', status: 'opened', opened: true });
      expect(Object.keys(logs.emailLogs[0].track)).toEqual(['delivery', 'open']);
      const copies = (await (await fetch(`${url}/emulator/messages?q=${ref}`)).json()).data.messages;
      expect(copies.map((m: { ref_id: string }) => m.ref_id)).toEqual([ref]);
      const detail = await (await fetch(`${url}/emulator/messages/${copies[0].id}`)).json();
      expect(detail.data.attachments[0].filename).toBe('a.txt');
      expect(detail.data.html).toContain('/t/c/');

      // The SMTP sink in the bundle: a message over STARTTLS with AUTH, captured with its attachment. In
      // memory no certificate file is kept: the start-up lines print it, and the client trusts that.
      expect(stdout()).toMatch(
        /^TLS cert: made for this run, kept nowhere \(--memory\) {2}\(self-signed: trust it in the client, e\.g\. nodemailer tls: \{ ca \}\):$/m,
      );
      const ca = /^-----BEGIN CERTIFICATE-----\n[\s\S]+?\n-----END CERTIFICATE-----$/m.exec(stdout())![0];
      const health = await (await fetch(`${url}/emulator/health`)).json();
      const info = await nodemailer
        .createTransport({
          host: '127.0.0.1',
          port: health.data.ports.smtp,
          requireTLS: true,
          tls: { ca },
          auth: { user: 'bundle', pass: 'bundle-key-1234567' },
        })
        .sendMail({
          from: 'app@example.com',
          to: 'Ann <ann@example.org>',
          subject: 'Über SMTP',
          text: 'hi',
          attachments: [{ filename: 'b.txt', content: 'bytes' }],
        });
      const smtpRef = /queued as (\S+)$/.exec(info.response)![1]!;
      const smtpCopies = (await (await fetch(`${url}/emulator/messages?q=${smtpRef}`)).json()).data.messages;
      expect(smtpCopies).toHaveLength(1);
      const smtpDetail = await (await fetch(`${url}/emulator/messages/${smtpCopies[0].id}`)).json();
      expect(smtpDetail.data).toMatchObject({ ref_id: smtpRef, source: 'smtp', subject: 'Über SMTP', recipient: { email: 'ann@example.org', name: 'Ann' } });
      expect(smtpDetail.data.attachments[0].filename).toBe('b.txt');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('takes its settings from MAILYARD_* variables, flags winning', async () => {
    const { child, stdout, exited } = await startServeProcess(['--api-key', 'flag-key-12345678'], {
      MAILYARD_HTTP_PORT: '0',
      MAILYARD_MEMORY: 'true',
      MAILYARD_API_KEY: 'env-key-12345678',
    });
    expect(stdout()).toMatch(/^API key:\s+flag-key-12345678 /m);
    expect(stdout()).toMatch(/^Data:\s+in memory/m);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it.each([
    [['--http-port', 'abc'], {}, 'mailyard: invalid value for --http-port: must be a port number from 0 to 65535, got "abc"'],
    [['--http-port', '70000'], {}, 'mailyard: invalid value for --http-port: must be from 0 to 65535, got "70000"'],
    [[], { MAILYARD_HTTP_PORT: '-1' }, 'mailyard: invalid value for MAILYARD_HTTP_PORT: must be a port number from 0 to 65535, got "-1"'],
    [['--log-level', 'loud'], {}, 'mailyard: invalid value for --log-level: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [['--api-key', 'short'], {}, 'mailyard: invalid value for --api-key: must be at least 8 characters, got "short"'],
    [
      ['--api-key', 'has spaces in it'],
      {},
      'mailyard: invalid value for --api-key: may contain only letters, digits and . _ ~ + / - (then = padding), got "has spaces in it"',
    ],
    [['--memory', '--data-dir', '/tmp/x'], {}, 'mailyard: --data-dir and --memory cannot be used together'],
    [[], { MAILYARD_MEMORY: 'maybe' }, 'mailyard: invalid value for MAILYARD_MEMORY: expected true or false, got "maybe"'],
    [
      ['--retry-schedule', '5x'],
      {},
      'mailyard: invalid value for --retry-schedule: "5x" is not a duration (use a number and ms, s, m, h or d, as in 5s or 2h), got "5x"',
    ],
    [['--smtp-auth', 'always'], {}, 'mailyard: invalid value for --smtp-auth: must be optional or required, got "always"'],
    [[], { MAILYARD_SMTP_TLS: 'on' }, 'mailyard: invalid value for MAILYARD_SMTP_TLS: must be off or starttls, got "on"'],
    [['--nope'], {}, "mailyard: Unknown option '--nope'"],
    [['--http-port'], {}, "mailyard: Option '--http-port <value>' argument missing"],
  ])('exits with status 2 and names the problem: %j %j', async (args, env, message) => {
    const result = await run(['serve', ...args], env as Record<string, string>);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(message);
    expect(result.stdout).toBe('');
  });

  it('exits with status 1 and a clear message when the port is taken', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((r) => blocker.listen(0, '127.0.0.1', () => r((blocker.address() as AddressInfo).port)));
    try {
      const result = await run(['serve', '--memory', '--http-port', String(port)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `mailyard: could not start: port ${port} on 127.0.0.1 is already in use (--http-port); choose another port, or 0 for a free one`,
      );
      const smtp = await run(['serve', '--memory', '--http-port', '0', '--smtp-port', String(port)]);
      expect(smtp.code).toBe(1);
      expect(smtp.stderr).toContain(
        `mailyard: could not start: port ${port} on 127.0.0.1 is already in use (--smtp-port); choose another port, or 0 for a free one`,
      );
    } finally {
      blocker.close();
    }
  });

  it('exits with status 1 and a clear message when another Mailyard uses the data directory', async () => {
    const dataDir = join(dir, 'shared');
    const first = await startServeProcess(['--http-port', '0', '--data-dir', dataDir]);
    try {
      const second = await run(['serve', '--http-port', '0', '--smtp-port', '0', '--data-dir', dataDir]);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`mailyard: could not start: the data directory ${dataDir} is in use by another Mailyard (process ${first.child.pid}).`);
      // The first one still serves.
      expect((await fetch(`${first.url}/emulator/health`)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });

  it('warns once among its start-up lines when the data directory is open to other users', async () => {
    const dataDir = join(dir, 'open');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const { child, stdout, exited } = await startServeProcess(['--http-port', '0', '--data-dir', dataDir]);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const warnings = stdout()
      .split('\n')
      .filter((l) => l.startsWith('WARNING:'));
    expect(warnings).toEqual([
      `WARNING:  the data directory ${dataDir} is open to other users (mode 0755): it holds API keys, webhook and DKIM secrets and every captured message. Make it private: chmod 700 ${dataDir}`,
    ]);
  });

  it('prints its options with --help', async () => {
    const result = await run(['serve', '--help']);
    expect(result.code).toBe(0);
    for (const flag of [
      '--host',
      '--http-port',
      '--smtp-port',
      '--smtp-auth',
      '--smtp-tls',
      '--data-dir',
      '--memory',
      '--api-key',
      '--strict-webhook-urls',
      '--retry-schedule',
      '--log-level',
      'MAILYARD_HTTP_PORT',
    ]) {
      expect(result.stdout).toContain(flag);
    }
  });
});

describe('mailyard', () => {
  it('runs as `npx mailyard` in the project, as the README says', async () => {
    const result = await new Promise<Run>((resolvePromise) => {
      const child = spawn('npx', ['--no-install', 'mailyard', '--version'], { cwd: resolve(import.meta.dirname, '../..') });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('prints its version', async () => {
    const result = await run(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exits with status 2 for an unknown command', async () => {
    const result = await run(['serv']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mailyard: unknown command "serv"');
  });
});

describe('mailyard check-receiver', () => {
  it('exits 0 for a receiver that checks its secret, 1 naming the check one fails with its request and answer, 2 for bad usage', async () => {
    const receiver = await startReceiver();
    try {
      // It checks its secret exactly while `strict`, and only that one is present after.
      let strict = true;
      receiver.answer = (req) => {
        const secret = req.headers['x-webhook-secret'];
        return (strict ? secret === 'cli-secret' : secret !== undefined) ? 200 : 401;
      };
      const args = ['check-receiver', receiver.url, '--header', 'X-Webhook-Secret: cli-secret', '--events', 'delivery,click', '--method', 'PATCH'];
      const good = await run(args);
      expect(good.stderr).toBe('');
      expect(good.code).toBe(0);
      expect(good.stdout).toMatch(/ok +secret-wrong/);
      expect(good.stdout).toMatch(/^PASS: 9 passed, 0 failed, 2 skipped/m);
      // Without an effects URL the duplicate's answers passed; that it was acted on once was not seen, and it says so.
      expect(good.stdout).toMatch(
        /ok +duplicate .*: 200 in \d+ ms, 200 in \d+ ms\n +Only the answers were graded: whether the receiver acts on the event once was not observed/,
      );
      expect(receiver.requests.every((r) => r.method === 'PATCH')).toBe(true);

      strict = false;
      const bad = await run([...args, '--json']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(
        /FAIL secret-wrong .*\n.*expected rejected with 401 or 403\n.*got delivery event with a wrong X-Webhook-Secret: PATCH http:\/\/127\.0\.0\.1:\d+\/hooks answered 200/,
      );
      const report = JSON.parse(bad.stdout);
      expect(report.passed).toBe(false);
      expect(report.checks.filter((c: { status: string }) => c.status === 'failed').map((c: { id: string }) => c.id)).toEqual(['secret-wrong']);
      expect(bad.stderr).toMatch(/^FAIL: 1 failed \(secret-wrong\), 8 passed, 2 skipped/m);

      const before = receiver.requests.length;
      const usages = [['check-receiver'], ['check-receiver', receiver.url, '--method', 'TRACE'], ['check-receiver', receiver.url, '--header', 'no colon']];
      const results = await Promise.all(usages.map((usage) => run(usage)));
      expect(results.map((r) => r.code)).toEqual([2, 2, 2]);
      expect(results.map((r) => r.stderr.split('\n')[0])).toEqual([
        'mailyard: give the URL of your receiver',
        expect.stringMatching(/^mailyard: --method must be one of GET, POST/),
        'mailyard: --header must be "Name: value", got "no colon"',
      ]);
      expect(receiver.requests.length).toBe(before);
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it('with --effects-url, exits 1 for a receiver that acts on a duplicate twice and 0 for one that acts on it once', async () => {
    const receiver = await startReceiver();
    try {
      // It counts what it acts on; `byWebhookId` decides whether a repeated webhook-id is acted on again.
      let byWebhookId = false;
      const seen = new Set<string>();
      let processed = 0;
      receiver.answer = (req) => {
        if (req.method === 'GET') return { status: 200, body: JSON.stringify({ processed }) };
        const id = String(req.headers['webhook-id']);
        if (!byWebhookId || !seen.has(id)) processed++;
        seen.add(id);
        return 200;
      };
      const args = ['check-receiver', receiver.url, '--events', 'delivery,click,bounce', '--effects-url', `${receiver.url}/effects`, '--json'];
      const twice = await run(args);
      expect(twice.code).toBe(1);
      const failed = JSON.parse(twice.stdout).checks.find((c: { id: string }) => c.id === 'duplicate');
      expect(failed).toMatchObject({ status: 'failed', processed: { expected: 1, observed: 2 } });
      expect(twice.stderr).toMatch(/FAIL duplicate .*\n.*expected both answered 2xx, and acted on once\n.*got processed went from \d+ to \d+ \(\+2;/);
      expect(twice.stderr).toMatch(/^FAIL: 1 failed \(duplicate\),/m);

      byWebhookId = true;
      const once = await run(args);
      expect(once.code).toBe(0);
      const passed = JSON.parse(once.stdout).checks.find((c: { id: string }) => c.id === 'duplicate');
      expect(passed).toMatchObject({ status: 'passed', processed: { expected: 1, observed: 1 } });
      expect(once.stderr).toMatch(/ok +duplicate .*: 200 in \d+ ms, 200 in \d+ ms, processed \+1\n/);
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
