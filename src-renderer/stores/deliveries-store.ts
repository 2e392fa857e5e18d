import { create } from 'zustand';
import type { DeliveryDetail, DeliverySummary } from '../../src-shared/schemas/dispatch';
import { control, describeError } from '../api/clients';
import { live } from '../api/live';
import { batched, openItem, pagedList, type DetailState, type ListState } from './live-list';

export interface DeliveryFilters {
  status: string;
  event: string;
  ref_id: string;
}

interface DeliveriesState extends ListState<DeliverySummary>, DetailState {
  filters: DeliveryFilters;
  detail: DeliveryDetail | null;
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
  let pending = new Map<string, DeliverySummary>();

  const list = pagedList<DeliverySummary, DeliveriesState>(set, get, {
    fetch: async (page) => {
      const res = await control.listDeliveries({ ...query(get().filters), ...page });
      return { rows: res.data.deliveries, nextCursor: res.data.next_cursor };
    },
  });
  const open = openItem<DeliveriesState>(set, get, async (id) => ({ detail: (await control.getDelivery(id)).data }), 100);

  const applyLive = batched(() => {
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
    set({ rows: added.length ? [...added, ...next] : next });
    if (selected && batch.has(selected)) open.refreshSoon();
    list.trimIfLong();
  });
  const queue = (d: DeliverySummary) => {
    pending.set(d.id, d);
    applyLive();
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
    reload: list.reload,
    loadMore: list.loadMore,
    select: async (id) => {
      if (id === get().selected && get().detail?.id === id) return;
      set({ selected: id, detail: null, detailError: null, notice: null });
      if (id) await get().refreshDetail();
    },
    refreshDetail: open.refresh,
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
    setAtTop: list.setAtTop,
    follow: () => {
      list.mounted();
      const offs = [
        live.on('delivery.created', queue),
        live.on('delivery.updated', queue),
        live.on('attempt.completed', (a) => {
          if (a.delivery_id === get().selected) open.refreshSoon();
        }),
        live.onReconnect(() => void get().reload()),
      ];
      return () => offs.forEach((off) => off());
    },
  };
});
