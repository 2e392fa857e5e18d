import { useEffect, useState } from 'react';
import type { z } from 'zod';
import type { EmailEventKind } from '../../../src-shared/events';
import type { FireEventResult } from '../../../src-shared/schemas/dispatch';
import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { control } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { EventTag } from '../../components/Badge';
import { DeliveryBadge, DeliveryNext, useRefreshWhileInFlight } from '../../components/DeliveryState';
import { EventKindSelect } from '../../components/EventKindSelect';
import { Link } from '../../components/Link';
import { Time } from '../../components/Time';
import { useMessages } from '../../stores/messages-store';
import { isSuppressedCopy, SuppressedCopy } from './SuppressedCopy';

/** The copy's events in order, each with the webhook delivery it went out as. */
export function Events({ d }: { d: Detail }) {
  const deliveries = useMessages((s) => s.deliveries);
  const refreshDeliveries = useMessages((s) => s.refreshDeliveries);
  // An attempt's claim and outcome show as they happen, announced or not.
  useRefreshWhileInFlight(deliveries, refreshDeliveries, 1500);
  const byId = new Map(deliveries.map((x) => [x.id, x]));
  if (d.events.length === 0 && isSuppressedCopy(d)) return <SuppressedCopy d={d} />;
  if (d.events.length === 0) {
    return <p className="muted pad">No events yet. The simulation schedules them on the emulator clock; you can also fire one above.</p>;
  }
  return (
    <ol className="timeline" data-testid="message-events">
      {d.events.map((e, i) => {
        const del = e.delivery_id ? byId.get(e.delivery_id) : undefined;
        return (
          <li key={`${e.timestamp}-${i}`}>
            <span className="dot" />
            <EventTag event={e.event} /> <Time iso={e.timestamp} exact />
            {e.delivery_id ? (
              <span className="small">
                {' · webhook '}
                <Link to={`/deliveries/${e.delivery_id}`}>{e.delivery_id}</Link> {del && <DeliveryBadge d={del} testId="event-delivery-state" />}
                {del && (
                  <span className="muted">
                    {' '}
                    {del.attempts} attempt{del.attempts === 1 ? '' : 's'} <DeliveryNext d={del} testId="event-delivery-next" />
                  </span>
                )}
              </span>
            ) : (
              <span className="muted small"> · not sent to a webhook</span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** Fires a synthetic event for this copy (its ref_id and recipient) and shows what became of it. */
export function FireFromMessage({ d }: { d: Detail }) {
  const [kind, setKind] = useState<EmailEventKind>('bounce');
  const [result, setResult] = useState<z.output<typeof FireEventResult> | null>(null);
  const { busy, error, run, clearError } = useRun();
  const refresh = useMessages((s) => s.refreshDetail);
  useEffect(() => {
    setResult(null);
    clearError();
  }, [d.id, clearError]);
  // The send's ref_id and this copy's recipient name this copy.
  const fire = () =>
    run(async () => {
      const res = await control.fireEvent({ event: kind, ref_id: d.ref_id, recipient: d.recipient.email });
      setResult(res.data);
      await refresh();
    });
  return (
    <div className="fire-inline">
      <label>
        Fire{' '}
        <EventKindSelect label="Event to fire" value={kind} onChange={setKind} />
      </label>
      <button type="button" className="button primary" disabled={busy} onClick={() => void fire()}>
        Fire event
      </button>
      <Link to={`/events?ref_id=${encodeURIComponent(d.ref_id)}&recipient=${encodeURIComponent(d.recipient.email)}`} className="small">
        with field overrides…
      </Link>
      {result && (
        <span className={result.sent ? 'notice small' : 'warn small'} data-testid="fire-result">
          {result.sent ? (
            <>
              {String(result.payload.event)} sent: delivery <Link to={`/deliveries/${result.delivery_id}`}>{result.delivery_id}</Link>
            </>
          ) : (
            `${String(result.payload.event)} recorded, not sent: ${result.reason}`
          )}
        </span>
      )}
      {error && <span className="error small">{error}</span>}
    </div>
  );
}
