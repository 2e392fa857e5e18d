import { describeError } from '../api/clients';

/** The first page fills a tall window with room to scroll; the pages after it are bigger. */
const FIRST_PAGE = 60;
const PAGE = 200;
/** Live rows beyond this, while the view is at the top, are dropped by reloading the first page (memory stays bounded under load). */
const LIVE_CAP = 2000;
/** At most one such reload in this long. */
const TRIM_EVERY_MS = 5000;

/** What a live list store holds of its list. */
export interface ListState<Row> {
  rows: Row[];
  nextCursor: string | null;
  loading: boolean;
  loadingMore: boolean;
  error: string | null;
}

/** What a live list store holds of its open item. */
export interface DetailState {
  selected: string | null;
  detailError: string | null;
}

type Setter<S> = (partial: Partial<S>) => void;

export interface Page<Row, S = unknown> {
  rows: Row[];
  nextCursor: string | null;
  /** What else a first page's answer tells, set with its rows (later pages' is ignored). */
  state?: Partial<S>;
}

/**
 * Paging for a list that live updates add to at the top: the first page (a reload, which makes every
 * answer still on its way to an earlier one stale), the next pages by cursor, and a reload that trims
 * rows piled up from live updates while the view is at the top.
 */
export function pagedList<Row, S extends ListState<Row>>(
  set: Setter<S>,
  get: () => S,
  options: {
    fetch: (page: { limit: number; cursor?: string }) => Promise<Page<Row, S>>;
    /** The first page as shown (rows that arrived live during the reload can be added to it, and to what it counts). */
    firstPage?: (page: Page<Row, S>) => Page<Row, S>;
    /** Runs after the first page is shown; `current` says whether no reload has started since. */
    afterFirstPage?: (current: () => boolean) => Promise<void>;
  },
) {
  let generation = 0;
  let atTop = true;
  let lastTrim = 0;

  const reload = async (): Promise<void> => {
    const gen = ++generation;
    const current = () => gen === generation;
    set({ loading: true, error: null } as Partial<S>);
    try {
      const answered = await options.fetch({ limit: FIRST_PAGE });
      if (!current()) return;
      const page = options.firstPage ? options.firstPage(answered) : answered;
      // The rows and what the answer says of them (a count) are set together: the screen never shows one answer's rows beside another's count.
      set({ ...page.state, rows: page.rows, nextCursor: page.nextCursor, loading: false } as Partial<S>);
      await options.afterFirstPage?.(current);
    } catch (err) {
      if (current()) set({ error: describeError(err), loading: false } as Partial<S>);
    }
  };

  const loadMore = async (): Promise<void> => {
    const { nextCursor, loadingMore } = get();
    if (!nextCursor || loadingMore) return;
    const gen = generation;
    set({ loadingMore: true } as Partial<S>);
    try {
      const page = await options.fetch({ limit: PAGE, cursor: nextCursor });
      if (gen === generation) set({ rows: [...get().rows, ...page.rows], nextCursor: page.nextCursor } as Partial<S>);
    } catch (err) {
      set({ error: describeError(err) } as Partial<S>);
    } finally {
      set({ loadingMore: false } as Partial<S>);
    }
  };

  return {
    reload,
    loadMore,
    /** The list's view is at the top: rows that pile up from live updates may be trimmed. */
    setAtTop: (value: boolean) => {
      atTop = value;
    },
    /** A list mounts scrolled to the top. */
    mounted: () => {
      atTop = true;
    },
    /** After live rows were added: reloads the first page when they pile up while the view is at the top. */
    trimIfLong: () => {
      if (get().rows.length > LIVE_CAP && atTop && !get().loading && Date.now() - lastTrim > TRIM_EVERY_MS) {
        lastTrim = Date.now();
        void reload();
      }
    },
  };
}

/**
 * The open item of a list: loads it (and whatever goes with it) for the selection, ignoring answers
 * for an item no longer selected, and reloads it shortly after live changes to it.
 */
export function openItem<S extends DetailState>(set: Setter<S>, get: () => S, load: (id: string) => Promise<Partial<S>>, refreshDelayMs: number) {
  let timer: number | undefined;
  const refresh = async (): Promise<void> => {
    const id = get().selected;
    if (!id) return;
    try {
      const loaded = await load(id);
      if (get().selected === id) set({ ...loaded, detailError: null });
    } catch (err) {
      if (get().selected === id) set({ detailError: describeError(err) } as Partial<S>);
    }
  };
  return {
    refresh,
    /** Reloads the open item soon (several live changes in a row make one reload). */
    refreshSoon: () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void refresh(), refreshDelayMs);
    },
  };
}

/** Collects live announcements and hands them over in one batch per `ms` (one new rows array, not one per event). */
export function batched(flush: () => void, ms = 100): () => void {
  let timer: number | undefined;
  return () => {
    if (timer !== undefined) return;
    timer = window.setTimeout(() => {
      timer = undefined;
      flush();
    }, ms);
  };
}
