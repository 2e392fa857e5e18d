import { type ReactNode, useEffect } from 'react';
import { live } from '../../api/live';
import { DELIVERY_STATE_MEANING } from '../../components/delivery-state';
import { onLinkClick } from '../../router';
import { useDeliveries } from '../../stores/deliveries-store';
import { RetryFailing } from './RetryFailing';

/** An in-app link that can also run `onClick` (a plain left click) and be marked current. */
function ScreenLink(p: { to: string; className?: string; title?: string; current?: boolean; onClick?: () => void; children: ReactNode }) {
  return (
    <a
      href={p.to}
      className={p.className}
      title={p.title}
      aria-current={p.current ? 'page' : undefined}
      onClick={(e) => {
        if (e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey) p.onClick?.();
        onLinkClick(e, p.to);
      }}
    >
      {p.children}
    </a>
  );
}

/** The screen's views: every delivery, one row per endpoint, or the inbound mail routing accepted or refused. */
export function ViewTabs({ view }: { view: 'list' | 'endpoints' | 'inbound' }) {
  return (
    <nav className="tabs delivery-views" aria-label="Webhook deliveries views">
      <ScreenLink to="/deliveries" className={`tab${view === 'list' ? ' on' : ''}`} current={view === 'list'}>
        All webhook deliveries
      </ScreenLink>
      <ScreenLink to="/deliveries?view=endpoints" className={`tab${view === 'endpoints' ? ' on' : ''}`} current={view === 'endpoints'}>
        By endpoint
      </ScreenLink>
      <ScreenLink to="/deliveries?view=inbound" className={`tab${view === 'inbound' ? ' on' : ''}`} current={view === 'inbound'}>
        Inbound mail
      </ScreenLink>
    </nav>
  );
}

/**
 * A view of Deliveries that is one pane across the window (By endpoint, Inbound mail): its tabs, the
 * error of its last load, what it lists, and its help under it.
 */
export function DeliveriesViewPane({
  view,
  label,
  error,
  help,
  children,
}: {
  view: 'endpoints' | 'inbound';
  label: string;
  error: string | null;
  help: ReactNode;
  children: ReactNode;
}) {
  return (
    <main className="endpoints-view">
      <section className="list-pane" aria-label={label}>
        <ViewTabs view={view} />
        {error && (
          <p className="error pad" role="alert">
            {error}
          </p>
        )}
        {children}
        <div className="endpoints-help muted small">{help}</div>
      </section>
    </main>
  );
}

const percent = (rate: number | null) => (rate === null ? '–' : `${(Math.round(rate * 1000) / 10).toLocaleString('en-US')}%`);

/** One row per target deliveries go to: counts by status, failing ones, and the failure rate of its attempts. */
export function Endpoints() {
  const { endpoints, endpointsError, loadEndpoints } = useDeliveries();
  useEffect(() => {
    void loadEndpoints();
    // A change announced before the live stream was up (or while it was down) is read on its (re)connection.
    const offs = [
      live.on('delivery.updated', () => refreshSoon()),
      live.on('delivery.created', () => refreshSoon()),
      live.onReconnect(() => void loadEndpoints()),
    ];
    let timer: number | undefined;
    function refreshSoon() {
      timer ??= window.setTimeout(() => {
        timer = undefined;
        void loadEndpoints();
      }, 1000);
    }
    return () => {
      for (const off of offs) off();
      window.clearTimeout(timer);
    };
  }, [loadEndpoints]);
  return (
    // One pane across the window: the counts are what this view is for (beside a help pane, a 1,280 px
    // window hid Failed, Failing and Failure rate in a pane scrolling sideways).
    <DeliveriesViewPane
      view="endpoints"
      label="Endpoints"
      error={endpointsError}
      help={
        <>
          <p>Each endpoint with its deliveries by status. Failing: {DELIVERY_STATE_MEANING.failing}.</p>
          <p>The failure rate counts attempts: failed attempts over all attempts to that endpoint.</p>
        </>
      }
    >
      {endpoints === null ? null : endpoints.length === 0 ? (
        <p className="muted pad" data-testid="endpoints-empty">
          No delivery yet: each endpoint deliveries go to (a webhook, an inbound route, an IMAP webhook) shows here with its failure rate.
        </p>
      ) : (
        <div className="endpoints-scroll">
          <table className="endpoints" data-testid="endpoint-list">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col" className="num">
                  Deliveries
                </th>
                <th scope="col" className="num">
                  Succeeded
                </th>
                <th scope="col" className="num">
                  Failed
                </th>
                <th scope="col" className="num">
                  Pending
                </th>
                <th scope="col" className="num" title={`Failing: ${DELIVERY_STATE_MEANING.failing}`}>
                  Failing
                </th>
                <th scope="col" className="num" title="Failed attempts over attempts">
                  Failure rate
                </th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((e) => {
                const path = (status: string) => `/deliveries?target_id=${encodeURIComponent(e.target.id)}${status ? `&status=${status}` : ''}`;
                return (
                  <tr key={`${e.target.kind}:${e.target.id}`} data-testid="endpoint" className={e.failing > 0 ? 'has-failing' : ''}>
                    <td className="endpoint-url">
                      <div className="endpoint-name">
                        <ScreenLink to={path('')} className="ellipsis" title={e.target.url}>
                          {e.target.url}
                        </ScreenLink>
                        <span className="muted small">{e.target.kind.replace(/_/g, ' ')}</span>
                      </div>
                      {e.failed + e.failing > 0 && (
                        <div className="endpoint-actions">
                          <RetryFailing endpoint={e} />
                        </div>
                      )}
                    </td>
                    <td className="num">{e.deliveries}</td>
                    <td className="num">{e.succeeded}</td>
                    <td className="num">{e.failed}</td>
                    <td className="num">{e.pending}</td>
                    <td className="num">
                      {e.failing > 0 ? (
                        <ScreenLink to={path('failing')} className="failing-link">
                          {e.failing} failing
                        </ScreenLink>
                      ) : (
                        <span className="muted">0</span>
                      )}
                    </td>
                    <td className="num" data-testid="failure-rate" title={`${e.failed_attempts} of ${e.attempts} attempts failed`}>
                      {percent(e.failure_rate)}
                      <span className="muted small">
                        {' '}
                        ({e.failed_attempts}/{e.attempts})
                      </span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </DeliveriesViewPane>
  );
}
