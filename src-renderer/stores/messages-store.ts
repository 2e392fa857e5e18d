import { create } from 'zustand';
import type { DeliverySummary } from '../../src-shared/schemas/dispatch';
import type { MessageDetail, MessageFlags, MessageSummary } from '../../src-shared/schemas/messages';
import { liveMatches } from '../../src-shared/search/live-match';
import { idQuery, parseMessageQuery } from '../../src-shared/search/message-query';
import { control, describeError } from '../api/clients';
import { type LiveEvents, live } from '../api/live';
import { withLaterRows } from './delivery-rows';
import { batched, type DetailState, type ListState, openItem, pagedList } from './live-list';

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
  /**
   * Stored messages the search index did not hold yet when the list's search by words answered
   * (0: none, the list is complete); they may match.
   */
  indexPending: number;
  filters: MessageFilters;
  /** The open copy (`selected` is its id). */
  detail: MessageDetail | null;
  /** The deliveries that carried this copy's events. */
  deliveries: DeliverySummary[];
  /** The other copies of the open copy's send (its other recipients), and whether there are more than these. */
  siblings: MessageSummary[];
  moreSiblings: boolean;
  setFilters: (f: Partial<MessageFilters>) => void;
  reload: () => Promise<void>;
  loadMore: () => Promise<void>;
  /** Opens a copy by its id. */
  select: (id: string | null) => Promise<void>;
  refreshDetail: () => Promise<void>;
  /** Reads the open copy's deliveries again (while one is in flight or due). */
  refreshDeliveries: () => Promise<void>;
  remove: (id: string) => Promise<void>;
  /** Marks a copy read or unread (opening one in the screen reads it, as in Mailpit). */
  markRead: (id: string, read: boolean) => Promise<void>;
  /** Gives a copy exactly these tags. */
  setTags: (id: string, tags: string[]) => Promise<void>;
  clearAll: () => Promise<void>;
  /** Deletes what the filters find (everything without a filter); answers how many went, null on an error. */
  deleteMatching: () => Promise<number | null>;
  /** Subscribes to the live stream; returns the unsubscribe. */
  follow: () => () => void;
  /** The list's view is at the top: rows that pile up from live updates may be trimmed. */
  setAtTop: (atTop: boolean) => void;
}

/** The list's filters as the control API's query (the list, Delete matching and Export read the same). */
export const listQuery = (f: MessageFilters) => ({
  ...(f.q.trim() ? { q: f.q.trim() } : {}),
  ...(f.status ? { status: f.status as MessageSummary['status'] } : {}),
  ...(f.campaign_id.trim() ? { campaign_id: f.campaign_id.trim() } : {}),
  ...(f.account_id ? { account_id: f.account_id } : {}),
});

/**
 * The list's filters applied to a new message, so a live one is shown only when it matches. The
 * summary has no body nor headers: a live message found only by those shows at the next reload.
 */
function matches(m: MessageSummary, f: MessageFilters): boolean {
  const q = f.q.trim();
  const id = idQuery(q);
  if (id !== null && (m.ref_id === id || m.id === id)) return true;
  if (q) {
    if (!liveMatches(parseMessageQuery(q), m)) return false;
  }
  if (f.status && m.status !== f.status) return false;
  if (f.campaign_id.trim() && !m.campaign_id.toLowerCase().startsWith(f.campaign_id.trim().toLowerCase())) return false;
  if (f.account_id && m.account_id !== f.account_id) return false;
  return true;
}

/**
 * Whether a listed row whose status changed still matches the filters. The emulator matched the rest
 * when it listed the row; only what a status change alters is judged again (a size, a body or a header
 * the row cannot tell never takes a listed row off the list).
 */
function stillMatches(m: MessageSummary, f: MessageFilters): boolean {
  if (f.status && m.status !== f.status) return false;
  const q = f.q.trim();
  if (!q || idQuery(q) !== null) return true;
  const { statuses, notStatuses } = parseMessageQuery(q);
  if (statuses.length && !statuses.includes(m.status as never)) return false;
  return !notStatuses.includes(m.status as never);
}

/** The other copies of a send the detail lists (the rest are one link away: the list filtered to the send). */
const SIBLINGS = 50;
/** A send's deliveries looked at in one request (a copy's own ones beyond these are fetched one by one). */
const SEND_DELIVERIES = 500;

/**
 * The deliveries that carried a copy's events. Every delivery about a send carries the send's ref_id,
 * whichever recipient it is about: the copy's own are those its events name.
 */
async function deliveriesOf(detail: MessageDetail): Promise<DeliverySummary[]> {
  const ids = new Set(detail.events.flatMap((e) => (e.delivery_id ? [e.delivery_id] : [])));
  if (ids.size === 0) return [];
  const ofSend = (await control.listDeliveries({ ref_id: detail.ref_id, limit: SEND_DELIVERIES })).data.deliveries.filter((d) => ids.has(d.id));
  const found = new Set(ofSend.map((d) => d.id));
  const missing = [...ids].filter((id) => !found.has(id)).slice(0, 20);
  const more = await Promise.all(
    missing.map((id) =>
      control.getDelivery(id).then(
        (r) => r.data as DeliverySummary,
        () => null,
      ),
    ),
  );
  return [...ofSend, ...more.filter((d): d is DeliverySummary => d !== null)];
}

export const useMessages = create<MessagesState>((set, get) => {
  // Live announcements are applied in batches: one new array per batch, not one per message.
  let created: MessageSummary[] = [];
  let updated = new Map<string, LiveEvents['message.updated']>();
  // Messages announced while a reload is under way: applied on top of the page it answers.
  let duringReload: MessageSummary[] = [];
  // Read-state and tag writes begun and answered so far. A reading of the server begun before every
  // write begun by its end was answered may hold older flags than the screen's.
  let flagWritesBegun = 0;
  let flagWritesAnswered = 0;
  const flagsChangedSince = (answeredBefore: number) => flagWritesBegun !== answeredBefore;

  /** Rows read from the server, with the read state and tags the screen shows where a change was made meanwhile. */
  const keepNewerFlags = (read: MessageSummary[], answeredBefore: number): MessageSummary[] => {
    if (!flagsChangedSince(answeredBefore)) return read;
    const shown = new Map(get().rows.map((r) => [r.id, r]));
    return read.map((r) => {
      const s = shown.get(r.id);
      return s ? { ...r, read: s.read, tags: s.tags } : r;
    });
  };

  const list = pagedList<MessageSummary, MessagesState>(set, get, {
    fetch: async (page) => {
      const answeredBefore = flagWritesAnswered;
      // The first page carries its count, counted in the same read: the list and the count shown
      // come from one answer (a count asked apart could see more or fewer messages, or outlive its list).
      const first = page.cursor === undefined;
      const res = await control.listMessages({ ...listQuery(get().filters), ...page, ...(first ? { with_total: 'true' as const } : {}) });
      return {
        rows: keepNewerFlags(res.data.messages, answeredBefore),
        nextCursor: res.data.next_cursor,
        state: { indexPending: res.data.index_pending ?? 0, ...(first ? { total: res.data.total ?? null } : {}) },
      };
    },
    // Messages announced while the page was on its way and newer than its rows were stored after its
    // read: shown on top of it and counted with it (the live ones later are added to both alike).
    firstPage: (page) => {
      const newest = page.rows[0]?.id ?? '';
      const missed = duringReload.filter((m) => m.id > newest && matches(m, get().filters)).reverse();
      duringReload = [];
      const total = page.state?.total;
      return {
        ...page,
        rows: [...missed, ...page.rows],
        state: { ...page.state, total: total === undefined || total === null ? null : total + missed.length },
      };
    },
  });
  const open = openItem<MessagesState>(
    set,
    get,
    async (id) => {
      const answeredBefore = flagWritesAnswered;
      const read = (await control.getMessage(id)).data;
      const [deliveries, copies] = await Promise.all([deliveriesOf(read), control.listMessages({ q: read.ref_id, limit: SIBLINGS })]);
      // In the order of the request's recipients (the list answers newest first).
      const siblings = copies.data.messages.filter((m) => m.ref_id === read.ref_id && m.id !== read.id).reverse();
      // A read-state or tag change made meanwhile is newer than what this read: the screen keeps it.
      const shown = get().detail;
      const detail = flagsChangedSince(answeredBefore) && shown?.id === id ? { ...read, read: shown.read, tags: shown.tags } : read;
      return { detail, deliveries, siblings, moreSiblings: copies.data.next_cursor !== null };
    },
    150,
  );

  /** A copy's read state and tags as the server now has them, in its row and the open detail. */
  const applyFlags = ({ id, read, tags }: MessageFlags) => {
    const { rows, detail } = get();
    set({
      rows: rows.map((r) => (r.id === id ? { ...r, read, tags } : r)),
      ...(detail?.id === id ? { detail: { ...detail, read, tags } } : {}),
    });
  };

  /** Sends a read-state or tag change and shows what the server answers. */
  const writeFlags = async (write: () => Promise<{ data: MessageFlags }>) => {
    flagWritesBegun++;
    try {
      applyFlags((await write()).data);
    } catch (err) {
      set({ error: describeError(err) });
    } finally {
      flagWritesAnswered++;
    }
  };

  const applyLive = batched(() => {
    const { rows, filters, total, selected } = get();
    const fresh = created.filter((m) => matches(m, filters)).reverse();
    const changes = updated;
    created = [];
    updated = new Map();
    const known = new Set(rows.slice(0, 500).map((r) => r.id));
    const added = fresh.filter((m) => !known.has(m.id));
    let next = added.length ? [...added, ...rows] : rows;
    // A changed row that no longer matches the filters (a queued one delivered, under "queued") leaves
    // the list and the count; the open one stays, its page showing what it is now.
    const gone = new Set<string>();
    if (changes.size) {
      next = next === rows ? [...rows] : next;
      let left = changes.size;
      for (let i = 0; i < next.length && left > 0; i++) {
        const change = changes.get(next[i]!.id);
        if (change) {
          next[i] = { ...next[i]!, status: change.status, ...(change.failed_reason !== undefined ? { failed_reason: change.failed_reason } : {}) };
          if (next[i]!.id !== selected && !stillMatches(next[i]!, filters)) gone.add(next[i]!.id);
          left--;
        }
      }
    }
    if (gone.size) next = next.filter((r) => !gone.has(r.id));
    set({ rows: next, total: total === null ? null : Math.max(0, total + added.length - gone.size) });
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
    indexPending: 0,
    filters: { q: '', status: '', campaign_id: '', account_id: '' },
    selected: null,
    detail: null,
    deliveries: [],
    siblings: [],
    moreSiblings: false,
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
    select: async (id) => {
      if (id === get().selected && get().detail?.id === id) return;
      set({ selected: id, detail: null, deliveries: [], siblings: [], moreSiblings: false, detailError: null });
      if (!id) return;
      await get().refreshDetail();
      // Opening a message reads it, as in Mailpit.
      const opened = get().detail;
      if (opened?.id === id && !opened.read) await get().markRead(id, true);
    },
    refreshDetail: open.refresh,
    refreshDeliveries: async () => {
      const detail = get().detail;
      if (!detail) return;
      try {
        const fresh = await deliveriesOf(detail);
        if (get().detail?.id === detail.id) set({ deliveries: withLaterRows(get().deliveries, fresh) });
      } catch {
        // The open copy's next refresh says it.
      }
    },
    remove: async (id) => {
      try {
        await control.deleteMessage(id);
        set({ rows: get().rows.filter((r) => r.id !== id), total: Math.max(0, (get().total ?? 1) - 1) });
        if (get().selected === id) set({ selected: null, detail: null });
      } catch (err) {
        set({ error: describeError(err) });
      }
    },
    markRead: (id, read) => writeFlags(() => control.setMessageRead(id, { read })),
    setTags: (id, tags) => writeFlags(() => control.setMessageTags(id, { tags })),
    clearAll: async () => {
      try {
        await control.deleteMessages();
        set({ selected: null, detail: null });
        await get().reload();
      } catch (err) {
        set({ error: describeError(err) });
      }
    },
    deleteMatching: async () => {
      try {
        const res = await control.deleteMessages(listQuery(get().filters));
        set({ selected: null, detail: null });
        await get().reload();
        return res.data.deleted;
      } catch (err) {
        set({ error: describeError(err) });
        return null;
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
          updated.set(u.message_id, u);
          applyLive();
        }),
        // A delivery of the open copy's events changed (its status, its attempts).
        // Its state shows at once; the copy is read again soon (an event's status may follow from it).
        live.on('delivery.updated', (d) => {
          if (!get().detail?.events.some((e) => e.delivery_id === d.id)) return;
          const deliveries = withLaterRows(get().deliveries, [d]);
          if (deliveries !== get().deliveries) set({ deliveries });
          open.refreshSoon();
        }),
        // What was announced before the stream was up is missed: the list and the open copy are read again.
        live.onReconnect(() => {
          void get().reload();
          if (get().selected) open.refreshSoon();
        }),
      ];
      return () => {
        for (const off of offs) off();
      };
    },
  };
});
