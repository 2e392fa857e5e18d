import { useCallback, useEffect, useRef, useState } from 'react';
import type { ScenarioReport, ScenarioRun } from '../../../src-shared/scenario/report';
import { live } from '../../api/live';
import { isFinished, onScenarioUpdated, scenarios } from '../../api/scenarios';

/** How often a run that is under way is asked for, besides the live events (a missed event costs at most this). */
const POLL_MS = 1000;

export interface ScenarioRuns {
  runs: ScenarioRun[];
  selected: ScenarioRun | null;
  report: ScenarioReport | null;
  /** Why the list, the run or its report could not be read. */
  error: string | null;
  select(id: string | null): void;
  /** A run just started (or stopped) here: shown and selected at once. */
  upsert(run: ScenarioRun): void;
}

/** The runs (newest first), the one shown, followed live, and its report once it is over. */
export function useScenarioRuns(): ScenarioRuns {
  const [runs, setRuns] = useState<ScenarioRun[]>([]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [report, setReport] = useState<ScenarioReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const upsert = useCallback((run: ScenarioRun) => {
    setRuns((all) => (all.some((r) => r.id === run.id) ? all.map((r) => (r.id === run.id ? run : r)) : [run, ...all]));
  }, []);
  const load = useCallback(async () => {
    try {
      const list = await scenarios.list();
      setRuns(list);
      setError(null);
      setSelectedId((id) => id ?? list[0]?.id ?? null);
    } catch (err) {
      setError((err as Error).message);
    }
  }, []);
  useEffect(() => {
    void load();
    const offLive = onScenarioUpdated(upsert);
    const offReconnect = live.onReconnect(() => void load());
    return () => {
      offLive();
      offReconnect();
    };
  }, [load, upsert]);
  const selected = runs.find((r) => r.id === selectedId) ?? null;
  const active = selected !== null && !isFinished(selected);
  // A run under way is also asked for now and then: progress moves even if the live stream is down.
  useEffect(() => {
    if (!active || !selectedId) return;
    const timer = setInterval(() => {
      scenarios.get(selectedId).then(upsert, () => undefined);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [active, selectedId, upsert]);
  // The report, once the shown run is over.
  const finishedId = selected && isFinished(selected) ? selected.id : null;
  const asked = useRef<string | null>(null);
  useEffect(() => {
    setReport((r) => (r && r.run.id === finishedId ? r : null));
    if (!finishedId || asked.current === finishedId) return;
    asked.current = finishedId;
    scenarios.report(finishedId).then(
      (r) => setReport(r),
      (err: Error) => {
        asked.current = null;
        setError(`The report of this run cannot be read: ${err.message}`);
      },
    );
  }, [finishedId]);
  const select = useCallback((id: string | null) => {
    setSelectedId(id);
    setError(null);
  }, []);
  return { runs, selected, report, error, select, upsert };
}
