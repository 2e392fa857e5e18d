import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMailyard } from '../../src-main/testing/index';
import { DUPLICATES_RULE } from '../../src-shared/duplicates';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { eventFieldsOf } from '../../src-shared/payload-format';
import type { ReceiverCheckReport } from '../../src-shared/schemas/receiver-check';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Answer, type ReceivedRequest, type Receiver, startReceiver } from '../helpers/receiver';

const SECRET = 's3cret-value';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.cleanup());

const receivers: Receiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

/** What a receiver keys the events it has acted on by: the rule (`webhook-id`), a rule that loses events, or nothing. */
type Keying = 'webhook-id' | 'ref_id and event' | 'none';
const keyOf: Record<Keying, (req: ReceivedRequest) => string> = {
  'webhook-id': (req) => String(req.headers['webhook-id']),
  'ref_id and event': (req) => {
    const fields = eventFieldsOf(JSON.parse(req.body));
    return `${String(fields.ref_id)}:${String(fields.event)}`;
  },
  none: (req) => `${req.headers['webhook-id']} ${Math.random()}`,
};

/**
 * A receiver as a user writes one: it compares its secret header (`matches` decides), then acts on each
 * event once (by `keying`) and acknowledges a repeat without doing the work again. GET `/effects`
 * answers how many events it has acted on (`{"processed": N}`): `effectsUrl(r)`.
 */
async function receiver(
  matches: (value: string | undefined) => boolean,
  extra?: (req: ReceivedRequest) => Answer | undefined,
  keying: Keying = 'webhook-id',
): Promise<Receiver & { processed: () => number }> {
  const r = await startReceiver();
  receivers.push(r);
  const seen = new Set<string>();
  r.answer = (req) => {
    if (req.method === 'GET' && req.url === '/effects') return { status: 200, body: JSON.stringify({ processed: seen.size }) };
    if (!matches(req.headers['x-webhook-secret'] as string | undefined)) return { status: 401, body: '{"error":"bad secret"}' };
    const special = extra?.(req);
    if (special !== undefined) return special;
    const key = keyOf[keying](req);
    if (seen.has(key)) return { status: 200, body: '{"duplicate":true}' };
    seen.add(key);
    return 200;
  };
  return Object.assign(r, { processed: () => seen.size });
}

const effectsUrl = (r: Receiver) => r.url.replace(/\/hooks$/, '/effects');

/** Each check's id and status, and what it observed of processing. */
const verdicts = (report: ReceiverCheckReport) => Object.fromEntries(report.checks.map((c) => [c.id, [c.status, c.processed?.observed]]));

async function check(body: Parameters<TestEmulator['control']['checkReceiver']>[0]): Promise<ReceiverCheckReport> {
  return (await emu.control.checkReceiver(body)).data;
}

const byId = (report: ReceiverCheckReport) => Object.fromEntries(report.checks.map((c) => [c.id, c]));

describe('checking a receiver', () => {
  it('passes a receiver that checks its secret header and acts on each webhook-id once, with every kind and each check', async () => {
    const r = await receiver((v) => v === SECRET);
    const report = await check({ url: r.url, headers: { 'X-Webhook-Secret': SECRET }, effects_url: effectsUrl(r) });
    expect(report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.detail}`)).toEqual([
      expect.stringMatching(/^signature-bad: skipped/),
      expect.stringMatching(/^timestamp-stale: skipped/),
    ]);
    expect(report.effects_url).toBe(effectsUrl(r));
    expect(report.passed).toBe(true);
    expect(report.secret_header).toBe('X-Webhook-Secret');
    const checks = byId(report);
    for (const kind of EMAIL_EVENT_KINDS) {
      expect(checks[`event:${kind}`]?.status).toBe('passed');
      expect(JSON.parse(checks[`event:${kind}`]!.exchanges[0]!.request.body).event).toBe(kind);
    }
    // The duplicate is the same delivery sent again: same webhook-id, same body.
    const [a, b] = checks.duplicate!.exchanges;
    expect(b!.request.body).toBe(a!.request.body);
    expect(b!.request.headers['webhook-id']).toBe(a!.request.headers['webhook-id']);
    expect(b!.response?.body).toBe('{"duplicate":true}');
    // Out of order: the click first, then the delivery of the same ref_id.
    const [click, delivery] = checks['out-of-order']!.exchanges.map((e) => JSON.parse(e.request.body));
    expect([click.event, delivery.event]).toEqual(['click', 'delivery']);
    expect(click.ref_id).toBe(delivery.ref_id);
    expect(checks['secret-wrong']!.exchanges[0]!.response?.status).toBe(401);
    // One kind twice for one message: a soft bounce, then its hard bounce, under one ref_id and recipient.
    const bounces = checks['same-kind-twice']!.exchanges.map((e) => JSON.parse(e.request.body));
    expect(bounces.map((b) => b.bounce_type)).toEqual(['soft', 'hard']);
    expect(new Set(bounces.map((b) => `${b.ref_id} ${b.recipient.email}`)).size).toBe(1);
    // The checks that judge processing saw it: the duplicate acted on once, each pair of events twice.
    expect([checks.duplicate!.processed, checks['out-of-order']!.processed, checks['same-kind-twice']!.processed]).toEqual([
      { expected: 1, observed: 1 },
      { expected: 2, observed: 2 },
      { expected: 2, observed: 2 },
    ]);
    // What was graded is what the receiver got (and the effects URL read before and after those three).
    const posts = r.requests.filter((q) => q.method === 'POST');
    expect(posts.length).toBe(report.checks.reduce((n, c) => n + (c.id === 'quick-ack' ? 0 : c.exchanges.length), 0));
    expect(r.requests.length - posts.length).toBe(6);
  });

  it('with an effects URL, fails a receiver that acts on a duplicate twice, and one keyed on ref_id that drops an event', async () => {
    const twice = await receiver((v) => v === SECRET, undefined, 'none');
    const report = await check({ url: twice.url, headers: { 'X-Webhook-Secret': SECRET }, effects_url: effectsUrl(twice) });
    expect(report.passed).toBe(false);
    const duplicate = byId(report).duplicate!;
    expect(verdicts(report)).toMatchObject({ duplicate: ['failed', 2], 'out-of-order': ['passed', 2], 'same-kind-twice': ['passed', 2] });
    expect(duplicate.detail).toMatch(
      /^processed went from \d+ to \d+ \(\+2; a receiver that acts on the event once makes \+1\): it acted on an event more than once\. /,
    );
    expect(duplicate.detail).toContain(DUPLICATES_RULE);
    // Both were answered 2xx: what the answers alone cannot tell.
    expect(duplicate.exchanges.map((e) => e.response?.status)).toEqual([200, 200]);

    const byRef = await receiver((v) => v === SECRET, undefined, 'ref_id and event');
    const keyed = await check({ url: byRef.url, headers: { 'X-Webhook-Secret': SECRET }, effects_url: effectsUrl(byRef) });
    expect(verdicts(keyed)).toMatchObject({ duplicate: ['passed', 1], 'out-of-order': ['passed', 2], 'same-kind-twice': ['failed', 1] });
    expect(byId(keyed)['same-kind-twice']!.detail).toMatch(
      /\(\+1; a receiver that acts on each of the 2 events makes \+2\): it left out an event it had acknowledged/,
    );
  });

  it('without an effects URL, grades the answers only and says processing was not observed', async () => {
    const twice = await receiver(() => true, undefined, 'none');
    const report = await check({ url: twice.url, events: ['delivery', 'click', 'bounce'] });
    const duplicate = byId(report).duplicate!;
    expect(report.effects_url).toBeNull();
    // The answers were 2xx: that is what passed, and the check says it saw nothing of processing.
    expect(duplicate.processed).toEqual({ expected: 1, observed: null });
    expect(duplicate.detail).toBe(
      'Only the answers were graded: whether the receiver acts on the event once was not observed (give an effects URL, a GET it answers with {"processed": N}).',
    );
    expect(twice.processed()).toBeGreaterThan(report.checks.filter((c) => c.id.startsWith('event:')).length + 2);
  });

  it('fails the checks that judge processing when the effects URL cannot be read, naming what it answered', async () => {
    const r = await receiver(() => true);
    const report = await check({ url: r.url, events: ['delivery', 'click'], effects_url: r.url.replace(/\/hooks$/, '/missing') });
    expect(verdicts(report)).toMatchObject({ duplicate: ['failed', null], 'event:delivery': ['passed', undefined] });
    expect(byId(report).duplicate!.detail).toMatch(
      /^could not observe processing: the effects URL \(GET http:\/\/127\.0\.0\.1:\d+\/missing\) answered 200 \{"ok":true\}, not \{"processed": N\}/,
    );
  });

  it('fails a receiver that accepts a wrong secret, naming that check with its request and answer', async () => {
    // It refuses a request without the header, but never compares the value.
    const r = await receiver((v) => v !== undefined);
    const report = await check({ url: r.url, headers: { 'X-Webhook-Secret': SECRET } });
    expect(report.passed).toBe(false);
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toEqual(['secret-wrong']);
    expect(failed[0]!.detail).toMatch(/wrong X-Webhook-Secret: POST http:\/\/127\.0\.0\.1:\d+\/hooks answered 200 .* \(expected 401 or 403\)/);
    const sent = failed[0]!.exchanges[0]!.request.headers['x-webhook-secret'];
    expect(sent).toBeDefined();
    expect(sent).not.toBe(SECRET);
  });

  it('fails the quick-ack check when a receiver answers an event later than the bound', async () => {
    const r = await receiver(
      (v) => v === SECRET,
      (req) => (eventFieldsOf(JSON.parse(req.body)).event === 'open' ? { status: 200, delayMs: 600 } : undefined),
    );
    // The slow answer is 600 ms against a 150 ms bound: late under any load, since load only adds to it.
    const report = await check({ url: r.url, headers: { 'X-Webhook-Secret': SECRET }, events: ['delivery', 'open', 'click'], ack_within_ms: 150 });
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toEqual(['quick-ack']);
    expect(failed[0]!.detail).toMatch(/^open event: POST .* answered 200 .* in \d+ ms \(over 150 ms; 1 of 3 answers\)$/);
    // Its evidence is every answer it graded.
    expect(failed[0]!.exchanges.map((e) => JSON.parse(e.request.body).event)).toEqual(['delivery', 'open', 'click']);
    expect(byId(report)['event:open']!.status).toBe('passed');
  });

  it('with a signing secret, passes a receiver that verifies Standard Webhooks signatures and fails one that does not', async () => {
    const signing = `whsec_${Buffer.from('receiver-check-signing-key-32-by').toString('base64')}`;
    const verifier = new Webhook(signing);
    const verifying = await receiver(
      () => true,
      (req) => {
        try {
          verifier.verify(req.body, req.headers as Record<string, string>);
          return undefined;
        } catch {
          return { status: 400, body: '{"error":"bad signature"}' };
        }
      },
    );
    const passing = await check({ url: verifying.url, method: 'PUT', signing_secret: signing, events: ['delivery', 'click'] });
    const checks = byId(passing);
    expect(checks['signature-bad']!.status).toBe('passed');
    expect(checks['timestamp-stale']!.status).toBe('passed');
    expect(checks['event:delivery']!.status).toBe('passed');
    expect(verifying.requests.every((q) => q.method === 'PUT')).toBe(true);
    // No secret header configured: those checks are skipped, said so, and do not fail the run.
    expect(checks['secret-wrong']!.status).toBe('skipped');
    expect(passing.passed).toBe(true);

    const ignoring = await receiver(() => true);
    const failing = await check({ url: ignoring.url, signing_secret: signing, events: ['delivery'] });
    expect(failing.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['signature-bad', 'timestamp-stale']);
  });

  it('sends the payload format asked for, with unknown fields accepted by a lenient receiver', async () => {
    const r = await receiver(() => true);
    const report = await check({ url: r.url, payload_format: 'mailer-events', events: ['delivery'] });
    const sent = JSON.parse(byId(report)['event:delivery']!.exchanges[0]!.request.body);
    expect(sent.mailer_events.event).toBe('MAIL_DELIVERED');
    expect(byId(report)['extra-fields']!.status).toBe('passed');
  });

  it("refuses bad input with a 400 naming it, and a URL nothing listens on with the webhook policy's 422", async () => {
    await expect(emu.control.checkReceiver({ url: 'ftp://x' } as never)).rejects.toMatchObject({ status: 400 });
    const r = await receiver(() => true);
    await expect(emu.control.checkReceiver({ url: r.url, headers: { A: 'b' }, secret_header: 'X-Other' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('secret_header'),
    });
    const url = r.url;
    await r.close();
    await expect(emu.control.checkReceiver({ url })).rejects.toMatchObject({ status: 422 });
  });
});

describe('yard.checkReceiver (the testing API)', () => {
  it('grades a receiver from a test suite, failing the one that accepts a wrong secret', async () => {
    await using yard = await startMailyard();
    const good = await receiver((v) => v === SECRET);
    const lax = await receiver((v) => v !== undefined);
    const options = { headers: { 'X-Webhook-Secret': SECRET }, events: ['delivery' as const, 'bounce' as const] };
    expect((await yard.checkReceiver(good.url, options)).passed).toBe(true);
    const report = await yard.checkReceiver(lax.url, options);
    expect(report.passed).toBe(false);
    expect(report.checks.find((c) => c.status === 'failed')?.id).toBe('secret-wrong');
  });

  it('observes processing through a function of the test: fails a receiver acting twice, passes one acting once', async () => {
    await using yard = await startMailyard();
    const options = { events: ['delivery' as const, 'click' as const] };
    const twice = await receiver(() => true, undefined, 'none');
    const failing = await yard.checkReceiver(twice.url, { ...options, effects: () => twice.processed() });
    expect(verdicts(failing)).toMatchObject({ duplicate: ['failed', 2], 'out-of-order': ['passed', 2] });
    expect(failing.effects_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/effects$/);
    const once = await receiver(() => true);
    const passing = await yard.checkReceiver(once.url, { ...options, effects: async () => once.processed() });
    expect(verdicts(passing)).toMatchObject({ duplicate: ['passed', 1], 'out-of-order': ['passed', 2], 'same-kind-twice': ['passed', 2] });
    // A function that throws is a check that could not observe, said so.
    const broken = await yard.checkReceiver(once.url, {
      ...options,
      effects: () => {
        throw new Error('no database');
      },
    });
    expect(byId(broken).duplicate!.detail).toMatch(/could not observe processing: .* answered 500 effects\(\) threw: no database/);
  });
});

describe('the URL policy and the stop', () => {
  it('with --strict-webhook-urls refuses what a webhook URL may not be, before any connection', async () => {
    const probes: string[] = [];
    const strict = await startEmulator(
      { strictWebhookUrls: true },
      {
        lookup: async (host) =>
          host === 'internal.example.com'
            ? ['10.1.2.3']
            : host === 'hooks.example.com'
              ? ['93.184.216.34']
              : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })),
        probe: async (url) => {
          probes.push(url.href);
        },
      },
    );
    try {
      await expect(strict.control.checkReceiver({ url: 'http://127.0.0.1:9/hooks' })).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('url must be an https URL (strict webhook URLs are on)'),
      });
      await expect(strict.control.checkReceiver({ url: 'https://internal.example.com/hooks' })).rejects.toMatchObject({
        status: 422,
        message: expect.stringMatching(/resolves to 10\.1\.2\.3, which is not a public address/),
      });
      await expect(strict.control.checkReceiver({ url: 'https://[::127.0.0.1]/hooks' })).rejects.toMatchObject({ status: 422 });
      expect(probes).toEqual([]);
      // The effects URL is fetched by the emulator too: the same policy, named by its field.
      await expect(strict.control.checkReceiver({ url: 'https://hooks.example.com/hooks', effects_url: 'http://127.0.0.1:9/effects' })).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('effects_url must be an https URL (strict webhook URLs are on)'),
      });
      await expect(
        strict.control.checkReceiver({ url: 'https://hooks.example.com/hooks', effects_url: 'https://internal.example.com/effects' }),
      ).rejects.toMatchObject({
        status: 422,
        message: expect.stringMatching(/resolves to 10\.1\.2\.3/),
        fieldErrors: [{ path: 'effects_url', message: expect.stringMatching(/resolves to 10\.1\.2\.3/) }],
      });
      // Only the public receiver was probed, never the refused effects URLs.
      expect(new Set(probes)).toEqual(new Set(['https://hooks.example.com/hooks']));
    } finally {
      await strict.cleanup();
    }
  });

  it('sends nothing more once the emulator stops during a check', async () => {
    const short = await startEmulator({ deliveryTimeoutMs: 300, shutdownGraceMs: 100 });
    const r = await startReceiver();
    receivers.push(r);
    r.answer = () => 'hang';
    const running = short.control.checkReceiver({ url: r.url }).catch(() => undefined);
    await r.waitFor(1);
    await short.cleanup();
    await running;
    const after = r.requests.length;
    // Unstopped, the check would go on: one request every 300 ms (each timing out) for twenty more.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(r.requests.length).toBe(after);
    expect(after).toBeLessThanOrEqual(2);
  });
});
