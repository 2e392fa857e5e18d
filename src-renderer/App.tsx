import { useEffect, useSyncExternalStore, type MouseEvent } from 'react';
import { Domains } from './features/domains/Domains';
import { Overview } from './features/overview/Overview';
import { useOverview } from './stores/overview-store';

/** The screens, by path. The emulator serves the UI for any non-API path, so each is a deep link. */
const SCREENS = [
  { path: '/', label: 'Overview', render: () => <Overview /> },
  { path: '/domains', label: 'Domains', render: () => <Domains /> },
] as const;

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
}

const currentPath = () => window.location.pathname;

function navigate(e: MouseEvent<HTMLAnchorElement>, path: string): void {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  if (window.location.pathname !== path) {
    window.history.pushState(null, '', path);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }
}

export function App() {
  const path = useSyncExternalStore(subscribe, currentPath);
  const { health, error, load } = useOverview();
  useEffect(() => {
    void load();
  }, [load]);
  const screen = SCREENS.find((s) => s.path !== '/' && (path === s.path || path.startsWith(`${s.path}/`))) ?? SCREENS[0];
  return (
    <div className="page">
      <header className="topbar">
        <span className="brand">Mailyard</span>
        {health && <span className="muted">v{health.version}</span>}
        <nav className="nav" aria-label="Screens">
          {SCREENS.map((s) => (
            <a key={s.path} href={s.path} aria-current={s === screen ? 'page' : undefined} onClick={(e) => navigate(e, s.path)}>
              {s.label}
            </a>
          ))}
        </nav>
        <span className={`status ${health ? 'ok' : error ? 'bad' : ''}`} role="status">
          {health ? 'Running' : error ? 'Unreachable' : 'Connecting…'}
        </span>
      </header>
      {screen.render()}
    </div>
  );
}
