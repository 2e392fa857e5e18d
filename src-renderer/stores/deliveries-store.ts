import { create } from 'zustand';
import type { DeliveryDetail, DeliverySummary } from '../../src-shared/schemas/dispatch';
import { control, describeError } from '../api/clients';
import { live } from '../api/live';

export interface DeliveryFilters {
  status: string;
  event: string;
  ref_id: string;
}

/** The first page fills a tall window with room to scroll; the pages after it are bigger. */
const FIRST_PAGE = 60;
const PAGE = 200;
/** Live rows beyond this, while the view is at the top, are dropped by reloading the first page (memory stays bounded under load). */
const LIVE_CAP = 2000;

interface DeliveriesState {
  rows: DeliverySummary[];
  nextCursor: string | null;
  loading: boolean;
  loadingMore: boolean;
  error: string | null;
  filters: DeliveryFilters;
  selected: string | null;
  detail: DeliveryDetail | null;
  detailError: string | null;
  retrying: boolean;
  notice: string | null;
  setFilters: (f: Partial<DeliveryFilters>) => void;
  reload: () => Promise<void>;
  loadMore: () => Promise<void>;
  select: (id: string | null) => Promise<void>;
  refreshDetail: () => Promise<void>;
  retry: (id: string) => Promise<void>;
  follow: () => () => void;
  /** The list's view is at the top: rows that pile up from live updates may be trimmed. */
  setAtTop: (atTop: boolean) => void;
}

const query = (f: DeliveryFilters) => ({
  ...(f.status ? { status: f.status as DeliverySummary['status'] } : {}),
  ...(f.event ? { event: f.event } : {}),
  ...(f.ref_id.trim() ? { ref_id: f.ref_id.trim() } : {}),
});

function matches(d: DeliverySummary, f: DeliveryFilters): boolean {
  return (!f.status || d.status === f.status) && (!f.event || d.event === f.event) && (!f.ref_id.trim() || d.ref_id === f.ref_id.trim());
}

export const useDeliveries = create<DeliveriesState>((set, get) => {
  let generation = 0;
  let pending = new Map<string, DeliverySummary>();
  let flushTimer: number | undefined;
  let detailTimer: number | undefined;
  let atTop = true;
  let lastTrim = 0;

  const flush = () => {
    flushTimer = undefined;
    const { rows, filters, selected } = get();
    const batch = pending;
    pending = new Map();
    const next = [...rows];
    const index = new Map<string, number>();
    // Live changes concern recent deliveries: look for them near the top first.
    for (let i = 0; i < next.length && index.size < batch.size && i < 20_000; i++) if (batch.has(next[i]!.id)) index.set(next[i]!.id, i);
    const added: DeliverySummary[] = [];
    // A known row is updated in place (it stays until the next reload even if it no longer matches the filters).
    for (const [id, d] of batch) {
      const i = index.get(id);
      if (i !== undefined) next[i] = d;
      else if (matches(d, filters)) added.push(d);
    }
    added.sort((a, b) => (a.id < b.id ? 1 : -1));
    const rowsNow = added.length ? [...added, ...next] : next;
    set({ rows: rowsNow });
    if (selected && batch.has(selected)) scheduleDetail();
    if (rowsNow.length > LIVE_CAP && atTop && !get().loading && Date.now() - lastTrim > 5000) {
      lastTrim = Date.now();
      void get().reload();
    }
  };
  const queue = (d: DeliverySummary) => {
    pending.set(d.id, d);
    flushTimer ??= window.setTimeout(flush, 100);
  };
  const scheduleDetail = () => {
    window.clearTimeout(detailTimer);
    detailTimer = window.setTimeout(() => void get().refreshDetail(), 100);
  };

  return {
    rows: [],
    nextCursor: null,
    loading: true,
    loadingMore: false,
    error: null,
    filters: { status: '', event: '', ref_id: '' },
    selected: null,
    detail: null,
    detailError: null,
    retrying: false,
    notice: null,
    setFilters: (f) => {
      set({ filters: { ...get().filters, ...f } });
      void get().reload();
    },
    reload: async () => {
      const gen = ++generation;
      set({ loading: true, error: null });
      try {
        const page = await control.listDeliveries({ ...query(get().filters), limit: FIRST_PAGE });
        if (gen === generation) set({ rows: page.data.deliveries, nextCursor: page.data.next_cursor, loading: false });
      } catch (err) {
        if (gen === generation) set({ error: describeError(err), loading: false });
      }
    },
    loadMore: async () => {
      const { nextCursor, loadingMore, filters } = get();
      if (!nextCursor || loadingMore) return;
      const gen = generation;
      set({ loadingMore: true });
      try {
        const page = await control.listDeliveries({ ...query(filters), limit: PAGE, cursor: nextCursor });
        if (gen === generation) set({ rows: [...get().rows, ...page.data.deliveries], nextCursor: page.data.next_cursor });
      } catch (err) {
        set({ error: describeError(err) });
      } finally {
        set({ loadingMore: false });
      }
    },
    select: async (id) => {
      if (id === get().selected && get().detail?.id === id) return;
      set({ selected: id, detail: null, detailError: null, notice: null });
      if (id) await get().refreshDetail();
    },
    refreshDetail: async () => {
      const id = get().selected;
      if (!id) return;
      try {
        const res = await control.getDelivery(id);
        if (get().selected === id) set({ detail: res.data, detailError: null });
      } catch (err) {
        if (get().selected === id) set({ detailError: describeError(err) });
      }
    },
    retry: async (id) => {
      set({ retrying: true, notice: null, detailError: null });
      try {
        const res = await control.retryDelivery(id);
        const a = res.data.attempt;
        set({
          notice: `Attempt ${a.number}: ${a.outcome}${a.response ? ` (HTTP ${a.response.status})` : a.error ? ` (${a.error.code}: ${a.error.message})` : ''}`,
        });
        await get().refreshDetail();
      } catch (err) {
        set({ detailError: describeError(err) });
      } finally {
        set({ retrying: false });
      }
    },
    setAtTop: (value) => {
      atTop = value;
    },
    follow: () => {
      atTop = true; // a list mounts scrolled to the top
      const offs = [
        live.on('delivery.created', queue),
        live.on('delivery.updated', queue),
        live.on('attempt.completed', (a) => {
          if (a.delivery_id === get().selected) scheduleDetail();
        }),
        live.onReconnect(() => void get().reload()),
      ];
      return () => offs.forEach((off) => off());
    },
  };
});
