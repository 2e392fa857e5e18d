import { useEffect, useState } from 'react';
import { clockNoteBefore } from '../../../src-shared/scenario/clock-move';
import type { ScenarioRun } from '../../../src-shared/scenario/report';
import { ScenarioApiError, type ScenarioProblem, type ScenarioRequest, scenarios } from '../../api/scenarios';
import { AccountSelect } from '../../components/AccountSelect';
import { Time } from '../../components/Time';
import { useSearchParam } from '../../router';
import { useOverview } from '../../stores/overview-store';
import { selectedRun, useScenarioRuns } from '../../stores/scenarios-store';
import { clockHint } from './clock-hint';
import { ReportView } from './ReportView';
import { RemoveRunAccounts, useAccountRemoved } from './RunAccounts';
import { RunLog } from './RunLog';
import { RunProgress, RunStatus } from './RunProgress';
import { ScenarioEditor, STARTER } from './ScenarioEditor';
import { ScenarioFiles } from './ScenarioFiles';
import './scenarios.css';

interface Outcome {
  tone: 'ok' | 'bad';
  text: string;
}

/** Whether scenario text starts an app (`app:` at the top level, in YAML or JSON): a hint only, the emulator decides. */
const STARTS_APP = /^app\s*:|"app"\s*:/m;

/**
 * The Scenarios screen: the scenarios folders' files, a scenario opened or written here, validated (its
 * problems by line and field beside the text), run, followed live (progress bar, counts and log),
 * stopped; the past runs; and the report of the one shown. A folder's file, unedited, runs as that
 * file (with its app); edited text or a file from this computer runs as text, which never starts an app.
 */
export function Scenarios() {
  const [source, setSource] = useState(STARTER);
  const [file, setFile] = useState<string | null>(null);
  /** The folder file in the editor, and its text as read: while the text is unchanged it runs as that file. */
  const [listed, setListed] = useState<{ path: string; source: string } | null>(null);
  const asFile = listed !== null && listed.source === source;
  const runOn = useRunOn();
  const hint = clockHint(source);
  const request = (): ScenarioRequest => (asFile ? { path: listed.path } : { source, ...(file ? { file } : {}) });
  const runRequest = () => ({ ...request(), ...(runOn.accountId ? { account_id: runOn.accountId } : {}) });
  const [problems, setProblems] = useState<ScenarioProblem[]>([]);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState<'validate' | 'run' | 'stop' | null>(null);
  const runs = useScenarioRuns();
  const follow = runs.follow;
  useEffect(() => follow(), [follow]);
  const failed = (err: unknown) => {
    const e = err instanceof ScenarioApiError ? err : null;
    setProblems(e?.problems ?? []);
    setOutcome({
      tone: 'bad',
      text: e?.problems.length
        ? `${e.message}: ${e.problems.length} problem${e.problems.length === 1 ? '' : 's'}, beside the text`
        : (e?.message ?? String(err)),
    });
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
      const res = await scenarios.validate(request());
      setProblems([]);
      setOutcome({ tone: 'ok', text: `Valid${res.scenario.name ? `: “${res.scenario.name}”` : ''}` });
    });
  const run = () =>
    act('run', async () => {
      const started = await scenarios.start(runRequest());
      setProblems([]);
      runs.upsert(started);
      runs.select(started.id);
      setOutcome({ tone: 'ok', text: `Started “${started.name}”` });
    });
  const selected = selectedRun(runs);
  const stop = () => act('stop', async () => void (selected && runs.upsert(await scenarios.stop(selected.id))));
  const running = runs.runs.some((r) => r.status === 'starting' || r.status === 'running');
  const open = (path: string, text: string) => {
    setListed({ path, source: text });
    setSource(text);
    setFile(path);
    setProblems([]);
    setOutcome(null);
  };
  return (
    <main>
      <ScenarioFiles opened={asFile ? listed.path : null} onOpen={open} />
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
            if (listed && name !== listed.path) setListed(null);
          }}
        />
        <p className="muted small" data-testid="scenario-run-as">
          {asFile ? (
            <>
              Runs as the file <code>{listed.path}</code> on the emulator's disk{STARTS_APP.test(source) ? ', starting its app' : ''}.
            </>
          ) : STARTS_APP.test(source) ? (
            <>
              This scenario starts an app: it runs only as a file of a scenarios folder (listed above, unedited) or with <code>mailyard scenario run FILE</code>
              , never as text sent from here.
            </>
          ) : (
            <>Runs as the text above.</>
          )}
        </p>
        <RunOn choice={runOn} />
        <p className="small scenario-clock-note" role="note" data-testid="scenario-clock-note">
          {clockNoteBefore(hint.durationMs, hint.speed)}
        </p>
        <div className="form-row">
          <button type="button" className="button" onClick={() => void validate()} disabled={busy !== null}>
            {busy === 'validate' ? 'Validating…' : 'Validate'}
          </button>
          <button
            type="button"
            className="button primary"
            onClick={() => void run()}
            disabled={busy !== null || running}
            title={running ? 'A scenario is running: stop it or wait for it to end' : undefined}
          >
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
          <div className="form-row">
            <RemoveRunAccounts runs={[selected]} label="Remove its account" testId="remove-run-account" />
            <AccountRemovedNote run={selected} />
          </div>
          <RunLog run={selected} />
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
          <span className="muted small">started, on the emulator clock (a run moves it)</span>
          <span className="spacer" />
          <RemoveRunAccounts runs={runs.runs} label="Remove run accounts" testId="remove-run-accounts" />
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
                    <Time emulator={r.startedAt} />
                  </span>
                  <span className="muted small">
                    {r.progress.sends} sends · {r.progress.violations} violations
                  </span>
                  <AccountRemovedNote run={r} />
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}

/**
 * Which account a run sends as: the scenario's own (its `account`: a new one, or the default), or an
 * existing one. The header's account, when one is chosen there, is the first choice.
 */
function useRunOn() {
  const accounts = useOverview((s) => s.accounts);
  const chosenInHeader = useSearchParam('account') ?? '';
  const [picked, setPicked] = useState<string | null>(null);
  const wanted = picked ?? chosenInHeader;
  const account = accounts.find((a) => a.id === wanted);
  return { accounts, accountId: account?.id ?? '', account, pick: setPicked };
}

function RunOn({ choice }: { choice: ReturnType<typeof useRunOn> }) {
  return (
    <div className="form-row">
      <span className="scenario-run-on">
        <label htmlFor="scenario-run-on">Run on</label>
        <AccountSelect
          id="scenario-run-on"
          accounts={choice.accounts}
          value={choice.accountId}
          onChange={choice.pick}
          anyLabel="The scenario’s own account (a new one, or the default if it says account: default)"
        />
      </span>
      <span className="muted small" data-testid="scenario-run-on">
        {choice.account
          ? `Sends as “${choice.account.name}”: its webhook gets the events, and its other sends during the run count too.`
          : 'A new account per run keeps the run apart from every other account’s data.'}
      </span>
    </div>
  );
}

/** "account removed": the run's account was deleted; its record and report stay. */
function AccountRemovedNote({ run }: { run: ScenarioRun }) {
  const removed = useAccountRemoved(run);
  return removed ? (
    <span className="muted small" data-testid="run-account-removed">
      account removed
    </span>
  ) : null;
}
