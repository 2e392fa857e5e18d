import { create } from 'zustand';
import type { ScenarioReport, ScenarioRun } from '../../src-shared/scenario/report';
import { live } from '../api/live';
import { isFinished, onScenarioUpdated, scenarios } from '../api/scenarios';

/** How often a run that is under way is asked for, besides the live events (a missed event costs at most this). */
const POLL_MS = 1000;

interface ScenarioRunsState {
  /** The runs, newest first. */
  runs: ScenarioRun[];
  /** The run shown (the newest once the list is read, until one is chosen). */
  selectedId: string | null;
  /** The shown run's report, once it is over. */
  report: ScenarioReport | null;
  /** Why the list, the run or its report could not be read. */
  error: string | null;
  load: () => Promise<void>;
  select: (id: string | null) => void;
  /** A run just started (or stopped) here: shown at once. */
  upsert: (run: ScenarioRun) => void;
  /** Follows the runs live (and the one under way by asking now and then); returns the unsubscribe. */
  follow: () => () => void;
}

/** The shown run, if it is in the list. */
export const selectedRun = (s: Pick<ScenarioRunsState, 'runs' | 'selectedId'>): ScenarioRun | null => s.runs.find((r) => r.id === s.selectedId) ?? null;

export const useScenarioRuns = create<ScenarioRunsState>((set, get, store) => {
  /** The finished run whose report was asked for (asked once; again after a failure). */
  let asked: string | null = null;
  /** Asks for the shown run's report once it is over; drops a report of another run. */
  const fetchReport = () => {
    const selected = selectedRun(get());
    const finishedId = selected && isFinished(selected) ? selected.id : null;
    if (finishedId && asked !== finishedId) {
      asked = finishedId;
      scenarios.report(finishedId).then(
        (report: ScenarioReport) => {
          if (asked === finishedId) set({ report });
        },
        (err: Error) => {
          if (asked === finishedId) asked = null;
          set({ error: `The report of this run cannot be read: ${err.message}` });
        },
      );
    }
    const { report } = get();
    if (report && report.run.id !== finishedId) set({ report: null });
  };
  return {
    runs: [],
    selectedId: null,
    report: null,
    error: null,
    load: async () => {
      try {
        const list = await scenarios.list();
        set((s) => ({ runs: list, error: null, selectedId: s.selectedId ?? list[0]?.id ?? null }));
      } catch (err) {
        set({ error: (err as Error).message });
      }
    },
    select: (id) => set({ selectedId: id, error: null }),
    upsert: (run) => set((s) => ({ runs: s.runs.some((r) => r.id === run.id) ? s.runs.map((r) => (r.id === run.id ? run : r)) : [run, ...s.runs] })),
    follow: () => {
      const { load, upsert } = get();
      void load();
      // A run under way is also asked for now and then: progress moves even if the live stream is down.
      let polled: string | null = null;
      let timer: number | undefined;
      const watch = () => {
        const selected = selectedRun(get());
        const active = selected && !isFinished(selected) ? selected.id : null;
        if (active !== polled) {
          window.clearInterval(timer);
          polled = active;
          timer = active ? window.setInterval(() => scenarios.get(active).then(upsert, () => undefined), POLL_MS) : undefined;
        }
        fetchReport();
      };
      watch();
      const offs = [store.subscribe(watch), onScenarioUpdated(upsert), live.onReconnect(() => void load())];
      return () => {
        for (const off of offs) off();
        window.clearInterval(timer);
      };
    },
  };
});
