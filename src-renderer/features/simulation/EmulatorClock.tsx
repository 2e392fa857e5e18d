import { useCallback, useEffect, useState } from 'react';
import { type ClockState, MAX_CLOCK_ADVANCE_MS } from '../../../src-shared/schemas/dispatch';
import { control, describeError, fieldErrors } from '../../api/clients';
import { live } from '../../api/live';
import { inFlightNote, waitingDeliveries } from '../../components/delivery-state';
import { describedBy, FieldMessage, type FieldProblem, problemsAt, problemsElsewhere } from '../../components/FieldError';
import { Time } from '../../components/Time';
import '../../components/delivery-state.css';

/** The emulator clock: now, speed, what is due next, and jumps ahead. */
const SPEEDS = [0, 1, 10, 60, 600, 3600];
const JUMPS: Array<[string, number]> = [
  ['+5 s', 5_000],
  ['+1 min', 60_000],
  ['+5 min', 300_000],
  ['+1 h', 3_600_000],
  ['+1 day', 86_400_000],
];

interface Problem {
  message: string;
  errors: FieldProblem[];
}

/**
 * When the next scheduled attempt is due: a time that has come reads "due now" (the dispatcher is
 * about to make it, or making it), never a time in the past.
 */
function NextRetry({ clock }: { clock: ClockState }) {
  if (!clock.next_due_at) return <span className="muted">none due</span>;
  if (Date.parse(clock.next_due_at) <= clock.now_ms) {
    return (
      <span data-testid="clock-next-retry">
        due now{' '}
        <span className="muted small">
          (<Time emulator={clock.next_due_at} exact />)
        </span>
      </span>
    );
  }
  return (
    <span data-testid="clock-next-retry">
      <Time emulator={clock.next_due_at} exact />
    </span>
  );
}

export function EmulatorClock() {
  const [clock, setClock] = useState<ClockState | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  // A jump the API refused is said beside the seconds field; anything else below the buttons.
  const jumpProblems = problemsAt(error?.errors, 'advance_ms');
  const otherProblems = problemsElsewhere(error?.errors, ['advance_ms']);
  const [custom, setCustom] = useState('');
  // What the last jump's answer said of the attempts it left in flight (a receiver slow to answer).
  const [jumpNote, setJumpNote] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setClock((await control.getClock()).data);
    } catch (err) {
      setError({ message: describeError(err), errors: [] });
    }
  }, []);
  useEffect(() => {
    void load();
    const t = window.setInterval(() => void load(), 1000);
    const offs = [live.on('clock.changed', () => void load()), live.on('delivery.updated', () => void load())];
    return () => {
      window.clearInterval(t);
      for (const off of offs) off();
    };
  }, [load]);
  const set = async (body: { speed?: number; advance_ms?: number }) => {
    setError(null);
    setJumpNote(null);
    try {
      const answer = (await control.setClock(body)).data;
      setClock(answer);
      if (body.advance_ms !== undefined) setJumpNote(inFlightNote(answer));
    } catch (err) {
      setError({ message: describeError(err), errors: fieldErrors(err) });
    }
  };
  return (
    <section className="card" aria-labelledby="clock-title">
      <div className="card-head">
        <h2 id="clock-title">Emulator clock</h2>
        <span className="muted small">Simulated events and webhook retries run on this clock: speed it up or jump ahead instead of waiting.</span>
      </div>
      {clock && (
        <dl className="facts">
          <dt>Now</dt>
          <dd>
            <span data-testid="clock-now">
              <Time emulator={clock.now} exact />
            </span>{' '}
            {clock.offset_ms > 0 && <span className="muted">({Math.round(clock.offset_ms / 1000).toLocaleString()} s ahead of real time)</span>}
          </dd>
          <dt>Speed</dt>
          <dd data-testid="clock-speed">{clock.speed === 0 ? 'paused' : `${clock.speed}×`}</dd>
          <dt>Next event</dt>
          <dd>
            {clock.next_event ? (
              <>
                <Time emulator={clock.next_event.at} exact /> · {clock.next_event.event} to {clock.next_event.recipient}
              </>
            ) : (
              <span className="muted">none scheduled</span>
            )}
          </dd>
          <dt>Next retry</dt>
          <dd>
            <NextRetry clock={clock} />{' '}
            <span className="muted" data-testid="clock-pending">
              · {waitingDeliveries(clock.pending_deliveries)}
            </span>
            {inFlightNote(clock) && <span className="muted"> · {inFlightNote(clock)}</span>}
          </dd>
        </dl>
      )}
      <div className="toolbar">
        <span className="muted small">Speed</span>
        {/* biome-ignore lint/a11y/useSemanticElements: a row of buttons named for screen readers; a <fieldset> would bring its border, legend and min-width rules into the row's layout */}
        <div className="segmented" role="group" aria-label="Clock speed">
          {SPEEDS.map((s) => (
            <button
              key={s}
              type="button"
              className={`seg${clock?.speed === s ? ' on' : ''}`}
              aria-pressed={clock?.speed === s}
              onClick={() => void set({ speed: s })}
            >
              {s === 0 ? 'Pause' : `${s}×`}
            </button>
          ))}
        </div>
      </div>
      <div className="toolbar">
        <span className="muted small">Jump ahead</span>
        {JUMPS.map(([label, ms]) => (
          <button key={label} type="button" className="button" onClick={() => void set({ advance_ms: ms })}>
            {label}
          </button>
        ))}
        {clock?.next_event_at && (
          <button
            type="button"
            className="button primary"
            onClick={() => void set({ advance_ms: Math.max(0, Date.parse(clock.next_event_at!) - clock.now_ms) })}
          >
            To the next event
          </button>
        )}
        {clock?.next_due_at && Date.parse(clock.next_due_at) > clock.now_ms && (
          <button
            type="button"
            className="button"
            title="Moves the whole emulator clock to the next webhook retry: everything due by then, for every account, runs too"
            onClick={() => void set({ advance_ms: Math.min(MAX_CLOCK_ADVANCE_MS, Math.ceil(Date.parse(clock.next_due_at!) - clock.now_ms)) })}
          >
            To the next retry
          </button>
        )}
        {jumpNote && (
          <span className="delivery-next in-flight small" data-testid="jump-in-flight">
            <span className="spinner" aria-hidden="true" />
            {jumpNote}
          </span>
        )}
        <span className="jump-field" data-testid="jump-field">
          <span className="jump-row">
            <input
              className="input narrow"
              aria-label="Jump seconds"
              placeholder="seconds"
              value={custom}
              onChange={(e) => setCustom(e.target.value)}
              {...describedBy('jump-error', jumpProblems.length > 0)}
            />
            <button type="button" className="button" disabled={!/^\d+$/.test(custom)} onClick={() => void set({ advance_ms: Number(custom) * 1000 })}>
              Jump
            </button>
          </span>
          {jumpProblems.length > 0 && (
            <FieldMessage id="jump-error" testId="jump-error">
              A jump {jumpProblems.map((p) => p.message).join('; ')}
            </FieldMessage>
          )}
        </span>
      </div>
      {error && (error.errors.length === 0 || otherProblems.length > 0) && (
        <p className="error" role="alert">
          {error.errors.length === 0 ? error.message : otherProblems.map((p) => `The ${p.path.replace(/_/g, ' ')} ${p.message}`).join('; ')}
        </p>
      )}
    </section>
  );
}
