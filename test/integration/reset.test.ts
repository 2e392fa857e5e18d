import { describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src-shared/clients';
import { closedAfterEachTest } from '../helpers/deliveries';
import { rawRequest, startEmulator, type TestEmulator } from '../helpers/emulator';
import { type RelayTarget, startRelayTarget } from '../helpers/relay-target';

const CI_KEY = 'mly_ci_key_for_reset_tests_0001';

let emu: TestEmulator | undefined;
const { closers, receiver } = closedAfterEachTest(async () => {
  await emu?.cleanup();
  emu = undefined;
});

async function relayTarget(): Promise<RelayTarget> {
  const t = await startRelayTarget();
  closers.push(() => t.close());
  return t;
}

function send(service: ServiceClient, to = 'ann@example.org') {
  return service.sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email: to }],
    subject: 'Hi',
    content: [{ type: 'text/html', value: '<p>Hi</p>' }],
  } as never);
}

/** Everything the emulator holds, as counts the control and service APIs show. */
async function inventory(e: TestEmulator, service = e.service) {
  return {
    messages: (await e.control.listMessages()).data.messages.length,
    deliveries: (await e.control.listDeliveries()).data.deliveries.length,
    webhooks: (await service.listWebhooks()).data.length,
    domains: (await e.control.listEmulatorDomains()).data.length,
    mailers: (await e.control.listEmulatorMailers()).data.length,
    templates: (await service.listTemplates()).data.length,
    rules: (await e.control.getRules()).data.rules.length,
    logs: (await service.getEmailLogs()).emailLogs.length,
  };
}

describe('POST /emulator/reset', () => {
  it('wipes messages, deliveries, webhooks, domains, mailers, inbound routes, templates, rules, suppressions, scheduled events and the clock; keeps the default and --api-key accounts', async () => {
    // A data directory whose --api-key account is not the default one (a CI job's key on a kept directory).
    const first = await startEmulator();
    const ci = (await first.control.createAccount({ name: 'CI', api_key: CI_KEY })).data;
    await first.stop();
    emu = await startEmulator({ apiKey: CI_KEY, retrySchedule: 'none' }, {}, first.dataDir);
    closers.push(() => import('node:fs/promises').then((fs) => fs.rm(first.dataDir, { recursive: true, force: true })));
    const other = (await emu.control.createAccount({ name: 'Other' })).data;

    const hooks = await receiver();
    const smtpServer = await relayTarget();
    await emu.registerEmailWebhook(hooks.url);
    await emu.service.addDomain({ domain: 'mail.example.com' });
    await emu.service.configureInboundRouting({ domain: 'in.example', url: hooks.url, method: 'POST' });
    await emu.service.configureSMTP({
      name: 'Relay',
      email: 'relay@example.com',
      config_type: 'smtp',
      connection_type: 'basic',
      config: { host: '127.0.0.1', port: smtpServer.port, secure: 'None' },
    } as never);
    await emu.service.createTemplate({ name: 'T', subject: 'S', content: [{ type: 'text/html', value: '<p>x</p>' }] } as never);
    await emu.service.unsubscribeEmail({ email: 'gone@example.org' });
    // A rule that schedules an event an hour ahead: a scheduled event the reset must take away.
    await emu.control.setRules({ rules: [{ pattern: '*@later.example', events: [{ event: 'open', delay_ms: 3_600_000 }] }] } as never);
    await emu.control.setClock({ advance_ms: 86_400_000, speed: 10 });
    expect((await emu.control.getClock()).data.offset_ms).toBeGreaterThan(86_000_000);
    await send(emu.service);
    await send(emu.service, 'bob@later.example');
    await hooks.waitFor(1);

    const before = await inventory(emu);
    expect(before).toMatchObject({ messages: 2, webhooks: 1, domains: 1, mailers: 1, templates: 1, rules: 1, logs: 2 });
    expect(before.deliveries).toBeGreaterThan(0);

    const res = await emu.control.resetEmulator();
    expect(res.success).toBe(true);
    expect(res.message).toMatch(/reset/i);
    expect(res.data).toMatchObject({
      messages: 2,
      webhooks: 1,
      domains: 1,
      mailers: 1,
      inbound_domains: 1,
      templates: 1,
      simulation_rules: 1,
      suppressions: 1,
      accounts_removed: 1,
    });
    expect(res.data.deliveries).toBe(before.deliveries);
    expect(res.data.scheduled_events).toBeGreaterThanOrEqual(1);
    expect(res.data.accounts_kept).toEqual([emu.handle.defaultAccount.id, ci.id]);

    expect(await inventory(emu)).toEqual({ messages: 0, deliveries: 0, webhooks: 0, domains: 0, mailers: 0, templates: 0, rules: 0, logs: 0 });
    await expect(emu.service.getInboundDomain('in.example')).rejects.toMatchObject({ status: 404 });
    // The clock is back to wall time.
    const clock = (await emu.control.getClock()).data;
    expect(Math.abs(clock.offset_ms)).toBeLessThan(1_000);
    expect(clock.speed).toBe(1);
    expect(clock.next_due_at).toBeNull();

    // Accounts: the default and the --api-key one stay with their keys; the other is gone.
    const accounts = (await emu.control.listAccounts()).data;
    expect(accounts.map((a) => a.id)).toEqual([emu.handle.defaultAccount.id, ci.id]);
    expect((await emu.service.getEmailLogs()).success).toBe(true);
    expect((await new ServiceClient({ baseUrl: emu.url, apiKey: CI_KEY }).getEmailLogs()).success).toBe(true);
    const removed = new ServiceClient({ baseUrl: emu.url, apiKey: other.api_key });
    await expect(removed.getEmailLogs()).rejects.toMatchObject({ status: 401 });

    // The emulator goes on working: a suppressed address is no longer suppressed, a new webhook gets events.
    await emu.registerEmailWebhook(hooks.url);
    const seen = hooks.requests.length;
    await send(emu.service, 'gone@example.org');
    await hooks.waitFor(seen + 1);
    const logs = (await emu.service.getEmailLogs()).emailLogs;
    expect(logs).toHaveLength(1);
    expect(logs[0]!.status).not.toBe('failed');
  });

  it('sends nothing afterwards: a pending retry to a receiver is never delivered', async () => {
    emu = await startEmulator({ retrySchedule: [400, 400, 400] });
    const hooks = await receiver();
    hooks.status = 500;
    await emu.registerEmailWebhook(hooks.url);
    await send(emu.service);
    await hooks.waitFor(1);
    // Wait until the failed attempt is recorded and the delivery is pending its retry.
    await expect.poll(async () => (await emu!.control.listDeliveries()).data.deliveries.some((d) => d.status === 'pending'), { timeout: 5_000 }).toBe(true);
    const requestsBefore = hooks.requests.length;

    const res = await emu.control.resetEmulator();
    expect(res.data.deliveries).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hooks.requests.length).toBe(requestsBefore);
    expect((await emu.control.listDeliveries()).data.deliveries).toHaveLength(0);
  });

  it('waits for an attempt on the wire to end, then retries nothing', async () => {
    emu = await startEmulator({ retrySchedule: [200, 200], deliveryTimeoutMs: 1_000 });
    const hooks = await receiver();
    hooks.answer = () => 'hang';
    await emu.registerEmailWebhook(hooks.url);
    await send(emu.service);
    await hooks.waitFor(1);
    // The attempt ends at its 1 s time-out at the latest; a reset that never returned fails the test.
    const res = await emu.control.resetEmulator();
    expect(res.data.deliveries).toBeGreaterThan(0);
    const requestsAfter = hooks.requests.length;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(hooks.requests.length).toBe(requestsAfter);
    expect((await emu.control.listDeliveries()).data.deliveries).toHaveLength(0);
    expect(emu.handle.services.deliveryWorker.inFlightCount()).toBe(0);
  });

  it("puts a kept account's settings back: its payload format to the default, a rotated-out secret's grace ended (the clock going back does not revive it); its key and secret stay", async () => {
    emu = await startEmulator();
    const { control } = emu;
    const id = emu.handle.defaultAccount.id;
    const first = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    const second = `whsec_${Buffer.alloc(24, 2).toString('base64')}`;
    await control.setSigningSecret(id, { secret: first });
    await control.setSigningSecret(id, { secret: second, grace_period_ms: 60 * 60 * 1000 });
    await control.setPayloadFormat(id, { payload_format: 'mailer-events' });
    const account = async () => (await control.listAccounts()).data.find((a) => a.id === id)!;
    expect(await account()).toMatchObject({ payload_format: 'mailer-events', previous_signing_secret: first });
    // Two hours on: the grace is over. A reset takes the clock back to now, which was inside it.
    await control.setClock({ advance_ms: 2 * 60 * 60 * 1000 });
    expect((await account()).previous_signing_secret).toBeNull();

    await control.resetEmulator();
    expect(await account()).toMatchObject({
      api_key: emu.apiKey,
      signing_secret: second,
      previous_signing_secret: null,
      payload_format: 'spec',
    });
  });

  it('is refused (409, naming the run) while a scenario run is under way, and wipes nothing; once the run is stopped it goes ahead', async () => {
    emu = await startEmulator();
    const hooks = await receiver();
    await send(emu.service);
    const scenario = `version: 1\nname: Long\nduration: 1h\nwebhook: { url: ${hooks.url} }\ntraffic: { count: 100000, rate: 1/s, subject: Hi, html: <p>Hi</p>, to: "u{n}@example.test" }\n`;
    const run = (await emu.control.startScenarioRun({ source: scenario })).data;
    await expect.poll(async () => (await emu!.control.getScenarioRun(run.id)).data.accountId).not.toBe('');
    const refused = await emu.request('POST', '/emulator/reset');
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.error).toContain(run.id);
    expect((await emu.control.getScenarioRun(run.id)).data.status).toBe('running');
    expect((await emu.control.listMessages({ account_id: emu.handle.defaultAccount.id } as never)).data.messages.length).toBeGreaterThan(0);

    await emu.control.stopScenarioRun(run.id);
    await expect.poll(async () => (await emu!.control.getScenarioRun(run.id)).data.status, { timeout: 20_000 }).toBe('stopped');
    const done = await emu.request('POST', '/emulator/reset');
    expect(done.status, done.text).toBe(200);
    expect((await emu.control.listMessages()).data.messages).toHaveLength(0);
  });

  it('answers when called with curl -X POST (no body, no Content-Type)', async () => {
    emu = await startEmulator();
    await send(emu.service);
    const res = await rawRequest(emu.url, 'POST', '/emulator/reset', {});
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ success: true, data: { messages: 1 } });
  });
});

describe('a body where none belongs', () => {
  const json = { 'content-type': 'application/json' };

  it('is refused with 400, and nothing is done: DELETE /emulator/messages with null deletes nothing', async () => {
    emu = await startEmulator();
    await send(emu.service);
    for (const body of ['null', '[]', '{"all":true}', '"x"', '0', 'false']) {
      const res = await rawRequest(emu.url, 'DELETE', '/emulator/messages', json, body);
      expect(res.status, body).toBe(400);
      expect(res.json).toEqual({
        success: false,
        error: 'request body must be empty: DELETE /emulator/messages takes no body',
        details: 'One field has a problem: the body: must be empty',
        fields: { body: 'must be empty' },
      });
    }
    expect((await emu.control.listMessages()).data.messages).toHaveLength(1);
    const reset = await rawRequest(emu.url, 'POST', '/emulator/reset', json, '{"keep":"everything"}');
    expect(reset.status).toBe(400);
    expect(reset.json.error).toBe('request body must be empty: POST /emulator/reset takes no body');
    expect((await emu.control.listMessages()).data.messages).toHaveLength(1);
  });

  it('is refused on the service API too', async () => {
    emu = await startEmulator();
    await emu.service.addDomain({ domain: 'example.com' });
    const res = await emu.request('DELETE', '/v1/domain/example.com', { body: 'null' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      success: false,
      error: 'request body must be empty: DELETE /v1/domain/{domain} takes no body',
      details: 'One field has a problem: the body: must be empty',
      fields: { body: 'must be empty' },
    });
    expect((await emu.service.getDomain('example.com')).mailer_id).toBeDefined();
  });

  it('takes no body, an empty one, or {}', async () => {
    emu = await startEmulator();
    for (const [headers, body] of [
      [{}, undefined],
      [json, undefined],
      [json, ''],
      [json, '  '],
      [json, '{}'],
    ] as const) {
      await send(emu.service);
      const res = await rawRequest(emu.url, 'DELETE', '/emulator/messages', headers, body);
      expect(res.status, `${JSON.stringify(headers)} ${body}`).toBe(200);
      expect(res.json.data.deleted).toBe(1);
    }
  });

  it('the typed clients call bodyless operations without a body, and they work', async () => {
    emu = await startEmulator({ retrySchedule: 'none' });
    const sent: Array<{ call: string; body: unknown; type: string | null }> = [];
    const recording: typeof fetch = (input, init) => {
      const path = new URL(String(input)).pathname;
      sent.push({ call: `${init?.method ?? 'GET'} ${path}`, body: init?.body, type: new Headers(init?.headers).get('content-type') });
      return fetch(input, init);
    };
    const { ControlClient } = await import('../../src-shared/clients');
    const control = new ControlClient({ baseUrl: emu.url, fetch: recording });
    const service = new ServiceClient({ baseUrl: emu.url, apiKey: emu.apiKey, fetch: recording });

    const hooks = await receiver();
    await emu.registerEmailWebhook(hooks.url);
    await send(service);
    await hooks.waitFor(1);
    const delivery = (await control.listDeliveries()).data.deliveries[0]!;
    expect((await control.retryDelivery(delivery.id)).data.attempt).toBeDefined();
    await service.addDomain({ domain: 'example.com' });
    expect((await service.verifyDomain('example.com')).success).toBe(true);
    await service.deleteDomain('example.com');
    const account = emu.handle.defaultAccount.id;
    await control.setSigningSecret(account);
    await control.deleteSigningSecret(account);
    const one = (await control.listMessages()).data.messages[0]!;
    await control.deleteMessage(one.id);
    await send(service);
    expect((await control.deleteMessages()).data.deleted).toBe(1);
    await control.resetEmulator();

    // Every call of an operation without a body schema went out without one, still saying JSON.
    const bodyless = [
      `POST /emulator/deliveries/${delivery.id}/retry`,
      'PUT /v1/domain/verify/example.com',
      'DELETE /v1/domain/example.com',
      `DELETE /emulator/accounts/${account}/signing-secret`,
      `DELETE /emulator/messages/${one.id}`,
      'DELETE /emulator/messages',
      'POST /emulator/reset',
    ];
    for (const call of bodyless) {
      const s = sent.find((x) => x.call === call);
      expect(s, call).toMatchObject({ body: undefined, type: 'application/json' });
    }
    // An operation with a body schema still sends one ({} when the caller gives none).
    expect(sent.find((x) => x.call === `PUT /emulator/accounts/${account}/signing-secret`)).toMatchObject({ body: '{}', type: 'application/json' });
    // GETs send neither.
    expect(sent.filter((x) => x.call.startsWith('GET ')).every((x) => x.body === undefined && x.type === null)).toBe(true);
  });

  it('a bodyless mutating request needs no Content-Type; a page of another site is refused whatever it sends', async () => {
    emu = await startEmulator();
    const host = new URL(emu.url).host;
    expect((await rawRequest(emu.url, 'DELETE', '/emulator/messages', {})).status).toBe(200);
    expect((await rawRequest(emu.url, 'DELETE', '/emulator/messages', { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    const foreign = await rawRequest(emu.url, 'POST', '/emulator/reset', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(foreign.status).toBe(403);
    expect(foreign.json.error).toMatch(/^Forbidden: a request from another site \(https:\/\/evil\.example\)/);
    expect((await rawRequest(emu.url, 'POST', '/emulator/reset', { origin: 'null' })).status).toBe(403);
    expect((await rawRequest(emu.url, 'POST', '/emulator/reset', { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    // A form post (empty or not) and a body without a Content-Type stay refused.
    expect((await rawRequest(emu.url, 'POST', '/emulator/reset', { 'content-type': 'application/x-www-form-urlencoded' }, '')).status).toBe(415);
    expect((await rawRequest(emu.url, 'POST', '/emulator/clock', {}, '{"speed":2}')).status).toBe(415);
    expect((await rawRequest(emu.url, 'POST', '/emulator/clock', { 'transfer-encoding': 'chunked' })).status).toBe(415);
  });
});
