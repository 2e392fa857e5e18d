import type { ScenarioRun } from '../../../src-shared/scenario/report';
import { Time } from '../../components/Time';

const STATUS_TONE: Record<ScenarioRun['status'], string> = {
  starting: 'wait',
  running: 'info',
  passed: 'ok',
  failed: 'bad',
  inconclusive: 'warn',
  stopped: 'muted',
  error: 'bad',
};

export function RunStatus({ run, testId }: { run: ScenarioRun; testId?: string }) {
  return (
    <span className={`pill tone-${STATUS_TONE[run.status]}`} data-testid={testId}>
      {run.status}
    </span>
  );
}

/** "1m 05s" of a duration in ms. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m ${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** A run's progress: the bar (share of its planned duration or sends) and its counts. */
export function RunProgress({ run, onStop, stopping }: { run: ScenarioRun; onStop: () => void; stopping: boolean }) {
  const p = run.progress;
  const pct = Math.round(Math.min(1, Math.max(0, p.fraction)) * 100);
  const active = run.status === 'starting' || run.status === 'running';
  const counts: Array<[string, string | number, string]> = [
    ['Sends', p.plannedSends !== null ? `${p.sends} / ${p.plannedSends}` : p.sends, 'sends'],
    ['Events', p.events, 'events'],
    ['Webhook deliveries', p.deliveries, 'deliveries'],
    ['Delivery attempts', p.attempts, 'attempts'],
    ['Acknowledged', p.acknowledged, 'acknowledged'],
    ['Failed attempts', p.failedAttempts, 'failed'],
    ['Violations', p.violations, 'violations'],
    ['Emulated time', duration(p.emulatedMs), 'emulated'],
    ['Wall time', duration(p.elapsedMs), 'elapsed'],
  ];
  return (
    <div className="scenario-progress" data-testid="scenario-progress">
      <div className="form-row">
        <strong>{run.name}</strong>
        <RunStatus run={run} testId="scenario-status" />
        <span className="muted small">
          started <Time emulator={run.startedAt} /> on the emulator clock
        </span>
        <span className="muted small" title="The seed of the run's random choices: a run of the same file with this seed fires the same events">
          seed <span data-testid="scenario-seed">{run.seed}</span>
        </span>
        <span className="spacer" />
        {active && (
          <button type="button" className="button danger small" onClick={onStop} disabled={stopping}>
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        )}
      </div>
      <div className="form-row">
        <progress className="scenario-bar" max={100} value={pct} aria-label="Run progress" aria-valuetext={`${pct}%`} data-testid="scenario-bar" />
        <span className="count" data-testid="scenario-percent">
          {pct}%
        </span>
      </div>
      <dl className="scenario-counts">
        {counts.map(([label, value, id]) => (
          <div key={id}>
            <dt>{label}</dt>
            <dd data-testid={`progress-${id}`}>{value}</dd>
          </div>
        ))}
      </dl>
      {run.error && (
        <p className="error" role="alert">
          {run.error}
        </p>
      )}
    </div>
  );
}
