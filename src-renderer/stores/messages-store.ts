import { create } from 'zustand';
import type { DeliverySummary } from '../../src-shared/schemas/dispatch';
import type { MessageDetail, MessageSummary } from '../../src-shared/schemas/messages';
import { control, describeError } from '../api/clients';
import { live, type LiveEvents } from '../api/live';

export interface MessageFilters {
  q: string;
  status: string;
  campaign_id: string;
  /** Empty: every account. */
  account_id: string;
}

/** The first page fills a tall window with room to scroll; the pages after it are bigger. */
const FIRST_PAGE = 60;
const PAGE = 200;
/** Live rows beyond this, while the view is at the top, are dropped by reloading the first page (memory stays bounded under load). */
const LIVE_CAP = 2000;

interface MessagesState {
  rows: MessageSummary[];
  nextCursor: string | null;
  loading: boolean;
  loadingMore: boolean;
  error: string | null;
  /** How many match the filters (null until counted). */
  total: number | null;
  filters: MessageFilters;
  selected: string | null;
  detail: MessageDetail | null;
  /** The deliveries that carried this message's events. */
  deliveries: DeliverySummary[];
  detailError: string | null;
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
  let generation = 0;
  let detailTimer: number | undefined;
  // Live announcements are applied in batches: one new array per frame, not one per message.
  let created: MessageSummary[] = [];
  let updated = new Map<string, LiveEvents['message.updated']>();
  let flushTimer: number | undefined;
  // Messages announced while a reload is under way: applied on top of the page it answers.
  let duringReload: MessageSummary[] = [];
  let atTop = true;
  let lastTrim = 0;

  const flush = () => {
    flushTimer = undefined;
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
    if (selected && changes.has(selected)) scheduleDetail();
    if (next.length > LIVE_CAP && atTop && !get().loading && Date.now() - lastTrim > 5000) {
      lastTrim = Date.now();
      void get().reload();
    }
  };
  const scheduleFlush = () => {
    flushTimer ??= window.setTimeout(flush, 100);
  };
  const scheduleDetail = () => {
    window.clearTimeout(detailTimer);
    detailTimer = window.setTimeout(() => void get().refreshDetail(), 150);
  };

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
    reload: async () => {
      const gen = ++generation;
      const q = query(get().filters);
      duringReload = [];
      set({ loading: true, error: null });
      try {
        const page = await control.listMessages({ ...q, limit: FIRST_PAGE });
        if (gen !== generation) return;
        const newest = page.data.messages[0]?.ref_id ?? '';
        const missed = duringReload.filter((m) => m.ref_id > newest && matches(m, get().filters)).reverse();
        duringReload = [];
        set({ rows: [...missed, ...page.data.messages], nextCursor: page.data.next_cursor, loading: false });
        // The count comes after the first rows: it never delays them.
        const count = await control.countMessages(q);
        if (gen === generation) set({ total: count.data.count });
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
        const page = await control.listMessages({ ...query(filters), limit: PAGE, cursor: nextCursor });
        if (gen !== generation) return;
        set({ rows: [...get().rows, ...page.data.messages], nextCursor: page.data.next_cursor });
      } catch (err) {
        set({ error: describeError(err) });
      } finally {
        set({ loadingMore: false });
      }
    },
    select: async (refId) => {
      if (refId === get().selected && get().detail?.ref_id === refId) return;
      set({ selected: refId, detail: null, deliveries: [], detailError: null });
      if (refId) await get().refreshDetail();
    },
    refreshDetail: async () => {
      const refId = get().selected;
      if (!refId) return;
      try {
        const [detail, deliveries] = await Promise.all([control.getMessage(refId), control.listDeliveries({ ref_id: refId, limit: 100 })]);
        if (get().selected === refId) set({ detail: detail.data, deliveries: deliveries.data.deliveries, detailError: null });
      } catch (err) {
        if (get().selected === refId) set({ detailError: describeError(err) });
      }
    },
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
    setAtTop: (value) => {
      atTop = value;
    },
    follow: () => {
      atTop = true; // a list mounts scrolled to the top
      const offs = [
        live.on('message.created', (m) => {
          created.push(m);
          if (get().loading) duringReload.push(m);
          scheduleFlush();
        }),
        live.on('message.updated', (u) => {
          updated.set(u.ref_id, u);
          scheduleFlush();
        }),
        live.on('delivery.updated', (d) => {
          if (d.ref_id && d.ref_id === get().selected) scheduleDetail();
        }),
        live.onReconnect(() => void get().reload()),
      ];
      return () => offs.forEach((off) => off());
    },
  };
});
