import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioReport, ScenarioRun } from '../../src-shared/scenario/report';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { reportOf, stopRunsUnderWay } from '../helpers/scenario-runs';

const SHOP_APP = join(__dirname, '../../examples/shop/src/scenario-app.js');

let emu: TestEmulator;
let receiver: Receiver;
/** The scenarios folder the emulator allows: a scenario that starts an app runs from a file there. */
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mailyard-scenarios-'));
  emu = await startEmulator({ scenarioDirs: [folder] });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await emu.cleanup();
  await rm(folder, { recursive: true, force: true });
});
afterEach(() => stopRunsUnderWay(emu));

const finished = (id: string, timeoutMs?: number) => reportOf(emu, id, timeoutMs);

async function startRun(source: string) {
  const res = await emu.request('POST', '/emulator/scenarios/runs', { body: { source, file: 'test.yaml' } });
  expect(res.status, res.text).toBe(202);
  return res.json.data as ScenarioRun;
}

/** A scenario that starts an app: written to the scenarios folder and run as its file. */
async function startFileRun(name: string, source: string) {
  await writeFile(join(folder, name), source);
  const res = await emu.request('POST', '/emulator/scenarios/runs', { body: { path: join(folder, name) } });
  expect(res.status, res.text).toBe(202);
  return res.json.data as ScenarioRun;
}

describe('scenario runs (real emulator, real receiver)', () => {
  it('a small traffic scenario runs to a passing report: events delivered and acknowledged, the outcomes by pattern', async () => {
    const run = await startRun(`version: 1
name: small traffic
clock: { speed: 100 }
duration: 1h
webhook: { url: ${receiver.url} }
traffic: { count: 6, rate: 10/s, to: "user{n}@example.test" }
outcomes:
  - match: { pattern: "user1@example.test" }
    fate: hard_bounce
  - match: { pattern: "user2@*" }
    fate: spam
expect:
  receiver: { acknowledgedAll: true, noGiveUps: true, p95Ms: 5000 }
  app: { maxSendsPerRecipient: 1 }
`);
    expect(run.status).toMatch(/starting|running/);
    const report = await finished(run.id);
    expect(report.run.status, JSON.stringify(report.run)).toBe('passed');
    expect(report.verdict).toBe('pass');
    expect(report.totals.sends).toBe(6);
    expect(report.totals.recipients).toBe(6);
    // 4 deliveries, 1 hard bounce, 1 delivery + spam: 7 events, a webhook delivery each, each acknowledged at its first attempt.
    expect(report.totals).toMatchObject({ events: 7, deliveries: 7, attempts: 7, acknowledged: 7 });
    const bodies = receiver.requests.map((r) => JSON.parse(r.body) as { event: string; recipient: { email: string }; bounce_type?: string });
    expect(bodies.find((b) => b.recipient.email === 'user1@example.test')).toMatchObject({ event: 'bounce', bounce_type: 'hard' });
    expect(
      bodies
        .filter((b) => b.recipient.email === 'user2@example.test')
        .map((b) => b.event)
        .sort(),
    ).toEqual(['delivery', 'spam']);
    expect(report.expectations.map((e) => [e.id, e.passed])).toEqual([
      ['acknowledgedAll', true],
      ['p95Ms', true],
      ['noGiveUps', true],
      ['maxSendsPerRecipient', true],
    ]);
    expect(report.series.eventsByKind.reduce((n, r) => n + r.count, 0)).toBe(7);
    expect(report.series.attempts.length).toBe(7);
    // The run's own account: the default account's rules and clock are as they were.
    expect(report.run.accountId).not.toBe(emu.handle.defaultAccount.id);
    expect((await emu.request('GET', '/emulator/rules')).json.data.rules).toEqual([]);
    expect((await emu.request('GET', '/emulator/clock')).json.data.speed).toBe(1);
    const html = await emu.request('GET', `/emulator/scenarios/runs/${run.id}/report.html`);
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toMatch(/text\/html/);
  });

  it('an app that keeps sending after a hard bounce fails, the violation naming the address and the copy', async () => {
    const run = await startFileRun(
      'keeps-sending.yaml',
      `version: 1
name: keeps sending
clock: { speed: 60 }
duration: 10m
app:
  command: node ${JSON.stringify(SHOP_APP)}
  env: { SHOP_RECIPIENTS: "gone@example.test,ann@example.test", SHOP_ROUNDS: "3", SHOP_ROUND_MS: "700", SHOP_IGNORE_SUPPRESSIONS: "1" }
outcomes:
  - match: { pattern: "gone@*" }
    fate: hard_bounce
expect:
  app: { noSendAfterHardBounce: true }
`,
    );
    const report = await finished(run.id);
    expect(report.run.status).toBe('failed');
    expect(report.verdict).toBe('fail');
    const e = report.expectations.find((x) => x.id === 'noSendAfterHardBounce')!;
    expect(e.passed).toBe(false);
    expect(e.violations.length).toBeGreaterThanOrEqual(1);
    expect(e.violations[0]).toMatchObject({ expectation: 'noSendAfterHardBounce', recipient: 'gone@example.test' });
    expect(e.violations[0]!.message).toMatch(/sent to gone@example.test after its hard bounce reached the app/);
    expect((await emu.request('GET', `/emulator/messages/${e.violations[0]!.messageId}`)).status).toBe(200);
    expect(e.violations[0]!.deliveryId).toBeTruthy();
  });

  it('the same app, heeding the bounces, passes', async () => {
    const run = await startFileRun(
      'suppresses.yaml',
      `version: 1
name: suppresses
clock: { speed: 60 }
duration: 10m
app:
  command: node ${JSON.stringify(SHOP_APP)}
  env: { SHOP_RECIPIENTS: "gone@example.test,ann@example.test", SHOP_ROUNDS: "3", SHOP_ROUND_MS: "700" }
outcomes:
  - match: { pattern: "gone@*" }
    fate: hard_bounce
expect:
  receiver: { acknowledgedAll: true }
  app: { noSendAfterHardBounce: true }
`,
    );
    const report = await finished(run.id);
    expect(report.run.status, JSON.stringify(report.run)).toBe('passed');
    expect(report.totals.sends).toBe(4);
    expect(report.expectations.every((x) => x.passed)).toBe(true);
  });

  it('retries still scheduled when the duration ends are made before the verdict: the receiver, down until then, acknowledges all', async () => {
    const before = receiver.requests.length;
    // The outage lasts the whole run: each delivery fails at 5 s and 5 min, and its next try (30 min) is after the duration.
    const run = await startRun(`version: 1
name: outage to the end
clock: { speed: 100 }
duration: 10m
webhook: { url: ${receiver.url} }
webhookDelivery: { outages: [{ at: 0s, for: 10m }] }
traffic: { count: 3, rate: 10/s, to: "late{n}@example.test" }
expect:
  receiver: { acknowledgedAll: true, noGiveUps: true }
`);
    const report = await finished(run.id, 60_000);
    expect(report.run.status, JSON.stringify(report.expectations)).toBe('passed');
    expect(report.totals.events).toBe(3);
    expect(report.totals.acknowledged).toBe(3);
    expect(report.expectations.map((e) => [e.id, e.passed, e.observed])).toEqual([
      ['acknowledgedAll', true, '3 of 3 webhook deliveries acknowledged'],
      ['noGiveUps', true, expect.any(String)],
    ]);
    // Reached the receiver only after the duration: the run moved the clock to the retries.
    const late = receiver.requests.slice(before).map((r) => JSON.parse(r.body) as { recipient: { email: string } });
    expect(late.map((b) => b.recipient.email).sort()).toEqual(['late1@example.test', 'late2@example.test', 'late3@example.test']);
    expect(Date.parse(report.run.finishedAt!) - Date.parse(report.run.startedAt)).toBeGreaterThan(10 * 60_000);
  });

  it('traffic only, no app, no webhook: inconclusive, never a pass, naming each expectation that judged nothing', async () => {
    const run = await startRun(`version: 1
name: nothing to judge
clock: { speed: 100 }
traffic: { count: 6, rate: 20/s }
outcomes:
  - match: { pattern: "user1@*" }
    fate: hard_bounce
expect:
  receiver: { acknowledgedAll: true }
  app: { noSendAfterHardBounce: true }
`);
    const report = await finished(run.id);
    expect(report.verdict).toBe('inconclusive');
    expect(report.run.status).toBe('inconclusive');
    expect(report.expectations.map((e) => [e.id, e.result, e.passed])).toEqual([
      ['acknowledgedAll', 'not-judged', false],
      ['noSendAfterHardBounce', 'not-judged', false],
    ]);
    // The events happened (a bounce and five deliveries); no webhook took them.
    expect(report.totals).toMatchObject({ sends: 6, events: 6, deliveries: 0, attempts: 0 });
    const html = (await emu.request('GET', `/emulator/scenarios/runs/${run.id}/report.html`)).text;
    expect(html).toContain('<span class="badge">INCONCLUSIVE</span>');
    expect(html).toMatch(/Inconclusive: 2 expectations judged nothing: acknowledgedAll \(no event went to a webhook/);
  });

  it('deliveries and their attempts are counted apart: 6 deliveries each answered 500 twice are 6 deliveries and 18 attempts', async () => {
    const tries = new Map<string, number>();
    receiver.answer = (req) => {
      const id = String(req.headers['webhook-id']);
      tries.set(id, (tries.get(id) ?? 0) + 1);
      return tries.get(id)! <= 2 ? 500 : 200;
    };
    try {
      const run = await startRun(`version: 1
name: retried
clock: { speed: 100 }
duration: 1m
webhook: { url: ${receiver.url} }
traffic: { count: 6, rate: 20/s }
expect:
  receiver: { acknowledgedAll: true, noGiveUps: true }
`);
      const report = await finished(run.id, 60_000);
      expect(report.totals).toMatchObject({ sends: 6, events: 6, deliveries: 6, attempts: 18, retries: 12, acknowledged: 6 });
      expect(report.run.progress).toMatchObject({ events: 6, deliveries: 6, attempts: 18, acknowledged: 6, failedAttempts: 12 });
      expect(report.verdict).toBe('pass');
    } finally {
      receiver.answer = undefined;
    }
  });

  it('a rehearsal replays: two runs of one file with its default seed fire the same events to the same recipients, and the seed is in the report', async () => {
    const source = `version: 1
name: rehearsal
clock: { speed: 100 }
duration: 1h
webhook: { url: ${receiver.url} }
traffic: { count: 40, rate: 20/s, to: "reader{n}@example.test" }
outcomes:
  - match: { share: 0.1 }
    fate: hard_bounce
  - match: { share: 0.1 }
    fate: soft_bounce
    retries: 1
    after: 30s
  - match: { share: 0.8 }
    fate: delivered
    opens: { share: 0.5, after: 10s }
    clicks: { share: 0.3, after: 20s }
webhookDelivery:
  duplicates: 0.3
  reorder: { share: 0.5, window: 30s }
  delay: { distribution: uniform, min: 0s, max: 5s }
expect:
  receiver: { acknowledgedAll: true }
`;
    const runs: ScenarioReport[] = [];
    const received: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const before = receiver.requests.length;
      runs.push(await finished((await startRun(source)).id, 60_000));
      // What the receiver got, by recipient and kind (the copies' ids and times differ from run to run).
      received.push(
        receiver.requests
          .slice(before)
          .map((r) => JSON.parse(r.body) as { event: string; recipient: { email: string } })
          .map((b) => `${b.recipient.email} ${b.event}`)
          .sort(),
      );
    }
    const [a, b] = runs as [ScenarioReport, ScenarioReport];
    const byKind = (r: ScenarioReport) => {
      const kinds: Record<string, number> = {};
      for (const row of r.series.eventsByKind) kinds[row.kind] = (kinds[row.kind] ?? 0) + row.count;
      return kinds;
    };
    expect(a.verdict, JSON.stringify(a.expectations)).toBe('pass');
    expect(byKind(a).open).toBeGreaterThan(0);
    expect(byKind(a).bounce).toBeGreaterThan(0);
    expect(a.totals.duplicates).toBeGreaterThan(0);
    expect(byKind(b)).toEqual(byKind(a));
    // (How many events overtook a held-back one depends on when the clock fired each: not compared.)
    const { events, deliveries, duplicates } = a.totals;
    expect(b.totals).toMatchObject({ events, deliveries, duplicates });
    expect(received[1]).toEqual(received[0]);
    expect(a.scenario.seed).toBe(1);
    expect(b.scenario.seed).toBe(1);
  });

  it('stop ends a long run early with status stopped', async () => {
    const run = await startRun(`version: 1\nname: long\nduration: 2h\ntraffic: { count: 1000, rate: 1/s }\n`);
    await new Promise((r) => setTimeout(r, 500));
    const stopped = await emu.request('POST', `/emulator/scenarios/runs/${run.id}/stop`);
    expect(stopped.status).toBe(200);
    const report = await finished(run.id, 5000);
    expect(report.run.status).toBe('stopped');
    expect(report.totals.sends).toBeLessThan(1000);
  });

  it('routes: 400 naming line and field, 404 for an unknown run or an unfinished report, 409 while one runs', async () => {
    const bad = await emu.request('POST', '/emulator/scenarios/validate', { body: { source: 'version: 1\nname: x\ntraffic:\n  count: -1\n' } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual([{ path: 'traffic.count', line: 4, column: 10, message: 'must be at least 1' }]);
    expect(bad.json.error).toMatch(/traffic.count: must be at least 1 \(line 4, column 10\)/);
    const good = await emu.request('POST', '/emulator/scenarios/validate', { body: { source: '{"version":1,"name":"j","traffic":{"count":1}}' } });
    expect(good.status).toBe(200);
    expect(good.json.data.scenario.traffic.rate).toBe('10/s');
    expect((await emu.request('POST', '/emulator/scenarios/runs', { body: { source: 'version: 3' } })).status).toBe(400);
    expect((await emu.request('POST', '/emulator/scenarios/runs', { body: {} })).status).toBe(400);
    expect((await emu.request('GET', '/emulator/scenarios/runs/nope')).status).toBe(404);
    expect((await emu.request('GET', '/emulator/scenarios/runs/nope/report.html')).status).toBe(404);
    const run = await startRun(`version: 1\nname: busy\nduration: 2h\ntraffic: { count: 1000, rate: 1/s }\n`);
    expect((await emu.request('GET', `/emulator/scenarios/runs/${run.id}/report`)).status).toBe(404);
    const second = await emu.request('POST', '/emulator/scenarios/runs', { body: { source: `version: 1\nname: two\ntraffic: { count: 1 }\n` } });
    expect(second.status).toBe(409);
    expect(second.json.error).toMatch(/under way/);
    const list = (await emu.request('GET', '/emulator/scenarios/runs')).json.data as ScenarioRun[];
    expect(list[0]!.id).toBe(run.id);
  });
});

describe('a run on an existing account', () => {
  const events = Object.fromEntries(['delivery', 'bounce', 'open'].map((k) => [k, true]));
  const webhookOf = async (key: string) => (await emu.request('GET', '/v1/webhook', { apiKey: key })).json;
  const accountsNamed = async (prefix: string) =>
    ((await emu.request('GET', '/emulator/accounts')).json.data as Array<{ id: string; name: string }>).filter((a) => a.name.startsWith(prefix));

  it('sends as the account named by account_id, its own webhook getting the events; no account is made for the run', async () => {
    const created = await emu.request('POST', '/emulator/accounts', { body: { name: 'Acme Shop (production)' } });
    expect(created.status, created.text).toBe(200);
    const acme = created.json.data as { id: string; api_key: string };
    const registered = await emu.request('POST', '/v1/webhook/register', {
      apiKey: acme.api_key,
      body: { webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events } },
    });
    expect(registered.status, registered.text).toBeLessThan(300);
    const before = receiver.requests.length;
    const runsBefore = (await accountsNamed('scenario: demo on acme')).length;
    const res = await emu.request('POST', '/emulator/scenarios/runs', {
      body: {
        source:
          'version: 1\nname: demo on acme\nclock: { speed: 100 }\ntraffic: { count: 3, rate: 20/s, to: "demo{n}@example.test" }\nexpect: { receiver: { acknowledgedAll: true } }\n',
        account_id: acme.id,
      },
    });
    expect(res.status, res.text).toBe(202);
    expect((res.json.data as ScenarioRun).accountId).toBe(acme.id);
    const report = await finished((res.json.data as ScenarioRun).id);
    expect(report.run.accountId).toBe(acme.id);
    expect(report.verdict, JSON.stringify(report.expectations)).toBe('pass');
    // Its mail is the account's: listed under it, and its events went to the account's webhook.
    const count = await emu.request('GET', `/emulator/messages/count?account_id=${acme.id}`);
    expect(count.json.data.count).toBe(3);
    const got = receiver.requests.slice(before).map((r) => (JSON.parse(r.body) as { recipient: { email: string } }).recipient.email);
    expect(got.sort()).toEqual(['demo1@example.test', 'demo2@example.test', 'demo3@example.test']);
    expect(await accountsNamed('scenario: demo on acme')).toHaveLength(runsBefore);
    // The account's webhook is as it was.
    expect((await webhookOf(acme.api_key)).data).toEqual([expect.objectContaining({ webhook_url: receiver.url })]);
  });

  it('refuses an unknown account (404 naming account_id) and a scenario webhook that would replace the account’s own (409)', async () => {
    const unknown = await emu.request('POST', '/emulator/scenarios/runs', {
      body: { source: 'version: 1\nname: x\ntraffic: { count: 1 }\n', account_id: 'no-such-account' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatch(/no account no-such-account to run the scenario on/);
    const acme = (await emu.request('POST', '/emulator/accounts', { body: { name: 'With a webhook' } })).json.data as { id: string; api_key: string };
    await emu.request('POST', '/v1/webhook/register', {
      apiKey: acme.api_key,
      body: { webhook_url: receiver.url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events } },
    });
    const taken = await emu.request('POST', '/emulator/scenarios/runs', {
      body: { source: `version: 1\nname: x\nwebhook: { url: ${receiver.url}/other }\ntraffic: { count: 1 }\n`, account_id: acme.id },
    });
    expect(taken.status).toBe(409);
    expect(taken.json.error).toMatch(/has an EMAIL_EVENT webhook .* remove `webhook` from the scenario/);
    expect((await emu.request('GET', '/emulator/scenarios/runs')).json.data.some((r: ScenarioRun) => r.accountId === acme.id)).toBe(false);
  });

  it("a scenario's webhook registered on an existing account is removed at the run's end, so the next run can register it again", async () => {
    const plain = (await emu.request('POST', '/emulator/accounts', { body: { name: 'No webhook yet' } })).json.data as { id: string; api_key: string };
    const source = `version: 1\nname: lends a webhook\nclock: { speed: 100 }\nwebhook: { url: ${receiver.url} }\ntraffic: { count: 2, rate: 20/s }\nexpect: { receiver: { acknowledgedAll: true } }\n`;
    for (let i = 0; i < 2; i++) {
      const res = await emu.request('POST', '/emulator/scenarios/runs', { body: { source, account_id: plain.id } });
      expect(res.status, res.text).toBe(202);
      const report = await finished((res.json.data as ScenarioRun).id);
      expect(report.verdict, JSON.stringify(report.expectations)).toBe('pass');
      expect((await webhookOf(plain.api_key)).data).toEqual([]);
    }
  });
});
