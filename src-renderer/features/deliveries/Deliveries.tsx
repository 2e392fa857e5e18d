import { useEffect } from 'react';
import { EMAIL_EVENT_KINDS } from '../../../src-shared/events';
import { DELIVERY_STATUSES, type DeliverySummary } from '../../../src-shared/schemas/dispatch';
import { Badge, EventTag } from '../../components/Badge';
import { Link } from '../../components/Link';
import { Time } from '../../components/Time';
import { ListDetail } from '../../components/ListDetail';
import { useDeliveries } from '../../stores/deliveries-store';
import { DeliveryDetailPane } from './DeliveryDetail';

const ROW_HEIGHT = 56;

function Row({ d }: { d: DeliverySummary }) {
  return (
    <div className="mrow">
      <div className="line">
        <EventTag event={d.event} />
        <span className="ellipsis target">{d.target.url}</span>
        <span className="spacer" />
        <span className="muted small">
          <Time iso={d.created_at} />
        </span>
      </div>
      <div className="line small">
        <Badge value={d.status} />
        <span className="muted">
          {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
          {d.last_status_code !== null ? ` · HTTP ${d.last_status_code}` : d.last_error ? ` · ${d.last_error}` : ''}
        </span>
        <span className="spacer" />
        {d.next_attempt_at && d.status === 'pending' && (
          <span className="muted">
            next <Time iso={d.next_attempt_at} future />
          </span>
        )}
      </div>
    </div>
  );
}

function Filters() {
  const { filters, setFilters } = useDeliveries();
  return (
    <div className="list-toolbar">
      <select className="input" aria-label="Delivery status" value={filters.status} onChange={(e) => setFilters({ status: e.target.value })}>
        <option value="">any status</option>
        {DELIVERY_STATUSES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <select className="input" aria-label="Event" value={filters.event} onChange={(e) => setFilters({ event: e.target.value })}>
        <option value="">any event</option>
        {[...EMAIL_EVENT_KINDS, 'domain_verification', 'inbound', 'imap_message'].map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <input
        className="input grow"
        placeholder="ref_id of a send"
        aria-label="Message ref_id"
        defaultValue={filters.ref_id}
        onKeyDown={(e) => {
          if (e.key === 'Enter') setFilters({ ref_id: e.currentTarget.value });
        }}
        onBlur={(e) => e.currentTarget.value !== filters.ref_id && setFilters({ ref_id: e.currentTarget.value })}
      />
    </div>
  );
}

const getKey = (d: DeliverySummary) => d.id;
const renderRow = (d: DeliverySummary) => <Row d={d} />;

/** Every webhook request the dispatcher made or will make: live, with each attempt's request and response. */
export function Deliveries() {
  const source = useDeliveries();
  const { reload, follow, detail, filters } = source;
  useEffect(() => {
    const off = follow();
    // A link may carry a status filter (the dashboard's failed deliveries: /deliveries?status=failed).
    const status = new URLSearchParams(window.location.search).get('status');
    if (status !== null && (DELIVERY_STATUSES as readonly string[]).includes(status)) useDeliveries.getState().setFilters({ status });
    else void reload();
    return off;
  }, [follow, reload]);
  const filtered = filters.status !== '' || filters.event !== '' || filters.ref_id !== '';
  return (
    <ListDetail
      name="Deliveries"
      itemName="Delivery"
      basePath="/deliveries"
      source={source}
      getKey={getKey}
      renderRow={renderRow}
      rowHeight={ROW_HEIGHT}
      listLabel="Deliveries, newest first"
      testId="delivery-list"
      filters={<Filters />}
      filtered={filtered}
      noMatch="No delivery matches these filters."
      empty={
        <div className="empty" data-testid="deliveries-empty">
          <h2>No webhook deliveries yet</h2>
          <p className="muted">
            Register a webhook on the <Link to="/webhooks">Webhooks</Link> screen, then <Link to="/send">send an email</Link> or{' '}
            <Link to="/events">fire an event</Link>: every request to your receiver shows up here, with each attempt.
          </p>
        </div>
      }
      detail={detail && <DeliveryDetailPane d={detail} />}
      hint={
        <>
          <p>Select a delivery to see every attempt: request and response headers and bodies.</p>
          <p className="muted small">
            Keys: <kbd>↑</kbd> <kbd>↓</kbd> move, <kbd>Enter</kbd> opens, <kbd>Esc</kbd> closes.
          </p>
        </>
      }
    />
  );
}
