import { describe, expect, it } from 'vitest';
import { loadUplotAssets } from '../../../../src-main/core/scenario/report-assets';
import { bucketFor, type ChartData } from '../../../../src-main/core/scenario/report-charts';
import { renderReportHtml } from '../../../../src-main/core/scenario/report-html';
import type { ScenarioReport } from '../../../../src-shared/scenario/report';

const EVIL = '<script>alert("x")</script>&\'"';

function report(over: Partial<ScenarioReport> = {}): ScenarioReport {
  return {
    version: 1,
    run: {
      id: 'run_1',
      name: `shop ${EVIL}`,
      file: null,
      status: 'failed',
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:10:00.000Z',
      accountId: 'acc_1',
      newAccount: true,
      seed: 1,
      error: null,
      progress: {
        fraction: 1,
        sends: 3,
        plannedSends: 3,
        events: 5,
        deliveries: 5,
        attempts: 6,
        acknowledged: 4,
        failedAttempts: 1,
        violations: 1,
        elapsedMs: 1000,
        emulatedMs: 60000,
      },
    },
    verdict: 'fail',
    scenario: { name: `shop ${EVIL}`, file: 'shop.yaml', clockSpeed: 60, seed: 1 },
    totals: {
      sends: 3,
      recipients: 3,
      events: 5,
      deliveries: 5,
      attempts: 6,
      acknowledged: 4,
      retries: 1,
      gaveUp: 0,
      duplicates: 1,
      reordered: 0,
      outageRefusals: 1,
    },
    expectations: [
      { id: 'acknowledgedAll', description: 'every event acknowledged', result: 'passed', passed: true, observed: '5 of 5', violations: [] },
      {
        id: 'noSendAfterHardBounce',
        description: 'no send after a hard bounce',
        result: 'failed',
        passed: false,
        observed: '1 send after a bounce',
        violations: [
          {
            expectation: 'noSendAfterHardBounce',
            message: `sent again to ${EVIL}`,
            at: '2026-01-01T00:05:00.000Z',
            recipient: `bad${EVIL}@bounce.example`,
            messageId: 'msg/1?x',
            eventId: 'evt_1',
            deliveryId: 'dlv_1',
          },
        ],
      },
    ],
    series: {
      bucketMs: 10_000,
      eventsByKind: [
        { t: 0, kind: 'delivered', count: 2 },
        { t: 10_000, kind: 'hard_bounce', count: 1 },
        { t: 10_000, kind: 'delivered', count: 2 },
      ],
      sends: [
        { t: 0, count: 2, violations: 0 },
        { t: 20_000, count: 1, violations: 1 },
      ],
      attempts: [
        { t: 1000, ms: 12, status: 200, ok: true, retry: false },
        { t: 2000, ms: null, status: null, ok: false, retry: false },
        { t: 12_000, ms: 480, status: 200, ok: true, retry: true },
      ],
    },
    responseTimes: { p50: 12, p95: 480, p99: 480, max: 480 },
    clock: { movedMs: 600_000, wallMs: 10_000, aheadMs: 590_000 },
    ...over,
  };
}

const assets = loadUplotAssets();
const charts = (html: string): ChartData[] => {
  const m = /<script type="application\/json" id="report-charts">([\s\S]*?)<\/script>/.exec(html);
  if (!m?.[1]) throw new Error('no chart data');
  return JSON.parse(m[1]) as ChartData[];
};

describe('renderReportHtml', () => {
  it('puts the verdict at the top and escapes every text taken from the report', () => {
    const html = renderReportHtml(report(), assets);
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('id="h-totals"'));
    expect(html).toMatch(/<span class="badge">FAIL<\/span>/);
    // The seed, so a rehearsal can be replayed.
    expect(html).toContain('seed <span id="seed">1</span>');
    // What the run did to the emulator's one clock, which stays.
    expect(html).toContain(
      '<p id="clock-move">The emulator clock, which every account shares, moved 10 min 00 s during this run (10 s of wall time): 9 min 50 s further ahead of the wall clock than before. It is not moved back.</p>',
    );
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('shop &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&quot;');
    // The chart data is JSON inside a script: no "</script>" can close it early.
    const json = /id="report-charts">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    expect(json).not.toMatch(/<\/?script/i);
  });

  it('is self-contained: uPlot inlined, no external URL, a CSP that forbids the network', () => {
    const html = renderReportHtml(report(), assets);
    expect(assets.uplotJs.length).toBeGreaterThan(10_000);
    expect(html).toContain(assets.uplotJs.slice(0, 200));
    expect(html).toContain(assets.uplotCss.slice(0, 100));
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).toContain("default-src 'none'");
  });

  it("carries every plot's data as rates per bucket of the run's time, in units named on its axes", () => {
    const byId = new Map(charts(renderReportHtml(report(), assets)).map((c) => [c.id, c]));
    // A one-minute run in the report's 10 s buckets: x in seconds, rates per minute (a bucket's count x 6).
    const events = byId.get('events');
    expect(events).toMatchObject({ title: 'Events by kind, per minute, in 10 s buckets', unit: 'events / min', xLabel: 'emulated seconds since the start' });
    expect(events?.series.map((s) => s.label)).toEqual(['delivered', 'hard_bounce']);
    expect(events?.x).toEqual([0, 10, 20, 30, 40, 50]);
    expect(events?.y).toEqual([
      [12, 12, 0, 0, 0, 0],
      [0, 6, 0, 0, 0, 0],
    ]);
    expect(byId.get('response-time')).toMatchObject({ x: [1, 12], y: [[12, 480]], unit: 'ms' });
    const hist = byId.get('response-histogram');
    expect(hist?.y[0]?.reduce((a, b) => (a ?? 0) + (b ?? 0), 0)).toBe(2);
    expect(byId.get('retries')).toMatchObject({
      unit: 'attempts / min',
      y: [
        [0, 6, 0, 0, 0, 0],
        [6, 0, 0, 0, 0, 0],
      ],
    });
    const sends = byId.get('sends');
    // The empty bucket between reads 0 sends, not a line across it; violations are counts on the right axis.
    expect(sends?.y).toEqual([
      [12, 0, 6, 0, 0, 0],
      [null, null, 1, null, null, null],
    ]);
    expect(sends?.series[1]).toMatchObject({ label: 'violations (count)', points: true, right: true });
  });

  it('a sparse run reads as a rate, not 0-1 swings: 60 events over 10 minutes are 6 a minute in 30 s buckets', () => {
    // One event every 10 s for 10 minutes, the report cut in 1 s buckets as before (each then held 0 or 1).
    const eventsByKind = Array.from({ length: 60 }, (_, i) => ({ t: i * 10_000, kind: 'delivery', count: 1 }));
    const sends = Array.from({ length: 60 }, (_, i) => ({ t: i * 10_000, count: 1, violations: 0 }));
    const sparse = report({ series: { bucketMs: bucketFor(600_000), eventsByKind, sends, attempts: [] } });
    sparse.run.progress.emulatedMs = 600_000;
    const byId = new Map(charts(renderReportHtml(sparse, assets)).map((c) => [c.id, c]));
    const events = byId.get('events')!;
    expect(events.title).toBe('Events by kind, per minute, in 30 s buckets');
    expect(events.xLabel).toBe('emulated minutes since the start');
    expect(events.x).toHaveLength(20);
    expect(events.x.slice(0, 3)).toEqual([0, 0.5, 1]);
    expect(new Set(events.y[0])).toEqual(new Set([6]));
    expect(new Set(byId.get('sends')!.y[0])).toEqual(new Set([6]));
    expect(events.series[0]).toMatchObject({ step: true });
  });

  it('buckets follow the run’s length: at most 20, each a size a reader takes in at a glance', () => {
    expect(bucketFor(20_000)).toBe(1000);
    expect(bucketFor(55_000)).toBe(5000);
    expect(bucketFor(342_000)).toBe(30_000);
    expect(bucketFor(600_000)).toBe(30_000);
    expect(bucketFor(3_600_000)).toBe(300_000);
    expect(bucketFor(7 * 86_400_000)).toBe(12 * 3_600_000);
    expect(bucketFor(60 * 86_400_000)).toBe(3 * 86_400_000);
  });

  it('links each violation to its message, event and delivery in the emulator UI (base URL option)', () => {
    const html = renderReportHtml(report(), { ...assets, baseUrl: 'http://127.0.0.1:4400/' });
    const table = /<table id="violations">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(table).toContain('<code>noSendAfterHardBounce</code>');
    expect(table).toContain('href="http://127.0.0.1:4400/messages/msg%2F1%3Fx"');
    expect(table).toContain('href="http://127.0.0.1:4400/deliveries?q=evt_1"');
    expect(table).toContain('href="http://127.0.0.1:4400/deliveries/dlv_1"');
    expect(table).toContain('bad&lt;script&gt;');
    expect(renderReportHtml(report(), assets)).toContain('href="/deliveries/dlv_1"');
  });

  it('renders a run with empty series and no violations (a run that sent nothing: inconclusive, no expectation set)', () => {
    const empty = report({
      verdict: 'inconclusive',
      expectations: [],
      series: { bucketMs: 0, eventsByKind: [], sends: [], attempts: [] },
      responseTimes: { p50: null, p95: null, p99: null, max: null },
    });
    const html = renderReportHtml(empty, assets);
    expect(html).toMatch(/<span class="badge">INCONCLUSIVE<\/span>/);
    expect(html).toContain('The scenario set no expectations: nothing was judged.');
    expect(html).toContain('id="no-violations"');
    for (const c of charts(html)) expect(c.x).toEqual([]);
  });

  it('an inconclusive run says so at the top, naming each expectation that judged nothing; its row reads "not judged"', () => {
    const html = renderReportHtml(
      report({
        verdict: 'inconclusive',
        expectations: [
          {
            id: 'acknowledgedAll',
            description: 'every event acknowledged',
            result: 'not-judged',
            passed: false,
            observed: 'nothing to judge: no event went to a webhook',
            violations: [],
          },
          { id: 'maxSendsPerRecipient', description: 'at most 1', result: 'passed', passed: true, observed: 'at most 1 send', violations: [] },
        ],
      }),
      assets,
    );
    expect(html).toMatch(/<header class="verdict none" id="verdict">\s*<h1><span class="badge">INCONCLUSIVE<\/span>/);
    expect(html).toContain('<title>INCONCLUSIVE: shop');
    expect(html).toContain('Inconclusive: 1 expectation judged nothing: acknowledgedAll (no event went to a webhook).');
    const table = /<table id="expectations">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(table).toMatch(/<tr class="none"><td>– not judged<\/td><td><code>acknowledgedAll<\/code>/);
    expect(table).not.toMatch(/passed<\/td><td><code>acknowledgedAll/);
  });

  it('counts webhook deliveries and their attempts apart, each named', () => {
    const html = renderReportHtml(report(), assets);
    expect(html).toContain('<dt>Webhook deliveries</dt><dd>5</dd>');
    expect(html).toContain('<dt>Delivery attempts</dt><dd>6</dd>');
    expect(html).not.toContain('<dt>Deliveries</dt>');
  });
});
