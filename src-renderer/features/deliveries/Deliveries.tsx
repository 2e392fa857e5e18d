import { useCallback, useEffect, useRef, useState } from 'react';
import { EMAIL_EVENT_KINDS } from '../../../src-shared/events';
import { DELIVERY_LIST_STATUSES, DELIVERY_STATUSES, type DeliverySummary } from '../../../src-shared/schemas/dispatch';
import { EventTag } from '../../components/Badge';
import { DeliveryBadge, DeliveryNext, useRefreshWhileInFlight } from '../../components/DeliveryState';
import { DELIVERY_FILTER_LABEL } from '../../components/delivery-state';
import { Link } from '../../components/Link';
import { ListDetail } from '../../components/ListDetail';
import { Time } from '../../components/Time';
import { navigate, useSearchParam } from '../../router';
import { useAccountName } from '../../stores/account-name';
import { type DeliveryFilters, NO_FILTERS, useDeliveries } from '../../stores/deliveries-store';
import './deliveries.css';
import { DeliveryDetailPane } from './DeliveryDetail';
import { Endpoints, ViewTabs } from './Endpoints';
import { InboundMail } from './InboundMail';

const ROW_HEIGHT = 56;

function Row({ d }: { d: DeliverySummary }) {
  const accountName = useAccountName(d.account_id);
  return (
    <div className="mrow delivery-row">
      <div className="line">
        <EventTag event={d.event} />
        <span className="ellipsis recipient" data-testid="delivery-recipient">
          {d.recipient ?? <span className="muted">no recipient</span>}
        </span>
        {d.subject && (
          <span className="ellipsis muted subject" data-testid="delivery-subject">
            {d.subject}
          </span>
        )}
        <span className="spacer" />
        <span className="badge" data-testid="delivery-account" title="Account">
          {accountName}
        </span>
        <span className="muted small">
          <Time emulator={d.created_at} />
        </span>
      </div>
      <div className="line small">
        <DeliveryBadge d={d} testId="delivery-row-state" />
        <span className="muted nowrap">
          {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
          {d.last_status_code !== null && ` · HTTP ${d.last_status_code}`}
        </span>
        {d.last_status_code === null && d.last_error && (
          // The error gives way (cut, whole on hover) before the next attempt's time does.
          <span className="ellipsis muted last-error" data-testid="delivery-row-error" title={d.last_error}>
            · {d.last_error}
          </span>
        )}
        <span className="ellipsis muted target" data-testid="delivery-url" title={d.target.url}>
          → {d.target.url}
        </span>
        <span className="spacer" />
        <span className="muted row-next">
          <DeliveryNext d={d} testId="delivery-row-next" />
        </span>
      </div>
    </div>
  );
}

/** The filters as the URL's query (kept by opening a row and by a reload). */
function filtersQuery(f: DeliveryFilters): string {
  const params = new URLSearchParams();
  for (const key of ['status', 'event', 'target_id', 'q'] as const) if (f[key]) params.set(key, f[key]);
  if (f.account_id) params.set('account', f.account_id);
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}

/** Changes the list's filters and puts them in the URL (replacing the entry: no history step per keystroke). */
function useSetFilters(): (f: Partial<DeliveryFilters>) => void {
  const setFilters = useDeliveries((s) => s.setFilters);
  return useCallback(
    (f: Partial<DeliveryFilters>) => {
      setFilters(f);
      navigate(window.location.pathname + filtersQuery(useDeliveries.getState().filters), true);
    },
    [setFilters],
  );
}

/** The search box: applied as it is typed or pasted (after a short pause), at once on Enter. */
function SearchBox() {
  const q = useDeliveries((s) => s.filters.q);
  const setFilters = useSetFilters();
  const [text, setText] = useState(q);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => setText(q), [q]);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const apply = (value: string) => {
    window.clearTimeout(timer.current);
    if (value.trim() !== useDeliveries.getState().filters.q.trim()) setFilters({ q: value.trim() });
  };
  return (
    <input
      className="input grow search"
      type="search"
      placeholder="Search recipient, URL or payload"
      aria-label="Search webhook deliveries"
      title="An address (pasted as it comes, with or without a name) shows the deliveries to it; other text is looked for in the recipient, the target URL and the payload"
      value={text}
      onChange={(e) => {
        const value = e.target.value;
        setText(value);
        window.clearTimeout(timer.current);
        timer.current = window.setTimeout(() => apply(value), 250);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter') apply(e.currentTarget.value);
      }}
    />
  );
}

function Filters() {
  const { filters, total, rows } = useDeliveries();
  const setFilters = useSetFilters();
  const endpointUrl = filters.target_id ? rows.find((d) => d.target.id === filters.target_id)?.target.url : undefined;
  return (
    <>
      <ViewTabs view="list" />
      <div className="list-toolbar delivery-toolbar search-row">
        <SearchBox />
        <span className="muted small count" data-testid="delivery-count" aria-live="polite">
          {total === null ? '' : `${total.toLocaleString('en-US')} ${total === 1 ? 'delivery' : 'deliveries'}`}
        </span>
      </div>
      <div className="list-toolbar delivery-toolbar">
        <select className="input" aria-label="Delivery status" value={filters.status} onChange={(e) => setFilters({ status: e.target.value })}>
          <option value="">any status</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {DELIVERY_FILTER_LABEL[s]}
            </option>
          ))}
          <option value="failing">{DELIVERY_FILTER_LABEL.failing}</option>
        </select>
        <select className="input" aria-label="Event" value={filters.event} onChange={(e) => setFilters({ event: e.target.value })}>
          <option value="">any event</option>
          {[...EMAIL_EVENT_KINDS, 'domain_verification', 'inbound', 'imap_message'].map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      {filters.target_id && (
        <div className="delivery-endpoint-filter small" data-testid="endpoint-filter">
          <span className="muted">Endpoint:</span> <span className="ellipsis">{endpointUrl ?? filters.target_id}</span>
          <button type="button" className="button small" onClick={() => setFilters({ target_id: '' })}>
            Any endpoint
          </button>
        </div>
      )}
    </>
  );
}

const getKey = (d: DeliverySummary) => d.id;
const renderRow = (d: DeliverySummary) => <Row d={d} />;

/** Every webhook request the dispatcher made or will make: live, with each attempt's request and response; and the inbound mail behind the inbound posts. */
export function Deliveries() {
  const view = useSearchParam('view');
  return view === 'endpoints' ? <Endpoints /> : view === 'inbound' ? <InboundMail /> : <DeliveryList />;
}

/** A link's filters (`/deliveries?status=failed`, `?target_id=...&status=failing`, `?q=ann@example.com`); null when it gives none. */
function linkFilters(status: string | null, q: string | null, targetId: string | null, event: string | null, account: string | null): DeliveryFilters | null {
  if (status === null && q === null && targetId === null && event === null && account === null) return null;
  const known = status !== null && (DELIVERY_LIST_STATUSES as readonly string[]).includes(status);
  return { ...NO_FILTERS, status: known ? status : '', q: q ?? '', target_id: targetId ?? '', event: event ?? '', account_id: account ?? '' };
}

function DeliveryList() {
  const source = useDeliveries();
  const { reload, follow, detail, filters, rows, refreshInFlight } = source;
  const [status, q, targetId, event, account] = [
    useSearchParam('status'),
    useSearchParam('q'),
    useSearchParam('target_id'),
    useSearchParam('event'),
    useSearchParam('account'),
  ];
  const mounted = useRef(false);
  useEffect(() => follow(), [follow]);
  // A claimed attempt may go unannounced: while a row is due or in flight, the ones in flight are read again.
  useRefreshWhileInFlight(rows, refreshInFlight, 1500);
  // A link may carry filters (the dashboard's failed deliveries: /deliveries?status=failed; an endpoint's
  // failing ones); without any, the list keeps the filters it had.
  useEffect(() => {
    const fromLink = linkFilters(status, q, targetId, event, account);
    const first = !mounted.current;
    mounted.current = true;
    if (fromLink) useDeliveries.getState().applyLinkFilters(fromLink, first);
    else if (first) {
      void reload();
      // The filters the list kept from before, in the URL too.
      const kept = filtersQuery(useDeliveries.getState().filters);
      if (kept) navigate(window.location.pathname + kept, true);
    }
  }, [status, q, targetId, event, account, reload]);
  const filtered = filters.status !== '' || filters.event !== '' || filters.q !== '' || filters.target_id !== '' || filters.account_id !== '';
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
