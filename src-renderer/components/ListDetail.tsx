import { type KeyboardEvent as ReactKeyboardEvent, type ReactNode, useCallback, useEffect, useRef } from 'react';
import { idAfter, navigate, usePath } from '../router';
import { VirtualList } from './VirtualList';

/** What the screen's store gives the list. */
interface ListSource<T> {
  rows: T[];
  loading: boolean;
  error: string | null;
  nextCursor: string | null;
  detailError: string | null;
  loadMore: () => Promise<void>;
  setAtTop: (atTop: boolean) => void;
  select: (id: string | null) => Promise<void>;
}

interface ListDetailProps<T> {
  /** The list pane's name ("Messages"); the detail pane's is `itemName` ("Message"). */
  name: string;
  itemName: string;
  /** The screen's path: an item opens at `basePath/<its key>`. */
  basePath: string;
  source: ListSource<T>;
  getKey: (item: T) => string;
  renderRow: (item: T) => ReactNode;
  rowHeight: number;
  /** The list's accessible name, and its test id. */
  listLabel: string;
  testId: string;
  filters: ReactNode;
  /** Whether any filter is set: an empty list then says `noMatch` instead of showing `empty`. */
  filtered: boolean;
  empty: ReactNode;
  noMatch: string;
  /** The open item's pane, once it is loaded. */
  detail: ReactNode | null;
  /** What shows while nothing is open. */
  hint: ReactNode;
}

/** The list pane's search box (a text field of its filters), where Up from the list's first row goes. */
const SEARCH_BOX = 'input[type=search], input:not([type])';

/**
 * A live list beside its open item (the Messages and Deliveries screens): the item named in the path is
 * opened, Enter on a row opens it, Escape closes it (unless typing in a field) and gives the focus to the
 * list, on the row that was open. Down in the search box goes to the list, Up from its first row back.
 */
const listboxIn = (pane: HTMLElement | null) => pane?.querySelector<HTMLElement>('[role=listbox]') ?? null;

export function ListDetail<T>(p: ListDetailProps<T>) {
  const { basePath, source, getKey } = p;
  const selectedId = idAfter(usePath(), basePath);
  const { select } = source;
  const pane = useRef<HTMLElement>(null);
  /** Set by Escape: once the item has closed (and the list shows again in a narrow window), the list gets the focus. */
  const focusList = useRef(false);
  useEffect(() => {
    void select(selectedId);
    if (selectedId === null && focusList.current) {
      focusList.current = false;
      (listboxIn(pane.current) ?? pane.current?.querySelector<HTMLElement>(SEARCH_BOX))?.focus();
    }
  }, [selectedId, select]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement;
      // An open dialog (a confirmation) takes its own Escape.
      if (e.key !== 'Escape' || typing || e.defaultPrevented || document.querySelector('dialog[open]')) return;
      if (!window.location.pathname.startsWith(`${basePath}/`)) return;
      focusList.current = true;
      navigate(basePath + window.location.search);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [basePath]);
  const toList = (e: ReactKeyboardEvent<HTMLElement>) => {
    if (e.key !== 'ArrowDown' || !(e.target instanceof HTMLInputElement) || !e.target.matches(SEARCH_BOX)) return;
    const list = listboxIn(pane.current);
    if (!list) return;
    e.preventDefault();
    list.focus();
  };
  const toSearch = useCallback(() => pane.current?.querySelector<HTMLElement>(SEARCH_BOX)?.focus(), []);
  // The list's filters in the query string stay as they are.
  const open = useCallback((item: T) => navigate(`${basePath}/${getKey(item)}${window.location.search}`), [basePath, getKey]);

  return (
    <main className={`split${selectedId ? ' has-detail' : ''}`}>
      <section ref={pane} className="list-pane" aria-label={p.name} onKeyDown={toList}>
        {p.filters}
        {source.error && (
          <p className="error pad" role="alert">
            {source.error}
          </p>
        )}
        {!source.loading && source.rows.length === 0 ? (
          p.filtered ? (
            <p className="muted pad">{p.noMatch}</p>
          ) : (
            p.empty
          )
        ) : (
          <VirtualList
            items={source.rows}
            rowHeight={p.rowHeight}
            getKey={getKey}
            renderRow={p.renderRow}
            selectedKey={selectedId}
            onOpen={open}
            onEndReached={source.loadMore}
            hasMore={source.nextCursor !== null}
            onTopChange={source.setAtTop}
            label={p.listLabel}
            onUpFromTop={toSearch}
            testId={p.testId}
          />
        )}
      </section>
      <section className="detail-pane" aria-label={p.itemName}>
        {source.detailError && <p className="error pad">{source.detailError}</p>}
        {selectedId && p.detail ? (
          p.detail
        ) : selectedId && !source.detailError ? (
          <p className="muted pad">Loading…</p>
        ) : (
          !selectedId && <div className="hint">{p.hint}</div>
        )}
      </section>
    </main>
  );
}
