import { type KeyboardEvent, type MouseEvent, type RefObject, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { AccountSwitcher, ChosenAccountGone } from './components/AccountSelect';
import { ClockBar } from './components/ClockBar';
import { Link } from './components/Link';
import { Catchers } from './features/catchers/Catchers';
import { Deliveries } from './features/deliveries/Deliveries';
import { Domains } from './features/domains/Domains';
import { FireEvent } from './features/events/FireEvent';
import { Mailers } from './features/mailers/Mailers';
import { Messages } from './features/messages/Messages';
import { Overview } from './features/overview/Overview';
import { Scenarios } from './features/scenarios/Scenarios';
import { SendEmail } from './features/send/SendEmail';
import { Settings } from './features/settings/Settings';
import { Simulation } from './features/simulation/Simulation';
import { StoreFullBanner } from './features/store-space/StoreFullBanner';
import { Suppressions } from './features/suppressions/Suppressions';
import { Webhooks } from './features/webhooks/Webhooks';
import { onLinkClick, usePath, useSearchParam, withAccount } from './router';
import { useClockOffset } from './stores/clock-store';
import { usePresentation } from './stores/presentation-store';
import './components/shell.css';
import { useOverview } from './stores/overview-store';

/**
 * The screens, by path, in the header's order and groups; `hint` says in plain words what each is for
 * (the links' description, shown on hover and read by screen readers). The emulator serves the UI for
 * any non-API path, so each is a deep link.
 */
const SCREENS = [
  { path: '/', group: 'Email', label: 'Overview', hint: 'Start here: what is running and how to send a first email', render: () => <Overview /> },
  { path: '/send', group: 'Email', label: 'Send', hint: 'Send a test email from a form', render: () => <SendEmail /> },
  { path: '/messages', group: 'Email', label: 'Messages', hint: 'Every email sent to Mailyard, with its preview and events', render: () => <Messages /> },
  { path: '/webhooks', group: 'Webhooks', label: 'Webhooks', hint: 'Where Mailyard posts email events (your app’s URLs)', render: () => <Webhooks /> },
  {
    path: '/deliveries',
    group: 'Webhooks',
    label: 'Webhook deliveries',
    hint: 'Every webhook request Mailyard made to your app, with its response and retries (not the “delivery” email event)',
    render: () => <Deliveries />,
  },
  {
    path: '/events',
    group: 'Webhooks',
    label: 'Fire event',
    hint: 'Send one email event (a bounce, an open…) to your webhook by hand',
    render: () => <FireEvent />,
  },
  {
    path: '/catchers',
    group: 'Webhooks',
    label: 'Catchers',
    hint: 'Webhook receivers inside Mailyard: catch, inspect and fail requests without writing a server',
    render: () => <Catchers />,
  },
  {
    path: '/simulation',
    group: 'Testing',
    label: 'Simulation',
    hint: 'What happens to each recipient, and the emulator’s clock',
    render: () => <Simulation />,
  },
  {
    path: '/suppressions',
    group: 'Testing',
    label: 'Suppressions',
    hint: 'Addresses that get no more mail (bounced, complained, unsubscribed)',
    render: () => <Suppressions />,
  },
  {
    path: '/scenarios',
    group: 'Testing',
    label: 'Scenarios',
    hint: 'Run a traffic scenario file against your app and get a report',
    render: () => <Scenarios />,
  },
  { path: '/domains', group: 'Setup', label: 'Domains', hint: 'Sending domains and their DNS records', render: () => <Domains /> },
  { path: '/mailers', group: 'Setup', label: 'Mailers', hint: 'Real SMTP and IMAP servers to relay through or read from', render: () => <Mailers /> },
  { path: '/settings', group: 'Setup', label: 'Settings', hint: 'Accounts, API keys, ports and version', render: () => <Settings /> },
] as const;

/** The header's groups of screens, in order. */
const GROUPS = [...new Set(SCREENS.map((s) => s.group))];

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

/** The skip link: focus goes to the screen's main region (each screen renders its own `<main>`). */
function skipToContent(e: MouseEvent<HTMLAnchorElement>) {
  const main = document.querySelector('main');
  if (!main) return;
  e.preventDefault();
  if (!main.hasAttribute('tabindex')) main.setAttribute('tabindex', '-1');
  if (!main.id) main.id = 'main';
  main.focus();
  main.scrollIntoView({ block: 'start' });
}

type Screen = (typeof SCREENS)[number];

/**
 * Whether the links no longer fit in the header: measured, not guessed from a breakpoint, so no link is
 * ever cut whatever the fonts. The nav takes the room the header leaves it; the links' own width is
 * remembered from when they were shown, to know when they fit again.
 */
function useCollapsed(nav: RefObject<HTMLElement | null>, links: RefObject<HTMLElement | null>): boolean {
  const [collapsed, setCollapsed] = useState(false);
  const natural = useRef(0);
  useLayoutEffect(() => {
    const el = nav.current;
    if (!el) return;
    const check = () => {
      const ul = links.current;
      if (!ul) return;
      const shown = getComputedStyle(ul).position !== 'absolute';
      if (shown) natural.current = ul.scrollWidth;
      const room = el.clientWidth;
      setCollapsed(natural.current > room + 0.5);
    };
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    return () => observer.disconnect();
  }, [nav, links]);
  return collapsed;
}

/**
 * The screens' links. In a wide window they sit in the header; when they do not fit they collapse behind a "Menu" button that opens them as a list: Escape or a choice
 * closes it and gives focus back to the button, arrow keys move between the links, a click outside
 * closes it.
 */
const linksIn = (list: HTMLElement | null) => Array.from(list?.querySelectorAll<HTMLAnchorElement>('a') ?? []);

function Navigation({ current }: { current: Screen | null }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const wrap = useRef<HTMLElement>(null);
  const collapsed = useCollapsed(wrap, list);
  // Read so the links' hrefs follow a change of account.
  useSearchParam('account');
  useEffect(() => {
    if (!collapsed) setOpen(false);
  }, [collapsed]);
  const close = (focusButton: boolean) => {
    setOpen(false);
    if (focusButton) button.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    // Focus goes to the current screen's link (or the first) when the menu opens.
    const all = linksIn(list.current);
    (all.find((a) => a.getAttribute('aria-current') === 'page') ?? all[0])?.focus();
    const onDown = (e: PointerEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open]);
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (!open) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close(true);
      return;
    }
    const all = linksIn(list.current);
    const i = all.indexOf(document.activeElement as HTMLAnchorElement);
    const to = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? all.length - 1 : null;
    if (to === null) return;
    e.preventDefault();
    all[(to + all.length) % all.length]?.focus();
  };
  return (
    <nav ref={wrap} className={`nav${collapsed ? ' collapsed' : ''}${open ? ' open' : ''}`} aria-label="Screens" onKeyDown={onKeyDown}>
      <button ref={button} type="button" className="nav-toggle button" aria-expanded={open} aria-controls="nav-links" onClick={() => setOpen((o) => !o)}>
        <svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true">
          <path d="M3 6h18M3 12h18M3 18h18" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" />
        </svg>
        Menu{current ? <span className="nav-current">: {current.label}</span> : null}
      </button>
      <div ref={list} id="nav-links" className="nav-links">
        {GROUPS.map((group) => (
          <ul key={group} className="nav-group" aria-label={group}>
            <li className="nav-group-name" aria-hidden="true">
              {group}
            </li>
            {SCREENS.filter((s) => s.group === group).map((s) => (
              <li key={s.path}>
                <a
                  href={withAccount(s.path)}
                  title={s.hint}
                  aria-current={s === current ? 'page' : undefined}
                  onClick={(e) => {
                    onLinkClick(e, s.path);
                    if (open) close(true);
                  }}
                >
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        ))}
      </div>
    </nav>
  );
}

/**
 * The header's badge: whether the emulator answers and, when it does, whether its clock runs (at which
 * speed, when not real time) or is paused, so a presenter sees at a glance why nothing happens.
 */
function ClockStatus({ reachable, unreachable, speed }: { reachable: boolean; unreachable: boolean; speed: number | undefined }) {
  const paused = reachable && speed === 0;
  const text = !reachable
    ? unreachable
      ? 'Unreachable'
      : 'Connecting…'
    : paused
      ? 'Paused'
      : speed !== undefined && speed !== 1
        ? `Running ${speed}×`
        : 'Running';
  return (
    <span className={`status ${paused ? 'paused' : reachable ? 'ok' : unreachable ? 'bad' : ''}`} role="status" data-testid="header-status">
      {text}
    </span>
  );
}

/** The presentation zoom's switch: larger type and rows on every screen, remembered by this browser. */
function PresentationToggle() {
  const { on, toggle } = usePresentation();
  return (
    <button
      type="button"
      className={`button small presentation-toggle${on ? ' on' : ''}`}
      aria-pressed={on}
      data-testid="presentation-toggle"
      title="Larger type and rows on every screen, readable from the back of a room (this browser remembers it)"
      onClick={toggle}
    >
      <svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true">
        <path d="M3 4h18v12H3zM12 16v4M8 20h8" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />
      </svg>
      Presentation zoom
    </button>
  );
}

export function App() {
  const path = usePath();
  const { health, error, load, follow: followAccounts } = useOverview();
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => followAccounts(), [followAccounts]);
  const { sync, follow } = useClockOffset();
  useEffect(() => {
    void sync();
    return follow();
  }, [sync, follow]);
  const speed = useClockOffset((s) => s.clock?.speed);
  const presenting = usePresentation((s) => s.on);
  useEffect(() => {
    document.documentElement.classList.toggle('presenting', presenting);
  }, [presenting]);
  // An unknown path is no screen: it shows "Page not found" rather than quietly showing Overview.
  const screen = path === '/' || path === '' ? SCREENS[0] : (SCREENS.find((s) => s.path !== '/' && (path === s.path || path.startsWith(`${s.path}/`))) ?? null);
  useEffect(() => {
    document.title = !screen ? 'Page not found · Mailyard' : screen.path === '/' ? 'Mailyard' : `${screen.label} · Mailyard`;
  }, [screen]);
  return (
    <div className="page">
      {/* biome-ignore lint/a11y/useValidAnchor: a real link to #main that works without script; the click also moves the focus there */}
      <a className="skip-link" href="#main" onClick={skipToContent}>
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href="/" onClick={(e) => onLinkClick(e, '/')}>
          <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true">
            <rect x="2" y="5" width="20" height="14" rx="2.5" fill="none" stroke="currentColor" strokeWidth="2" />
            <path d="M3 7l9 6 9-6" fill="none" stroke="currentColor" strokeWidth="2" />
          </svg>
          Mailyard
        </a>
        {health && <span className="muted small">v{health.version}</span>}
        <Navigation current={screen} />
        <div className="topbar-tools">
          <AccountSwitcher />
          <ClockStatus reachable={health !== null} unreachable={error !== null} speed={speed} />
          <ClockBar />
          <span className="spacer" />
          <PresentationToggle />
        </div>
      </header>
      <StoreFullBanner />
      <ChosenAccountGone />
      {screen ? screen.render() : <NotFound path={path} />}
    </div>
  );
}
