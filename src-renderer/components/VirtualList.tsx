import { type KeyboardEvent, type ReactNode, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface VirtualListProps<T> {
  items: readonly T[];
  /** Every row is this tall (px): the list renders only the rows in view, whatever their number. */
  rowHeight: number;
  getKey: (item: T) => string;
  renderRow: (item: T, index: number, active: boolean) => ReactNode;
  /** The key of the open item (highlighted, and where keyboard navigation starts). */
  selectedKey: string | null;
  onOpen: (item: T) => void;
  /** Called when the user scrolls near the end and more can be loaded. */
  onEndReached?: () => void;
  hasMore?: boolean;
  label: string;
  testId?: string;
  /** Hears whether the view is at the top (a store may then trim rows that piled up below). */
  onTopChange?: (atTop: boolean) => void;
  /** Up (or k) on the first row: the focus may go back where it came from (the search box). */
  onUpFromTop?: () => void;
  /** Extra rows rendered above and below the view, so fast scrolling does not show blanks. */
  overscan?: number;
}

/** How long a row that arrived live stays marked (shell.css fades the mark over this time). */
export const ARRIVED_MS = 3000;

/**
 * The keys of rows that arrived live, each for ARRIVED_MS: a list marks them so a person watching sees
 * what just came (shell.css: a fading tint, or with reduced motion a still bar that goes at once).
 */
export function useArrivals(): { keys: ReadonlySet<string>; mark: (keys: readonly string[]) => void } {
  const [keys, setKeys] = useState<ReadonlySet<string>>(() => new Set());
  const timers = useRef(new Set<number>());
  useEffect(() => {
    const all = timers.current;
    return () => {
      for (const t of all) window.clearTimeout(t);
    };
  }, []);
  const mark = useCallback((fresh: readonly string[]) => {
    if (fresh.length === 0) return;
    setKeys((s) => new Set([...s, ...fresh]));
    const t = window.setTimeout(() => {
      timers.current.delete(t);
      setKeys((s) => new Set([...s].filter((k) => !fresh.includes(k))));
    }, ARRIVED_MS);
    timers.current.add(t);
  }, []);
  return { keys, mark };
}

/**
 * A windowed list: a spacer as tall as all rows, and only the visible ones rendered, absolutely
 * positioned. Up/down (and j/k, Home/End, PageUp/PageDown) move the active row, Enter opens it; Up on
 * the first row calls `onUpFromTop` (back to the search box).
 * When rows are added at the top (live updates) while scrolled down, the view stays where it was.
 */
export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, rowHeight, getKey, renderRow, selectedKey, onOpen, onEndReached, hasMore, label, testId, onTopChange, onUpFromTop, overscan = 8 } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [active, setActive] = useState(0);
  /** Rows that arrived above while the view was scrolled down (a pill offers to go up to them). */
  const [newAbove, setNewAbove] = useState(0);
  const firstKey = useRef<string | null>(null);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setHeight(el.clientHeight);
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const arrived = useArrivals();

  // Rows prepended above the first one arrived live: they are marked for a moment, and when the view is
  // scrolled down they push the scroll position down by as many rows (anchoring).
  useLayoutEffect(() => {
    const el = ref.current;
    const prev = firstKey.current;
    firstKey.current = items.length ? getKey(items[0]!) : null;
    if (prev === null || prev === firstKey.current) return;
    const limit = Math.min(items.length, 5000);
    for (let i = 1; i < limit; i++) {
      if (getKey(items[i]!) !== prev) continue;
      arrived.mark(items.slice(0, i).map(getKey));
      if (!el || el.scrollTop < rowHeight) return;
      el.scrollTop += i * rowHeight;
      setActive((a) => a + i);
      setNewAbove((n) => n + i);
      return;
    }
  }, [items, getKey, rowHeight, arrived.mark]);

  // The active row follows the open one when another opens; otherwise it stays on its row as rows change
  // (a live status update must not move it back while the keyboard moves it).
  const activeKey = useRef<string | null>(null);
  const followed = useRef<string | null>(null);
  useEffect(() => {
    const opened = selectedKey !== null && selectedKey !== followed.current;
    if (selectedKey === null) followed.current = null;
    const key = opened ? selectedKey : activeKey.current;
    if (key === null) return;
    const i = items.findIndex((it) => getKey(it) === key);
    if (i < 0) return;
    setActive(i);
    activeKey.current = key;
    if (opened) {
      followed.current = key;
      // The open row is in view (a deep link may open one far down the list).
      const el = ref.current;
      if (el && (i * rowHeight < el.scrollTop || (i + 1) * rowHeight > el.scrollTop + el.clientHeight)) {
        el.scrollTop = Math.max(0, i * rowHeight - Math.max(0, (el.clientHeight - rowHeight) / 2));
      }
    }
  }, [selectedKey, items, getKey, rowHeight]);
  const moveTo = (i: number) => {
    setActive(i);
    activeKey.current = items[i] ? getKey(items[i]) : null;
  };

  const start = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const end = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan);

  useEffect(() => {
    if (hasMore && onEndReached && end >= items.length - overscan * 2) onEndReached();
  }, [end, items.length, hasMore, onEndReached, overscan]);

  const scrollIntoView = useCallback(
    (i: number) => {
      const el = ref.current;
      if (!el) return;
      const top = i * rowHeight;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
    },
    [rowHeight],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (items.length === 0) return;
    const page = Math.max(1, Math.floor(height / rowHeight) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity };
    const move = moves[e.key];
    if (move === -1 && active === 0 && onUpFromTop) {
      e.preventDefault();
      onUpFromTop();
    } else if (move !== undefined) {
      e.preventDefault();
      const next = Math.max(0, Math.min(items.length - 1, active + (Number.isFinite(move) ? move : move > 0 ? items.length : -items.length)));
      moveTo(next);
      scrollIntoView(next);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const item = items[Math.min(active, items.length - 1)];
      if (item) onOpen(item);
    }
  };

  const rows: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const item = items[i]!;
    const key = getKey(item);
    rows.push(
      // biome-ignore lint/a11y/useFocusableInteractive: an option of a listbox: the focus stays on the listbox, which points at the active row
      // biome-ignore lint/a11y/useKeyWithClickEvents: an option of a listbox: the listbox takes the keys (arrows, Enter), the row a pointer's click
      <div
        key={key}
        id={`row-${key}`}
        role="option"
        aria-selected={key === selectedKey}
        className={`vrow${key === selectedKey ? ' selected' : ''}${i === active ? ' active' : ''}${arrived.keys.has(key) ? ' arrived' : ''}`}
        style={{ top: i * rowHeight, height: rowHeight }}
        onClick={() => {
          moveTo(i);
          onOpen(item);
        }}
      >
        {renderRow(item, i, i === active)}
      </div>,
    );
  }
  const activeItem = items[active];
  return (
    <div className="vlist-wrap">
      {newAbove > 0 && (
        <button
          type="button"
          className="new-above"
          onClick={() => {
            if (ref.current) ref.current.scrollTop = 0;
            setNewAbove(0);
          }}
        >
          ↑ {newAbove} new
        </button>
      )}
      <div
        ref={ref}
        className="vlist"
        role="listbox"
        aria-label={label}
        tabIndex={0}
        data-testid={testId}
        aria-activedescendant={activeItem ? `row-${getKey(activeItem)}` : undefined}
        onKeyDown={onKeyDown}
        onScroll={(e) => {
          const top = e.currentTarget.scrollTop;
          if (top < rowHeight !== scrollTop < rowHeight) onTopChange?.(top < rowHeight);
          setScrollTop(top);
          if (top < rowHeight) setNewAbove(0);
        }}
      >
        <div className="vspacer" style={{ height: items.length * rowHeight + (hasMore ? rowHeight : 0) }}>
          {rows}
          {hasMore && (
            <div className="vrow loading muted" style={{ top: items.length * rowHeight, height: rowHeight }}>
              Loading more…
            </div>
          )}
        </div>
      </div>
    </div>
  );
}
