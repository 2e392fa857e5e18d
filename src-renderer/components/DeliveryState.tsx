import { useEffect, useRef } from 'react';
import type { DeliverySummary } from '../../src-shared/schemas/dispatch';
import { DELIVERY_STATE_MEANING, deliveryState, isInFlightOrDue } from './delivery-state';
import { Time, useEmulatedNow } from './Time';
import './delivery-state.css';

type StateInput = Pick<DeliverySummary, 'status' | 'attempts' | 'next_attempt_at'>;

/** A delivery's state as a pill, in the one set of words every screen uses; a live dot while an attempt is in flight. */
export function DeliveryBadge({ d, testId }: { d: StateInput; testId?: string }) {
  const s = deliveryState(d, useEmulatedNow());
  return (
    <span className={`pill tone-${s.tone}${s.inFlight ? ' in-flight' : ''}`} data-testid={testId} data-state={s.name} title={DELIVERY_STATE_MEANING[s.name]}>
      {s.inFlight && <span className="live-dot" aria-hidden="true" />}
      {s.name}
    </span>
  );
}

/**
 * What comes next for a delivery, in words: "attempt 2 in flight" (with a spinner), "retry 2 due now"
 * (its time has come: never "1 h ago"), "retry 2 in 5 min"; nothing once it is done. `exact` adds the
 * scheduled time in the absolute format.
 */
export function DeliveryNext({ d, testId, exact = false }: { d: StateInput; testId?: string; exact?: boolean }) {
  const s = deliveryState(d, useEmulatedNow());
  if (s.inFlight) {
    return (
      <span className="delivery-next in-flight" data-testid={testId}>
        <span className="spinner" aria-hidden="true" />
        {s.note}
      </span>
    );
  }
  if (!s.next) return null;
  const what = s.name === 'failing' ? `retry ${s.attempt}` : 'first attempt';
  return (
    <span className={`delivery-next${s.next.kind === 'due' ? ' due' : ''}`} data-testid={testId}>
      {s.next.kind === 'due' ? (
        s.note
      ) : (
        <>
          {what} <Time emulator={s.next.at} future />
        </>
      )}
      {exact && d.next_attempt_at && (
        <span className="muted small">
          {' '}
          · <Time emulator={d.next_attempt_at} exact /> (emulator clock)
        </span>
      )}
    </span>
  );
}

/**
 * Calls `refresh` every `everyMs` while one of `deliveries` is in flight or due (the moment it is
 * claimed, and its outcome, show without waiting for an announcement that may not come); stops when
 * none is.
 */
export function useRefreshWhileInFlight(deliveries: readonly StateInput[], refresh: () => unknown, everyMs = 1000): void {
  const now = useEmulatedNow();
  const active = deliveries.some((d) => isInFlightOrDue(d, now));
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    if (!active) return;
    const t = window.setInterval(() => void latest.current(), everyMs);
    return () => window.clearInterval(t);
  }, [active, everyMs]);
}
