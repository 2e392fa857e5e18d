import { useEffect, useRef } from 'react';
import { MAX_CLOCK_ADVANCE_MS } from '../../src-shared/schemas/dispatch';
import { emulatedNow, useClockOffset } from '../stores/clock-store';
import { formatTimeOfDay, Time } from './Time';

/** How far "Step" moves the clock: one simulated event's usual gap (a delivery comes 1 s after a send, an open 4 s later). */
export const STEP_MS = 10_000;

/** How far ahead of the UI's estimate of now a scheduled time is, in whole ms (0 once it has come). */
const until = (iso: string) => Math.min(MAX_CLOCK_ADVANCE_MS, Math.max(0, Math.ceil(Date.parse(iso) - emulatedNow())));

/**
 * The emulator clock's controls on every screen, for a presenter pacing a demo: pause and resume, a
 * step, a jump to the next simulated event (named: its kind and recipient) and to the next webhook
 * retry. Each move is the whole emulator's (every account's events and retries), as on Simulation,
 * which has the finer controls. The header's badge says whether the clock runs or is paused.
 */
export function ClockBar() {
  const clock = useClockOffset((s) => s.clock);
  const move = useClockOffset((s) => s.move);
  const error = useClockOffset((s) => s.error);
  // Resume goes back to the speed that was paused (a demo at 10x stays at 10x).
  const lastSpeed = useRef(1);
  const speed = clock?.speed ?? 0;
  useEffect(() => {
    if (speed > 0) lastSpeed.current = speed;
  }, [speed]);
  if (!clock) return null;
  const paused = clock.speed === 0;
  const next = clock.next_event;
  const retryAhead = clock.next_due_at !== null && Date.parse(clock.next_due_at) > clock.now_ms;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a row of buttons named for screen readers; a <fieldset> would bring its border and legend into the header's line
    <div className="clock-bar" role="group" aria-label="Emulator clock" data-testid="clock-bar">
      <button
        type="button"
        className="button small"
        aria-label={paused ? 'Resume the clock' : 'Pause the clock'}
        data-testid="clock-pause"
        title={paused ? 'Run the emulator clock again' : 'Stop the emulator clock: no simulated event or webhook retry happens until it runs or moves'}
        onClick={() => void move({ speed: paused ? lastSpeed.current : 0 })}
      >
        <span aria-hidden="true">{paused ? '▶' : '❚❚'}</span> {paused ? 'Resume' : 'Pause'}
      </button>
      <button
        type="button"
        className="button small"
        data-testid="clock-step"
        title="Move the emulator clock 10 seconds ahead: what falls due by then happens now"
        onClick={() => void move({ advance_ms: STEP_MS })}
      >
        Step 10 s
      </button>
      {next ? (
        <button
          type="button"
          className="button small clock-next"
          data-testid="clock-next-event"
          title={`Move the emulator clock to the next simulated event: ${next.event} to ${next.recipient}, due at ${formatTimeOfDay(next.at)} (emulator clock)`}
          onClick={() => void move({ advance_ms: until(next.at) })}
        >
          Next: <strong>{next.event}</strong> <span className="clock-recipient">{next.recipient}</span>
        </button>
      ) : (
        <span className="muted small" data-testid="clock-no-event">
          no event scheduled
        </span>
      )}
      {retryAhead && (
        <button
          type="button"
          className="button small"
          data-testid="clock-next-retry-jump"
          title="Move the emulator clock to the next webhook retry: everything due by then, for every account, runs too"
          onClick={() => void move({ advance_ms: until(clock.next_due_at!) })}
        >
          Next retry <Time emulator={clock.next_due_at!} future />
        </button>
      )}
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
