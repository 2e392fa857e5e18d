import { describe, expect, it } from 'vitest';
import type { ScenarioInput } from '../../../../src-shared/scenario/format';
import { nothingToJudge } from '../../../../src-main/core/scenario/build-report';
import { validateScenario } from '../../../../src-main/core/scenario/parse';

function scenario(input: Partial<ScenarioInput>) {
  const r = validateScenario({ version: 1, name: 'judge', ...input });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.scenario;
}

const withApp = { app: { command: 'node app.js' } };

describe('nothingToJudge: a run that sent nothing is never a pass', () => {
  it('expectations of the app with no send by the app: the traffic sending does not count', () => {
    const s = scenario({
      ...withApp,
      traffic: { count: 3 },
      expect: { app: { noSendAfterHardBounce: true, maxSendsPerRecipient: 2, noSendAfterComplaint: false } },
    });
    expect(nothingToJudge(s, { all: 3, app: 0 })).toMatch(
      /^nothing to judge: the scenario expects things of the app \(noSendAfterHardBounce, maxSendsPerRecipient\) but the app sent nothing/,
    );
    expect(nothingToJudge(s, { all: 4, app: 1 })).toBeNull();
  });

  it('without an app, expectations of the app judge the traffic', () => {
    const s = scenario({ traffic: { count: 3 }, expect: { app: { maxSendsPerRecipient: 1 } } });
    expect(nothingToJudge(s, { all: 0, app: 0 })).toMatch(/expects things of the traffic/);
    expect(nothingToJudge(s, { all: 3, app: 0 })).toBeNull();
  });

  it('expectations of the receiver with no send at all; no expectation at all has nothing to break', () => {
    expect(nothingToJudge(scenario({ ...withApp, expect: { receiver: { acknowledgedAll: true } } }), { all: 0, app: 0 })).toMatch(/the run made no send/);
    expect(nothingToJudge(scenario({ ...withApp }), { all: 0, app: 0 })).toBeNull();
  });
});
