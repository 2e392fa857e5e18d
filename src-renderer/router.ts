import { type MouseEvent, useSyncExternalStore } from 'react';

/** Client-side routing by path: the emulator serves the UI for any non-API path, so each screen is a deep link. */
function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
}

const currentPath = () => window.location.pathname;

export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

/** The query string's value of `name` (`/messages?q=...` gives the search), following navigation. */
export function useSearchParam(name: string): string | null {
  const search = useSyncExternalStore(subscribe, currentSearch);
  return new URLSearchParams(search).get(name);
}

const currentSearch = () => window.location.search;

/**
 * `path` with the current `?account=` added when it names no account of its own: the account chosen in
 * the header stays chosen from link to link.
 */
export function withAccount(path: string): string {
  const account = new URLSearchParams(window.location.search).get('account');
  const url = new URL(path, window.location.origin);
  if (!account || url.searchParams.has('account')) return path;
  url.searchParams.set('account', account);
  return url.pathname + url.search + url.hash;
}

/**
 * Navigates within the UI; `path` may carry a query string (`/messages?q=01J...`). A link (a new history
 * entry) keeps the chosen account; a replacement is the screen rewriting its own URL (its filters, the
 * account chosen or cleared) and is taken as given.
 */
export function navigate(to: string, replace = false): void {
  const path = replace ? to : withAccount(to);
  if (window.location.pathname + window.location.search === path) return;
  if (replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** For `<a href onClick>`: a plain left click navigates in place; modified clicks keep the browser's behaviour. */
export function onLinkClick(e: MouseEvent<HTMLAnchorElement>, path: string): void {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(path);
}

/** The path segment after a screen's prefix: `/messages/01H...` gives `01H...`. */
export function idAfter(path: string, prefix: string): string | null {
  if (!path.startsWith(`${prefix}/`)) return null;
  const id = decodeURIComponent(path.slice(prefix.length + 1).split('/')[0] ?? '');
  return id || null;
}
