/**
 * The helpers of a handle over the control API alone, so they work the same on an emulator started
 * in the test's process and on one attached to by URL (`connectMailyard`).
 */
import { ApiError, ControlClient, ServiceClient } from '../../src-shared/clients';
import { HttpClient } from '../../src-shared/http-client';
import { controlOperations } from '../../src-shared/operations';
import type { DeliverySummary } from '../../src-shared/schemas/dispatch';
import type { MessageSummary } from '../../src-shared/schemas/messages';
import { linksOf, textOf } from './content';
import { diagnoseDeliveryWait, diagnoseMessageWait } from './diagnose';
import { serveEffects } from './effects-server';
import { runScenarioOver } from './scenario';
import type { CapturedMessage, CatcherHandle, Delivery, DeliveryFilter, MailyardHelpers, MatchOptions, MessageFilter } from './types';
import { type WaitOptions, waitForMatch, waitOnServer } from './waiters';

/** Records a function predicate is tried on, at most: the newest, or the first a filter finds. */
const PREDICATE_SCAN = 500;
const FILTER_SCAN = 100;

/** Details fetched once per version of a record (a changed summary fetches it again). */
class DetailCache<T> {
  private readonly entries = new Map<string, { version: string; detail: T }>();

  async get(id: string, version: string, fetchDetail: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(id);
    if (hit && hit.version === version) return hit.detail;
    const detail = await fetchDetail();
    this.entries.set(id, { version, detail });
    return detail;
  }

  clear(): void {
    this.entries.clear();
  }
}

function describeDelivery(d: DeliverySummary): string {
  const parts = [d.id, d.event, `ref_id=${d.ref_id ?? '-'}`];
  if (d.recipient) parts.push(`recipient=${d.recipient}`);
  parts.push(`status=${d.status}`, `attempts=${d.attempts}`);
  if (d.last_status_code !== null) parts.push(`last_status=${d.last_status_code}`);
  if (d.last_error) parts.push(`last_error=${JSON.stringify(d.last_error)}`);
  parts.push(`-> ${d.target.url}`);
  return parts.join(' ');
}

function describeMessage(m: MessageSummary): string {
  return `${m.id} to=${m.recipient.email} from=${m.from.email} subject=${JSON.stringify(m.subject)} status=${m.status} ref_id=${m.ref_id}`;
}

export interface HelperDeps {
  url: string;
  apiKey: string;
  controlKey: string | null;
  /** Calls `changed` whenever the emulator announces a change (in-process only); returns how to stop. */
  subscribe?: (changed: () => void) => () => void;
  /** Runs a scenario in this process (the emulator is here, so the test's scenario may start its app); over HTTP otherwise. */
  runScenario?: MailyardHelpers['runScenario'];
}

export function buildHelpers(deps: HelperDeps): MailyardHelpers {
  const { url, apiKey, controlKey } = deps;
  const headers: Record<string, string> = controlKey === null ? {} : { authorization: `Bearer ${controlKey}` };
  const control = new ControlClient({ baseUrl: url, headers });
  const http = new HttpClient({ baseUrl: url, headers });
  const service = new ServiceClient({ baseUrl: url, apiKey });
  const subscribe = deps.subscribe ?? (() => () => undefined);
  const deliveryDetails = new DetailCache<Delivery>();
  const messageDetails = new DetailCache<CapturedMessage>();

  const deliveryDetail = (s: DeliverySummary) =>
    deliveryDetails.get(s.id, `${s.updated_at} ${s.status} ${s.attempts}`, async () => {
      const d = (await control.getDelivery(s.id)).data;
      // The control API answers a payload over 256 KiB in part: a test gets it whole.
      return { ...d, payload: d.payload_truncated ? await control.getDeliveryPayload(s.id) : d.payload } as Delivery;
    });
  const messageDetail = (s: MessageSummary) => messageDetails.get(s.id, s.status, async () => (await control.getMessage(s.id)).data);

  const waitDeliveries = async (filter: DeliveryFilter, waitMs: number, limit: number) =>
    (await http.call(controlOperations.waitForDeliveries, { query: { ...filter, wait_ms: waitMs, limit } })).data.deliveries;
  const waitMessages = async (filter: MessageFilter, waitMs: number, limit: number) =>
    (await http.call(controlOperations.waitForMessages, { query: { ...filter, wait_ms: waitMs, limit } })).data.messages;
  const newestDeliveries = async (limit: number) => (await control.listDeliveries({ limit })).data.deliveries.reverse();
  const newestMessages = async (limit: number) => (await control.listMessages({ limit })).data.messages.reverse();

  /** Pages through a newest-first list up to `max` records and answers them oldest first. */
  async function pages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>, max = 10_000): Promise<T[]> {
    const all: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await fetchPage(cursor);
      all.push(...page.items);
      cursor = page.next ?? undefined;
    } while (cursor && all.length < max);
    return all.reverse();
  }

  const idOf = (message: CapturedMessage | string) => (typeof message === 'string' ? message : message.id);
  async function download(path: string): Promise<Buffer> {
    const res = await fetch(url + path, { headers });
    const body = Buffer.from(await res.arrayBuffer());
    if (!res.ok) throw new ApiError(res.status, { success: false, error: body.toString('utf8').slice(0, 500) || res.statusText });
    return body;
  }
  const raw = (message: CapturedMessage | string) => download(`/emulator/messages/${encodeURIComponent(idOf(message))}/raw`);

  /**
   * A wait of one kind of record: a filter object waits on the server (a long poll); a function
   * predicate is tried on the records a filter finds, or on the newest, each time the emulator
   * announces a change.
   */
  function waiter<F extends object, S, D extends S>(kind: {
    helper: string;
    what: string;
    serverWait: (filter: F, waitMs: number, limit: number) => Promise<S[]>;
    newest: (limit: number) => Promise<S[]>;
    detail: (summary: S) => Promise<D>;
    describe: (summary: S) => string;
    /** Why nothing may ever match the filter (read on a time-out). */
    diagnose: (filter: F) => Promise<string[]>;
  }) {
    return (match: F | ((record: D) => boolean | Promise<boolean>), options: MatchOptions<F> = {}): Promise<D> => {
      const { helper, what, serverWait, newest, detail, describe, diagnose } = kind;
      if (typeof match !== 'function') {
        const explain = () => diagnose(match);
        return waitOnServer(
          { helper, what, filter: match, recent: () => newest(20), describe, explain },
          (waitMs) => serverWait(match, waitMs, 1),
          detail,
          options,
        );
      }
      const { filter } = options;
      const explain = () => diagnose(filter ?? ({} as F));
      const collect = async () => {
        const summaries = filter ? await serverWait(filter, 0, FILTER_SCAN) : await newest(PREDICATE_SCAN);
        const out: D[] = [];
        for (const s of summaries) out.push(await detail(s));
        return out;
      };
      return waitForMatch({ what, helper, collect, describe, subscribe, explain }, match, options as WaitOptions);
    };
  }

  const waitForDelivery = waiter({
    helper: 'waitForDelivery',
    what: 'webhook delivery',
    serverWait: waitDeliveries,
    newest: newestDeliveries,
    detail: deliveryDetail,
    describe: describeDelivery,
    diagnose: (filter) => diagnoseDeliveryWait({ url, apiKey, control }, filter),
  });
  const waitForMessage = waiter({
    helper: 'waitForMessage',
    what: 'captured message',
    serverWait: waitMessages,
    newest: newestMessages,
    detail: messageDetail,
    describe: describeMessage,
    diagnose: (filter) => diagnoseMessageWait({ url, apiKey, control }, filter),
  });

  return {
    url,
    apiKey,
    controlKey,
    service,
    control,
    runScenario: deps.runScenario ?? ((scenario, options) => runScenarioOver(http, scenario, options)),
    waitForDelivery: waitForDelivery as MailyardHelpers['waitForDelivery'],
    waitForMessage,
    deliveries: async (filter) => {
      const summaries = filter
        ? (await waitDeliveries(filter, 0, 100)).slice()
        : await pages(async (cursor) => {
            const page = (await control.listDeliveries({ limit: 500, cursor })).data;
            return { items: page.deliveries, next: page.next_cursor };
          });
      const out: Delivery[] = [];
      for (const s of summaries) out.push(await deliveryDetail(s));
      return out;
    },
    messages: async () => {
      const summaries = await pages(async (cursor) => {
        const page = (await control.listMessages({ limit: 500, cursor })).data;
        return { items: page.messages, next: page.next_cursor };
      });
      const out: CapturedMessage[] = [];
      for (const s of summaries) out.push(await messageDetail(s));
      return out;
    },
    raw,
    attachment: (message, index) => download(`/emulator/messages/${encodeURIComponent(idOf(message))}/attachments/${index}`),
    content: async (message) => {
      const detail = typeof message === 'string' ? (await control.getMessage(message)).data : message;
      return { raw: await raw(detail.id), text: textOf(detail.text, detail.html), html: detail.html, links: linksOf(detail.html, detail.text) };
    },
    advanceClock: async (ms) => (await control.setClock({ advance_ms: ms })).data,
    fireEvent: async (event) => (await control.fireEvent(event)).data,
    checkReceiver: async (url, { effects, ...options } = {}) => {
      if (typeof effects !== 'function') return (await control.checkReceiver({ ...options, url, ...(effects ? { effects_url: effects } : {}) })).data;
      const served = await serveEffects(effects);
      try {
        return (await control.checkReceiver({ ...options, url, effects_url: served.url })).data;
      } finally {
        await served.close();
      }
    },
    createCatcher: async (options = {}) => {
      const catcher = (await control.createCatcher({ account_id: options.account_id, name: options.name, mode: options.mode as never })).data;
      const handle: CatcherHandle = {
        ...catcher,
        requests: () =>
          pages(async (cursor) => {
            const page = (await control.listCatcherRequests(catcher.id, { limit: 200, cursor })).data;
            return { items: page.requests, next: page.next_cursor };
          }),
        setMode: async (mode) => (await control.updateCatcher(catcher.id, { mode: mode as never })).data,
        pointWebhookHere: async () => void (await control.pointWebhookAtCatcher(catcher.id)),
        delete: async () => void (await control.deleteCatcher(catcher.id)),
      };
      if (options.useAsWebhook) await handle.pointWebhookHere();
      return handle;
    },
    setRules: async (rules) => (await control.setRules({ rules })).data.rules,
    setChaos: async (triggers) => (await control.setChaos(triggers)).data.triggers,
    reset: async () => {
      const result = (await control.resetEmulator()).data;
      deliveryDetails.clear();
      messageDetails.clear();
      return result;
    },
  };
}
