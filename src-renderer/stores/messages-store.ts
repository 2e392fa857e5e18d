import { create } from 'zustand';
import type { DeliverySummary } from '../../src-shared/schemas/dispatch';
import type { MessageDetail, MessageSummary } from '../../src-shared/schemas/messages';
import { control, describeError } from '../api/clients';
import { live, type LiveEvents } from '../api/live';
import { batched, openItem, pagedList, type DetailState, type ListState } from './live-list';

export interface MessageFilters {
  q: string;
  status: string;
  campaign_id: string;
  /** Empty: every account. */
  account_id: string;
}

interface MessagesState extends ListState<MessageSummary>, DetailState {
  /** How many match the filters (null until counted). */
  total: number | null;
  filters: MessageFilters;
  detail: MessageDetail | null;
  /** The deliveries that carried this message's events. */
  deliveries: DeliverySummary[];
  setFilters: (f: Partial<MessageFilters>) => void;
  reload: () => Promise<void>;
  loadMore: () => Promise<void>;
  select: (refId: string | null) => Promise<void>;
  refreshDetail: () => Promise<void>;
  remove: (refId: string) => Promise<void>;
  clearAll: () => Promise<void>;
  /** Subscribes to the live stream; returns the unsubscribe. */
  follow: () => () => void;
  /** The list's view is at the top: rows that pile up from live updates may be trimmed. */
  setAtTop: (atTop: boolean) => void;
}

const query = (f: MessageFilters) => ({
  ...(f.q.trim() ? { q: f.q.trim() } : {}),
  ...(f.status ? { status: f.status as MessageSummary['status'] } : {}),
  ...(f.campaign_id.trim() ? { campaign_id: f.campaign_id.trim() } : {}),
  ...(f.account_id ? { account_id: f.account_id } : {}),
});

/** The list's filters applied to a new message, so a live one is shown only when it matches. */
function matches(m: MessageSummary, f: MessageFilters): boolean {
  const q = f.q.trim().toLowerCase();
  const hit = m.recipient.email.toLowerCase().includes(q) || m.subject.toLowerCase().includes(q) || m.from.email.toLowerCase().includes(q) || m.ref_id === q.toUpperCase();
  if (q && !hit) return false;
  if (f.status && m.status !== f.status) return false;
  if (f.campaign_id.trim() && m.campaign_id !== f.campaign_id.trim()) return false;
  if (f.account_id && m.account_id !== f.account_id) return false;
  return true;
}

export const useMessages = create<MessagesState>((set, get) => {
  // Live announcements are applied in batches: one new array per batch, not one per message.
  let created: MessageSummary[] = [];
  let updated = new Map<string, LiveEvents['message.updated']>();
  // Messages announced while a reload is under way: applied on top of the page it answers.
  let duringReload: MessageSummary[] = [];

  const list = pagedList<MessageSummary, MessagesState>(set, get, {
    fetch: async (page) => {
      const res = await control.listMessages({ ...query(get().filters), ...page });
      return { rows: res.data.messages, nextCursor: res.data.next_cursor };
    },
    firstRows: (rows) => {
      const newest = rows[0]?.ref_id ?? '';
      const missed = duringReload.filter((m) => m.ref_id > newest && matches(m, get().filters)).reverse();
      duringReload = [];
      return [...missed, ...rows];
    },
    // The count comes after the first rows: it never delays them.
    afterFirstPage: async (current) => {
      const count = await control.countMessages(query(get().filters));
      if (current()) set({ total: count.data.count });
    },
  });
  const open = openItem<MessagesState>(
    set,
    get,
    async (refId) => {
      const [detail, deliveries] = await Promise.all([control.getMessage(refId), control.listDeliveries({ ref_id: refId, limit: 100 })]);
      return { detail: detail.data, deliveries: deliveries.data.deliveries };
    },
    150,
  );

  const applyLive = batched(() => {
    const { rows, filters, total, selected } = get();
    const fresh = created.filter((m) => matches(m, filters)).reverse();
    const changes = updated;
    created = [];
    updated = new Map();
    const known = new Set(rows.slice(0, 500).map((r) => r.ref_id));
    const added = fresh.filter((m) => !known.has(m.ref_id));
    let next = added.length ? [...added, ...rows] : rows;
    if (changes.size) {
      next = next === rows ? [...rows] : next;
      let left = changes.size;
      for (let i = 0; i < next.length && left > 0; i++) {
        const change = changes.get(next[i]!.ref_id);
        if (change) {
          next[i] = { ...next[i]!, status: change.status };
          left--;
        }
      }
    }
    set({ rows: next, total: total === null ? null : total + added.length });
    if (selected && changes.has(selected)) open.refreshSoon();
    list.trimIfLong();
  });

  return {
    rows: [],
    nextCursor: null,
    loading: true,
    loadingMore: false,
    error: null,
    total: null,
    filters: { q: '', status: '', campaign_id: '', account_id: '' },
    selected: null,
    detail: null,
    deliveries: [],
    detailError: null,
    setFilters: (f) => {
      set({ filters: { ...get().filters, ...f } });
      void get().reload();
    },
    reload: () => {
      duringReload = [];
      return list.reload();
    },
    loadMore: list.loadMore,
    select: async (refId) => {
      if (refId === get().selected && get().detail?.ref_id === refId) return;
      set({ selected: refId, detail: null, deliveries: [], detailError: null });
      if (refId) await get().refreshDetail();
    },
    refreshDetail: open.refresh,
    remove: async (refId) => {
      try {
        await control.deleteMessage(refId);
        set({ rows: get().rows.filter((r) => r.ref_id !== refId), total: Math.max(0, (get().total ?? 1) - 1) });
        if (get().selected === refId) set({ selected: null, detail: null });
      } catch (err) {
        set({ error: describeError(err) });
      }
    },
    clearAll: async () => {
      try {
        await control.deleteMessages();
        set({ selected: null, detail: null });
        await get().reload();
      } catch (err) {
        set({ error: describeError(err) });
      }
    },
    setAtTop: list.setAtTop,
    follow: () => {
      list.mounted();
      const offs = [
        live.on('message.created', (m) => {
          created.push(m);
          if (get().loading) duringReload.push(m);
          applyLive();
        }),
        live.on('message.updated', (u) => {
          updated.set(u.ref_id, u);
          applyLive();
        }),
        live.on('delivery.updated', (d) => {
          if (d.ref_id && d.ref_id === get().selected) open.refreshSoon();
        }),
        live.onReconnect(() => void get().reload()),
      ];
      return () => offs.forEach((off) => off());
    },
  };
});
