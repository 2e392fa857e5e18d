import { create } from 'zustand';
import type { DeliveryDetail, DeliveryListStatus, DeliverySummary, EndpointStats } from '../../src-shared/schemas/dispatch';
import { control, describeError } from '../api/clients';
import { live } from '../api/live';
import { merged, withLaterRows } from './delivery-rows';
import { batched, type DetailState, type ListState, openItem, pagedList } from './live-list';

export interface DeliveryFilters {
  /** A status, or `failing` (pending after a failed attempt). */
  status: string;
  event: string;
  /** Text in the recipient, target URL or payload; a pasted address filters by that address. */
  q: string;
  /** One endpoint's deliveries (the endpoint view's links). */
  target_id: string;
  /** An account's id: only its deliveries. */
  account_id: string;
}

export const NO_FILTERS: DeliveryFilters = { status: '', event: '', q: '', target_id: '', account_id: '' };

interface DeliveriesState extends ListState<DeliverySummary>, DetailState {
  filters: DeliveryFilters;
  /** How many deliveries match the filters (null until counted). */
  total: number | null;
  endpoints: EndpointStats[] | null;
  endpointsError: string | null;
  loadEndpoints: () => Promise<void>;
  detail: DeliveryDetail | null;
  retrying: boolean;
  /** What the last "Retry now" did: its attempt's outcome (`ok`: it succeeded), in words. */
  notice: { text: string; ok: boolean } | null;
  setFilters: (f: Partial<DeliveryFilters>) => void;
  /** Sets the filters the screen's URL gives (`/deliveries?status=failing&target_id=...`); reloads on a change, or always when `force`. */
  applyLinkFilters: (f: DeliveryFilters, force?: boolean) => void;
  reload: () => Promise<void>;
  loadMore: () => Promise<void>;
  select: (id: string | null) => Promise<void>;
  refreshDetail: () => Promise<void>;
  /** Reads the deliveries in flight again and updates their rows (an attempt's claim may not be announced). */
  refreshInFlight: () => Promise<void>;
  retry: (id: string) => Promise<void>;
  follow: () => () => void;
  /** The list's view is at the top: rows that pile up from live updates may be trimmed. */
  setAtTop: (atTop: boolean) => void;
}

const query = (f: DeliveryFilters) => ({
  ...(f.status ? { status: f.status as DeliveryListStatus } : {}),
  ...(f.event ? { event: f.event } : {}),
  ...(f.q.trim() ? { q: f.q.trim() } : {}),
  ...(f.target_id ? { target_id: f.target_id } : {}),
  ...(f.account_id ? { account_id: f.account_id } : {}),
});

const isFailing = (d: DeliverySummary) => (d.status === 'pending' || d.status === 'sending') && d.attempts > 0;

/**
 * Whether a delivery announced live belongs in the filtered list. The search is the server's (it
 * reads the payload): live rows are added while it matches what the row shows, else at the next reload.
 */
function matches(d: DeliverySummary, f: DeliveryFilters): boolean {
  const status = !f.status || (f.status === 'failing' ? isFailing(d) : d.status === f.status);
  const q = f.q.trim().toLowerCase();
  const text = !q || [d.recipient, d.subject, d.target.url, d.ref_id].some((v) => typeof v === 'string' && v.toLowerCase().includes(q));
  return (
    status && (!f.event || d.event === f.event) && (!f.target_id || d.target.id === f.target_id) && (!f.account_id || d.account_id === f.account_id) && text
  );
}

const sameFilters = (a: DeliveryFilters, b: DeliveryFilters) =>
  a.status === b.status && a.event === b.event && a.q === b.q && a.target_id === b.target_id && a.account_id === b.account_id;

export const useDeliveries = create<DeliveriesState>((set, get) => {
  let pending = new Map<string, DeliverySummary>();

  const list = pagedList<DeliverySummary, DeliveriesState>(set, get, {
    fetch: async (page) => {
      const res = await control.listDeliveries({ ...query(get().filters), ...page });
      return { rows: res.data.deliveries, nextCursor: res.data.next_cursor };
    },
    // The count comes after the first rows: it never delays them.
    afterFirstPage: async (current) => {
      const count = await control.countDeliveries(query(get().filters));
      if (current()) set({ total: count.data.count });
    },
  });
  let recounting: Promise<void> | null = null;
  let recountAgain = false;
  const recount = () => {
    if (recounting) {
      recountAgain = true;
      return;
    }
    const filters = get().filters;
    recounting = control
      .countDeliveries(query(filters))
      .then((res) => {
        if (get().filters === filters) set({ total: res.data.count });
      })
      .catch(() => undefined)
      .finally(() => {
        recounting = null;
        if (recountAgain) {
          recountAgain = false;
          recount();
        }
      });
  };
  // The open delivery's row in the list follows what its page shows.
  const open = openItem<DeliveriesState>(
    set,
    get,
    async (id) => {
      const detail = (await control.getDelivery(id)).data;
      const { payload: _payload, attempt_log: _attempts, ...summary } = detail;
      return { detail, rows: withLaterRows(get().rows, [summary]) };
    },
    100,
  );

  const applyLive = batched(() => {
    const { rows, filters, selected, total } = get();
    const batch = pending;
    pending = new Map();
    const next = [...rows];
    const index = new Map<string, number>();
    // Live changes concern recent deliveries: look for them near the top first.
    for (let i = 0; i < next.length && index.size < batch.size && i < 20_000; i++) if (batch.has(next[i]!.id)) index.set(next[i]!.id, i);
    const added: DeliverySummary[] = [];
    const left = new Set<string>();
    // A known row is updated in place; one that no longer matches the filters leaves the list (the open
    // one stays, its page showing what it is now).
    for (const [id, d] of batch) {
      const i = index.get(id);
      if (i !== undefined) {
        next[i] = merged(next[i]!, d);
        if (id !== selected && !matches(next[i]!, filters)) left.add(id);
      } else if (matches(d, filters)) added.push(d);
    }
    added.sort((a, b) => (a.id < b.id ? 1 : -1));
    const kept = left.size ? next.filter((r) => !left.has(r.id)) : next;
    set({ rows: added.length ? [...added, ...kept] : kept });
    // Counted again rather than added to: a row may arrive live after the count already had it, and
    // a filtered list's rows may leave it.
    if (added.length || left.size || total === null || (index.size > 0 && filters.status)) recount();
    if (selected && batch.has(selected)) open.refreshSoon();
    list.trimIfLong();
  });
  const queue = (d: DeliverySummary) => {
    // A creation and its update in one batch: the update keeps the creation's recipient and subject.
    const before = pending.get(d.id);
    pending.set(d.id, before ? merged(before, d) : d);
    applyLive();
  };

  return {
    rows: [],
    nextCursor: null,
    loading: true,
    loadingMore: false,
    error: null,
    filters: NO_FILTERS,
    total: null,
    endpoints: null,
    endpointsError: null,
    loadEndpoints: async () => {
      try {
        set({ endpoints: (await control.listEndpoints()).data.endpoints, endpointsError: null });
      } catch (err) {
        set({ endpointsError: describeError(err) });
      }
    },
    selected: null,
    detail: null,
    detailError: null,
    retrying: false,
    notice: null,
    setFilters: (f) => {
      set({ filters: { ...get().filters, ...f }, total: null });
      void get().reload();
    },
    applyLinkFilters: (f, force = false) => {
      if (!force && sameFilters(f, get().filters)) return;
      set({ filters: f, total: null });
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
    refreshInFlight: async () => {
      try {
        const sending = (await control.listDeliveries({ status: 'sending', limit: 200 })).data.deliveries;
        const rows = withLaterRows(get().rows, sending);
        if (rows !== get().rows) set({ rows });
      } catch {
        // The next live announcement (or the next look) says it.
      }
    },
    retry: async (id) => {
      set({ retrying: true, notice: null, detailError: null });
      try {
        const res = await control.retryDelivery(id);
        const a = res.data.attempt;
        const outcome = `Attempt ${a.number}: ${a.outcome}${a.response ? ` (HTTP ${a.response.status})` : a.error ? ` (${a.error.code}: ${a.error.message})` : ''}`;
        // A replay that failed after the event was acknowledged leaves the delivery as it was.
        const stays = a.outcome === 'failed' && res.data.delivery.status === 'succeeded' ? '. The delivery stays succeeded: its event was acknowledged.' : '';
        set({ notice: { text: `${outcome}${stays}`, ok: a.outcome === 'succeeded' } });
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
      return () => {
        for (const off of offs) off();
      };
    },
  };
});
