import { useEffect, useState } from 'react';
import type { z } from 'zod';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../../../src-shared/events';
import type { FireEventResult } from '../../../src-shared/schemas/dispatch';
import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { control } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { EventTag } from '../../components/Badge';
import { DeliveryBadge, DeliveryNext, useRefreshWhileInFlight } from '../../components/DeliveryState';
import { FiredEvent } from '../../components/FiredEvent';
import { Link } from '../../components/Link';
import { Time } from '../../components/Time';
import { useMessages } from '../../stores/messages-store';
import { ConfirmDialog } from './ConfirmDialog';
import { isSuppressedCopy, SuppressedCopy } from './SuppressedCopy';

/** The fields a reader looks for first in an event of these kinds; the rest follow in the payload's order. */
const FIRST_FIELDS: Partial<Record<string, string[]>> = {
  bounce: ['bounce_type', 'bounce_category', 'bounce_reason'],
  smtp_error: ['smtp_code', 'smtp_response'],
  policy_rejection: ['rule', 'reason'],
  generation_failure: ['error_code', 'reason'],
};

const valueText = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : Array.isArray(v)
      ? v.map(valueText).join(', ')
      : v && typeof v === 'object'
        ? Object.values(v).map(valueText).join(', ')
        : String(v);

/** What tells an event from others of its kind (a soft bounce from a hard one, and each one's reply), by the payload's field names. */
function EventDetails({ event, details }: { event: string; details: Record<string, unknown> | undefined }) {
  if (!details) return null;
  const first = (FIRST_FIELDS[event] ?? []).filter((k) => k in details);
  const keys = [...first, ...Object.keys(details).filter((k) => !first.includes(k))];
  return (
    <dl className="event-details" data-testid="event-details">
      {keys.map((k) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{valueText(details[k])}</dd>
        </div>
      ))}
    </dl>
  );
}

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
          // biome-ignore lint/suspicious/noArrayIndexKey: a copy's events in order; two may share a time and a kind
          <li key={`${e.timestamp}-${i}`}>
            <span className="dot" />
            <EventTag event={e.event} /> <Time emulator={e.timestamp} exact />
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
            <EventDetails event={e.event} details={e.details} />
          </li>
        );
      })}
    </ol>
  );
}

/**
 * Fires a synthetic event for this copy (its ref_id and recipient) and shows what became of it. No
 * event is chosen at first (no risky default such as a bounce on a delivered copy): the button waits
 * for a choice; an event that would change a final status (spam on a bounced copy) asks first. What
 * an event would do is the emulator's answer (the detail's fire_outcomes), never worked out here.
 */
export function FireFromMessage({ d }: { d: Detail }) {
  const [kind, setKind] = useState<EmailEventKind | ''>('');
  const [asking, setAsking] = useState(false);
  const [result, setResult] = useState<z.output<typeof FireEventResult> | null>(null);
  const { busy, error, run, clearError } = useRun();
  const refresh = useMessages((s) => s.refreshDetail);
  // biome-ignore lint/correctness/useExhaustiveDependencies: another copy opened (d.id) starts the form afresh
  useEffect(() => {
    setResult(null);
    setKind('');
    setAsking(false);
    clearError();
  }, [d.id, clearError]);
  // The send's ref_id and this copy's recipient name this copy.
  const fire = (event: EmailEventKind) =>
    run(async () => {
      const res = await control.fireEvent({ event, ref_id: d.ref_id, recipient: d.recipient.email });
      setResult(res.data);
      await refresh();
    });
  const onFire = () => {
    if (kind === '') return;
    if (d.fire_outcomes[kind].changes_final) setAsking(true);
    else void fire(kind);
  };
  return (
    <div className="fire-inline">
      <label>
        Fire{' '}
        <select className="input" aria-label="Event to fire" value={kind} onChange={(e) => setKind(e.target.value as EmailEventKind | '')}>
          <option value="">choose an event…</option>
          {EMAIL_EVENT_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="button primary"
        disabled={busy || kind === ''}
        title={kind === '' ? 'Choose an event first' : undefined}
        onClick={onFire}
      >
        Fire event
      </button>
      <Link to={`/events?ref_id=${encodeURIComponent(d.ref_id)}&recipient=${encodeURIComponent(d.recipient.email)}`} className="small">
        with field overrides…
      </Link>
      {asking && kind !== '' && (
        <ConfirmDialog
          title={`Fire ${kind} at a ${d.status} message?`}
          confirmLabel={`Fire ${kind}`}
          busy={busy}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            void fire(kind);
          }}
        >
          <FireWarning d={d} kind={kind} />
        </ConfirmDialog>
      )}
      {result && <FiredEvent result={result} small />}
      {error && <span className="error small">{error}</span>}
    </div>
  );
}

/** What firing `kind` at a copy whose status is final would do, as the emulator answers it. */
function FireWarning({ d, kind }: { d: Detail; kind: EmailEventKind }) {
  const outcome = d.fire_outcomes[kind];
  return (
    <p data-testid="fire-warning">
      This copy is <strong>{d.status}</strong>, the end of its road. Firing <strong>{kind}</strong> records that event and{' '}
      {outcome.status === d.status ? (
        <>changes its log entry&apos;s failedReason</>
      ) : (
        <>
          makes its status <strong>{outcome.status}</strong>
        </>
      )}
      {outcome.suppresses && d.suppression === null ? ', and puts its address on the suppression list' : ''}, for good.
    </p>
  );
}
