import { useEffect } from 'react';
import { Deliveries } from './features/deliveries/Deliveries';
import { Domains } from './features/domains/Domains';
import { FireEvent } from './features/events/FireEvent';
import { Mailers } from './features/mailers/Mailers';
import { Messages } from './features/messages/Messages';
import { Overview } from './features/overview/Overview';
import { SendEmail } from './features/send/SendEmail';
import { Settings } from './features/settings/Settings';
import { Simulation } from './features/simulation/Simulation';
import { Webhooks } from './features/webhooks/Webhooks';
import { Link } from './components/Link';
import { onLinkClick, usePath } from './router';
import { useClockOffset } from './stores/clock-store';
import { useOverview } from './stores/overview-store';

/** The screens, by path. The emulator serves the UI for any non-API path, so each is a deep link. */
const SCREENS = [
  { path: '/', label: 'Overview', render: () => <Overview /> },
  { path: '/messages', label: 'Messages', render: () => <Messages /> },
  { path: '/deliveries', label: 'Deliveries', render: () => <Deliveries /> },
  { path: '/send', label: 'Send', render: () => <SendEmail /> },
  { path: '/events', label: 'Fire event', render: () => <FireEvent /> },
  { path: '/webhooks', label: 'Webhooks', render: () => <Webhooks /> },
  { path: '/simulation', label: 'Simulation', render: () => <Simulation /> },
  { path: '/domains', label: 'Domains', render: () => <Domains /> },
  { path: '/mailers', label: 'Mailers', render: () => <Mailers /> },
  { path: '/settings', label: 'Settings', render: () => <Settings /> },
] as const;

/** What an unknown path shows: says so, with the way home. */
function NotFound({ path }: { path: string }) {
  return (
    <main>
      <section className="card empty" aria-labelledby="not-found" data-testid="not-found">
        <h2 id="not-found">Page not found</h2>
        <p className="muted">
          There is no screen at <code>{path}</code>.
        </p>
        <p>
          <Link to="/">Go to Overview</Link>
        </p>
      </section>
    </main>
  );
}

export function App() {
  const path = usePath();
  const { health, error, load } = useOverview();
  useEffect(() => {
    void load();
  }, [load]);
  const { sync, follow } = useClockOffset();
  useEffect(() => {
    void sync();
    return follow();
  }, [sync, follow]);
  // An unknown path is no screen: it shows "Page not found" rather than quietly showing Overview.
  const screen = path === '/' || path === '' ? SCREENS[0] : (SCREENS.find((s) => s.path !== '/' && (path === s.path || path.startsWith(`${s.path}/`))) ?? null);
  useEffect(() => {
    document.title = !screen ? 'Page not found · Mailyard' : screen.path === '/' ? 'Mailyard' : `${screen.label} · Mailyard`;
  }, [screen]);
  return (
    <div className="page">
      <header className="topbar">
        <a className="brand" href="/" onClick={(e) => onLinkClick(e, '/')}>
          <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true">
            <rect x="2" y="5" width="20" height="14" rx="2.5" fill="none" stroke="currentColor" strokeWidth="2" />
            <path d="M3 7l9 6 9-6" fill="none" stroke="currentColor" strokeWidth="2" />
          </svg>
          Mailyard
        </a>
        {health && <span className="muted small">v{health.version}</span>}
        <nav className="nav" aria-label="Screens">
          {SCREENS.map((s) => (
            <a key={s.path} href={s.path} aria-current={s === screen ? 'page' : undefined} onClick={(e) => onLinkClick(e, s.path)}>
              {s.label}
            </a>
          ))}
        </nav>
        <span className={`status ${health ? 'ok' : error ? 'bad' : ''}`} role="status">
          {health ? 'Running' : error ? 'Unreachable' : 'Connecting…'}
        </span>
      </header>
      {screen ? screen.render() : <NotFound path={path} />}
    </div>
  );
}
