import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type Mailyard, startMailyard } from '../../src-main/testing';
import { type Receiver, startReceiver } from '../helpers/receiver';

let yard: Mailyard;
let receiver: Receiver;
beforeAll(async () => {
  yard = await startMailyard({ ui: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await yard.stop();
});

describe('yard.runScenario', () => {
  it('runs a scenario given as an object and resolves with its report', async () => {
    const report = await yard.runScenario({
      version: 1,
      name: 'from a test',
      clock: { speed: 100 },
      webhook: { url: receiver.url },
      traffic: { count: 4, rate: '20/s', to: 'reader{n}@example.test' },
      outcomes: [{ match: { pattern: 'reader4@*' }, fate: 'unsubscribe', after: '5s' }],
      expect: { receiver: { acknowledgedAll: true }, app: { maxSendsPerRecipient: 1 } },
    });
    expect(report.verdict).toBe('pass');
    expect(report.totals).toMatchObject({ sends: 4, events: 5, deliveries: 5, attempts: 5, acknowledged: 5 });
    expect(report.series.eventsByKind.map((r) => r.kind).sort()).toEqual(expect.arrayContaining(['delivery', 'unsubscribe']));
  });

  it('runs an example file, the shop as its app, to a failing verdict naming the violation', async () => {
    const report = await yard.runScenario(resolve(import.meta.dirname, '../../examples/scenarios/failing-keeps-sending.yaml'));
    expect(report.verdict).toBe('fail');
    expect(report.expectations.find((e) => e.id === 'noSendAfterHardBounce')?.violations[0]?.recipient).toBe('gone@bounce.example');
  }, 60_000);

  it('rejects a bad scenario with the 400 naming the field', async () => {
    const err = await yard
      .runScenario({ version: 1, name: 'bad', traffic: { count: 1 }, outcomes: [{ match: { share: 2 }, fate: 'delivered' }] } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toMatch(/outcomes\.0\.match\.share: must be at most 1/);
  });
});
