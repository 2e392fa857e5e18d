import type { ScenarioReport, ScenarioRun } from '../../src-shared/scenario/report';
import type { TestEmulator } from './emulator';

/** Stops every scenario run still under way and waits for its end, so none is left for the next test (one runs at a time). */
export async function stopRunsUnderWay(emu: TestEmulator): Promise<void> {
  for (const run of (await emu.request('GET', '/emulator/scenarios/runs')).json.data as ScenarioRun[]) {
    if (['passed', 'failed', 'inconclusive', 'stopped', 'error'].includes(run.status)) continue;
    await emu.request('POST', `/emulator/scenarios/runs/${run.id}/stop`);
    await reportOf(emu, run.id);
  }
}

/** A run's report, once it has finished (asked for every 100 ms, for at most `timeoutMs`). */
export async function reportOf(emu: TestEmulator, id: string, timeoutMs = 30_000): Promise<ScenarioReport> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await emu.request('GET', `/emulator/scenarios/runs/${id}/report`);
    if (res.status === 200) return res.json.data as ScenarioReport;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${id} did not finish within ${timeoutMs} ms`);
}
