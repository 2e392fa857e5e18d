import { useState } from 'react';
import { Time } from '../../components/Time';
import { ReportView } from './ReportView';
import { RunProgress, RunStatus } from './RunProgress';
import { ScenarioApiError, scenarios, type ScenarioProblem } from './scenarios-api';
import { ScenarioEditor, STARTER } from './ScenarioEditor';
import { useScenarioRuns } from './use-scenario-runs';
import './scenarios.css';

interface Outcome {
  tone: 'ok' | 'bad';
  text: string;
}

/**
 * The Scenarios screen: a scenario file opened or written here, validated (its problems by line and
 * field beside the text), run, followed live (progress bar and counts), stopped; the past runs; and
 * the report of the one shown.
 */
export function Scenarios() {
  const [source, setSource] = useState(STARTER);
  const [file, setFile] = useState<string | null>(null);
  const [problems, setProblems] = useState<ScenarioProblem[]>([]);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState<'validate' | 'run' | 'stop' | null>(null);
  const runs = useScenarioRuns();
  const failed = (err: unknown) => {
    const e = err instanceof ScenarioApiError ? err : null;
    setProblems(e?.problems ?? []);
    setOutcome({ tone: 'bad', text: e?.problems.length ? `${e.message}: ${e.problems.length} problem${e.problems.length === 1 ? '' : 's'}, beside the text` : (e?.message ?? String(err)) });
  };
  const act = async (what: 'validate' | 'run' | 'stop', call: () => Promise<void>) => {
    setBusy(what);
    setOutcome(null);
    try {
      await call();
    } catch (err) {
      failed(err);
    } finally {
      setBusy(null);
    }
  };
  const validate = () =>
    act('validate', async () => {
      const res = await scenarios.validate(source, file ?? undefined);
      setProblems([]);
      setOutcome({ tone: 'ok', text: `Valid${res.scenario.name ? `: “${res.scenario.name}”` : ''}` });
    });
  const run = () =>
    act('run', async () => {
      const started = await scenarios.start(source, file ?? undefined);
      setProblems([]);
      runs.upsert(started);
      runs.select(started.id);
      setOutcome({ tone: 'ok', text: `Started “${started.name}”` });
    });
  const selected = runs.selected;
  const stop = () => act('stop', async () => void (selected && runs.upsert(await scenarios.stop(selected.id))));
  const running = runs.runs.some((r) => r.status === 'starting' || r.status === 'running');
  return (
    <main>
      <section className="card" aria-labelledby="scenario-title">
        <div className="card-head">
          <h2 id="scenario-title">Scenario</h2>
          <span className="muted small">Outcomes, webhook faults, traffic, the clock and expectations, in one file (YAML or JSON, version 1).</span>
        </div>
        <ScenarioEditor
          source={source}
          file={file}
          problems={problems}
          onChange={(text, name) => {
            setSource(text);
            setFile(name);
          }}
        />
        <div className="form-row">
          <button type="button" className="button" onClick={() => void validate()} disabled={busy !== null}>
            {busy === 'validate' ? 'Validating…' : 'Validate'}
          </button>
          <button type="button" className="button primary" onClick={() => void run()} disabled={busy !== null || running} title={running ? 'A scenario is running: stop it or wait for it to end' : undefined}>
            {busy === 'run' ? 'Starting…' : 'Run'}
          </button>
          {outcome && (
            <span className={outcome.tone === 'ok' ? 'notice' : 'error'} role={outcome.tone === 'ok' ? 'status' : 'alert'} data-testid="scenario-outcome">
              {outcome.text}
            </span>
          )}
        </div>
      </section>
      {selected && (
        <section className="card" aria-labelledby="scenario-run-title">
          <div className="card-head">
            <h2 id="scenario-run-title">Run</h2>
          </div>
          <RunProgress run={selected} onStop={() => void stop()} stopping={busy === 'stop'} />
        </section>
      )}
      {runs.error && (
        <p className="error" role="alert">
          {runs.error}
        </p>
      )}
      {runs.report && runs.report.run.id === selected?.id && <ReportView report={runs.report} />}
      <section className="card" aria-labelledby="scenario-runs-title">
        <div className="card-head">
          <h2 id="scenario-runs-title">Past runs</h2>
        </div>
        {runs.runs.length === 0 ? (
          <p className="muted">No run yet.</p>
        ) : (
          <ul className="scenario-runs" data-testid="scenario-runs">
            {runs.runs.map((r) => (
              <li key={r.id}>
                <button type="button" aria-current={r.id === selected?.id ? 'true' : undefined} onClick={() => runs.select(r.id)}>
                  <RunStatus run={r} />
                  <span className="grow">{r.name}</span>
                  <span className="muted small">
                    <Time iso={r.startedAt} />
                  </span>
                  <span className="muted small">
                    {r.progress.sends} sends · {r.progress.violations} violations
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
