/**
 * The image built from the repository's Dockerfile, run as a user runs it: ports published on
 * 127.0.0.1 only, the API key and control key given by environment. `.ci/run` runs it after building
 * the image (`node --test test/container/`); `npm test` does not (it needs a container engine).
 *
 *   MAILYARD_IMAGE   the image to test (default mailyard:dev)
 *   CONTAINER_ENGINE podman (default) or docker
 *
 * Every container it starts carries the label `mailyard-image-test` and is removed after the suite,
 * whether its test passed or not. The figures (size, start to live, stop) are printed.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';

const run = promisify(execFile);
const IMAGE = process.env.MAILYARD_IMAGE || 'mailyard:dev';
const ENGINE = process.env.CONTAINER_ENGINE || 'podman';
const LABEL = 'mailyard-image-test';
const MAX_IMAGE_BYTES = 350 * 1000 * 1000;
const API_KEY = 'image-test-api-key-0001';
const CONTROL_KEY = 'image-test-control-key-0001';

const engine = async (...args) => (await run(ENGINE, args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
/** A container's output: what it printed on stdout, then its JSON log lines (stderr). */
const logsOf = async (id) => {
  const { stdout, stderr } = await run(ENGINE, ['logs', id], { maxBuffer: 16 * 1024 * 1024 });
  return `${stdout}\n${stderr}`;
};
const started = [];

after(async () => {
  for (const id of started) await engine('rm', '--force', '--time', '0', id).catch(() => undefined);
});

/** Starts the image detached with both ports on free loopback ports of this machine. */
async function startContainer(env = {}) {
  const envArgs = Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
  const id = await engine(
    'run',
    '--detach',
    '--pull=never',
    '--label',
    LABEL,
    '--publish',
    '127.0.0.1::4400',
    '--publish',
    '127.0.0.1::2525',
    ...envArgs,
    IMAGE,
  );
  started.push(id);
  const portOf = async (port) => {
    const published = await engine('port', id, `${port}/tcp`);
    // Only loopback: nothing of the container is reachable from the network.
    assert.match(published, /^127\.0\.0\.1:\d+$/, `port ${port} is published as ${published}`);
    return Number(published.split(':')[1]);
  };
  return { id, http: `http://127.0.0.1:${await portOf(4400)}`, smtpPort: await portOf(2525) };
}

/** Waits until /livez answers 200 (at most 60 s); resolves with the milliseconds it took from `since`. */
async function untilLive(http, id, since) {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const status = await fetch(`${http}/livez`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return Date.now() - since;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`/livez did not answer 200 within 60 s; the container's log:\n${await logsOf(id)}`);
}

describe(`the image ${IMAGE}`, () => {
  it('is at most 350 MB, runs as a non-root user, exposes 4400 and 2525, has /data as its volume and a health check', async () => {
    const config = JSON.parse(await engine('image', 'inspect', IMAGE))[0];
    console.log(`image: ${IMAGE} is ${(config.Size / 1e6).toFixed(1)} MB`);
    assert.ok(config.Size <= MAX_IMAGE_BYTES, `the image is ${config.Size} bytes, over 350 MB`);
    assert.equal(config.Config.User, 'node');
    assert.deepEqual(Object.keys(config.Config.ExposedPorts).sort(), ['2525/tcp', '4400/tcp']);
    assert.deepEqual(Object.keys(config.Config.Volumes), ['/data']);
    // Docker's inspect has it in Config, podman's beside it.
    assert.deepEqual((config.Config.Healthcheck ?? config.Healthcheck)?.Test, ['CMD', 'node', '/app/healthcheck.mjs']);
  });

  it('serves: /livez without a key, SMTP captured and read back through /v1 and the Mailpit API, the web UI; stops on SIGTERM with exit 0', async () => {
    const since = Date.now();
    const box = await startContainer({ MAILYARD_API_KEY: API_KEY, MAILYARD_CONTROL_KEY: CONTROL_KEY });
    const sinceRun = await untilLive(box.http, box.id, since);
    // From the container's start (its process begun) to /livez answering, without the engine's own time.
    const startedAt = Date.parse(JSON.parse(await engine('inspect', box.id))[0].State.StartedAt);
    console.log(`image: live ${since + sinceRun - startedAt} ms after the container started (${sinceRun} ms after \`${ENGINE} run\` began)`);

    // Process 1 runs as the image's user, not root.
    assert.equal(await engine('exec', box.id, 'awk', '/^Uid:/ { print $2 }', '/proc/1/status'), '1000');

    // The probes answer without a key; the control API does not (inside, Mailyard listens beyond loopback).
    assert.deepEqual(await (await fetch(`${box.http}/livez`)).json(), { status: 'ok' });
    assert.deepEqual(await (await fetch(`${box.http}/readyz`)).json(), { status: 'ready' });
    assert.equal((await fetch(`${box.http}/emulator/health`)).status, 401);
    assert.equal((await fetch(`${box.http}/v1/email/logs`)).status, 401);
    assert.equal(await engine('healthcheck', 'run', box.id).then(() => 'healthy'), 'healthy');

    // Mail through SMTP, as any client's default settings send it.
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: box.smtpPort, secure: false });
    const subject = `Welcome ${Date.now()}`;
    await transport.sendMail({ from: 'app@example.com', to: 'ann@example.com', subject, text: 'Hello from the container test' });
    transport.close();

    // Read back through the service API with the API key...
    const logs = await (await fetch(`${box.http}/v1/email/logs?email=ann@example.com`, { headers: { 'x-api-key': API_KEY } })).json();
    assert.equal(logs.success, true);
    assert.deepEqual(
      logs.emailLogs.map((e) => [e.recipientAddress, e.fromAddress, e.subject]),
      [['ann@example.com', 'app@example.com', subject]],
    );
    // ...and through the Mailpit API with the control key.
    const mailpit = await fetch(`${box.http}/api/v1/messages`, { headers: { authorization: `Bearer ${CONTROL_KEY}` } });
    assert.equal(mailpit.status, 200);
    const summary = await mailpit.json();
    assert.deepEqual(
      summary.messages.map((m) => [m.To.map((t) => t.Address), m.Subject]),
      [[['ann@example.com'], subject]],
    );
    assert.equal((await fetch(`${box.http}/api/v1/messages`)).status, 401);

    // The web UI's page (its data needs the control key: it shows a login).
    const page = await fetch(`${box.http}/`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="root">/);

    // What it printed names URLs that work from here when the ports are published as they are inside.
    const log = await logsOf(box.id);
    assert.match(log, /^HTTP: {5}http:\/\/localhost:4400 /m);
    assert.match(log, /^Data: {5}\/data\/mailyard$/m);

    // SIGTERM (`stop` waits 10 s, then kills): a clean stop, exit status 0.
    const stopping = Date.now();
    await engine('stop', '--time', '10', box.id);
    const stopMs = Date.now() - stopping;
    const state = JSON.parse(await engine('inspect', box.id))[0].State;
    const stopLog = await logsOf(box.id);
    const logged = (msg) => JSON.parse(stopLog.split('\n').find((line) => line.includes(`"msg":"${msg}"`)) ?? '{}').time;
    console.log(`image: \`${ENGINE} stop\` took ${stopMs} ms; the emulator's stop, ${logged('mailyard stopped') - logged('mailyard stopping')} ms`);
    assert.equal(state.ExitCode, 0);
    assert.ok(stopMs < 10_000, `the stop took ${stopMs} ms: it was killed, not stopped`);
    assert.match(stopLog, /^Stopping \(SIGTERM\)\.\.\.$/m);
    assert.match(stopLog, /^Stopped\.$/m);
  });

  it('keeps nothing with MAILYARD_MEMORY=true (the /data volume is the default store)', async () => {
    const box = await startContainer({ MAILYARD_MEMORY: 'true', MAILYARD_CONTROL_KEY: CONTROL_KEY });
    await untilLive(box.http, box.id, Date.now());
    assert.match(await logsOf(box.id), /^Data: {5}in memory \(--memory\): nothing is kept after exit$/m);
  });
});
