import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioRun } from '../../src-shared/scenario/report';
import { rawRequest, startEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * `/livez` and `/readyz` are what a container's health check, an orchestrator and a CI job's wait
 * ask: they answer without a key, whatever the Host, also beyond loopback (in a container Mailyard
 * listens on 0.0.0.0), and say a status word only. `/emulator/health` keeps the control API's rules.
 */

const HOSTS = ['localhost', '127.0.0.1', '0.0.0.0', 'mailyard:4400', '192.168.1.20'];

describe('the probes beyond loopback (--host 0.0.0.0, a control key required)', () => {
  let emu: TestEmulator;
  let base: string;

  beforeAll(async () => {
    emu = await startEmulator({ host: '0.0.0.0' });
    base = `http://127.0.0.1:${emu.handle.ports.http}`;
  });
  afterAll(() => emu.cleanup());

  it.each(HOSTS)('GET /livez and /readyz answer 200 without a key for Host %s, with a status word and nothing else', async (host) => {
    const live = await rawRequest(base, 'GET', '/livez', { host });
    expect(live.status).toBe(200);
    expect(live.json).toEqual({ status: 'ok' });
    expect(live.headers['cache-control']).toBe('no-store');
    const ready = await rawRequest(base, 'GET', '/readyz', { host });
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready' });
  });

  it('HEAD answers as GET does (probes that send HEAD)', async () => {
    expect((await rawRequest(base, 'HEAD', '/livez', {})).status).toBe(200);
    expect((await rawRequest(base, 'HEAD', '/readyz', {})).status).toBe(200);
  });

  it('/emulator/health still needs the control key', async () => {
    expect((await rawRequest(base, 'GET', '/emulator/health', {})).status).toBe(401);
    const health = await rawRequest(base, 'GET', '/emulator/health', { authorization: `Bearer ${emu.handle.config.controlKey}` });
    expect(health.status).toBe(200);
  });

  it('the URLs it reports name localhost, which reaches it, not the wildcard address', async () => {
    expect(emu.handle.urls.http).toBe(`http://localhost:${emu.handle.ports.http}`);
    expect(emu.handle.urls.smtp).toBe(`smtp://localhost:${emu.handle.ports.smtp}`);
    const health = await rawRequest(base, 'GET', '/emulator/health', { authorization: `Bearer ${emu.handle.config.controlKey}` });
    expect(health.json.data.urls).toEqual({ http: emu.handle.urls.http, smtp: emu.handle.urls.smtp });
    const live = await fetch(`${emu.handle.urls.http}/livez`);
    expect(live.status).toBe(200);
  });
});

describe('/readyz while a stop is under way', () => {
  let folder: string;
  let emu: TestEmulator;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'mailyard-probes-'));
    emu = await startEmulator({ scenarioDirs: [folder] });
  });
  afterAll(async () => {
    await emu.cleanup();
    await rm(folder, { recursive: true, force: true });
  });

  it('answers 503 "stopping" from the moment the stop begins while the listener still answers (here: a scenario app slow to stop); /livez stays 200', async () => {
    // The app ignores SIGTERM (`exec`: no shell between, which would end at once): the stop waits up to
    // 5 s for it (then SIGKILL) before it closes the listener.
    const app = "process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000)";
    await writeFile(
      join(folder, 'slow-stop.yaml'),
      `version: 1\nname: slow stop\nclock: { speed: 1 }\nduration: 10m\napp:\n  command: ${JSON.stringify(`exec node -e ${JSON.stringify(app)}`)}\n`,
    );
    const started = await emu.request('POST', '/emulator/scenarios/runs', { body: { path: join(folder, 'slow-stop.yaml') } });
    expect(started.status, started.text).toBe(202);
    const id = (started.json.data as ScenarioRun).id;
    for (let status = ''; status !== 'running'; ) {
      const run = await emu.request('GET', `/emulator/scenarios/runs/${id}`);
      status = (run.json.data as ScenarioRun).status;
      expect(['pending', 'starting', 'running']).toContain(status);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await emu.request('GET', '/readyz')).json).toEqual({ status: 'ready' });

    const stopped = emu.handle.close();
    const ready = await emu.request('GET', '/readyz', { headers: { connection: 'close' } });
    expect(ready.status).toBe(503);
    expect(ready.json).toEqual({ status: 'stopping' });
    expect((await emu.request('GET', '/livez', { headers: { connection: 'close' } })).status).toBe(200);
    await stopped;
  });
});
