/**
 * `mailyard/testing`: the emulator inside a test suite (vitest, jest, mocha, node:test).
 *
 *   const yard = await startMailyard();            // free ports, a fresh in-memory store
 *   process.env.MAIL_API_URL = yard.url;           // point the code under test at it
 *   ...
 *   const bounce = await yard.waitForDelivery((d) => d.event === 'bounce' && d.status === 'succeeded');
 *   await yard.reset();                            // between tests
 *   await yard.stop();                             // after all
 *
 * It runs the one emulator core (`createEmulator`) in the test's process; the helpers talk to it
 * through its control API with the typed clients.
 */
import { ControlClient, ServiceClient } from '../../src-shared/clients';
import type { DeliveryDetail } from '../../src-shared/schemas/dispatch';
import type { MessageDetail } from '../../src-shared/schemas/messages';
import type { EmulatorConfigInput } from '../core/config';
import { createEmulator, VERSION as CORE_VERSION } from '../core';
import { builtUiDir } from './built-ui';
import { waitForMatch, type WaitOptions } from './waiters';

export { ApiError, ControlClient, ServiceClient } from '../../src-shared/clients';
export { WaitTimeoutError, type WaitOptions } from './waiters';
/** The package's version. */
export const VERSION: string = CORE_VERSION;

type Data<T extends (...args: never[]) => Promise<{ data: unknown }>> = Awaited<ReturnType<T>>['data'];

/** What a webhook receiver got (or is still to get) in a delivery's body; email events carry these fields. */
export interface WebhookPayload {
  event?: string;
  ref_id?: string;
  timestamp?: string;
  recipient?: { email: string; name?: string };
  [field: string]: unknown;
}

/** One webhook delivery as the control API shows it: its status, its attempts (request and response) and its payload. */
export type Delivery = Omit<DeliveryDetail, 'payload'> & { payload: WebhookPayload };
/** One recipient's copy of a send (API or SMTP) as captured: headers, text, HTML, attachments, events. */
export type CapturedMessage = MessageDetail;
export type ClockState = Data<ControlClient['setClock']>;
export type FireEventInput = Parameters<ControlClient['fireEvent']>[0];
export type FireEventResult = Data<ControlClient['fireEvent']>;
export type SimulationRule = Data<ControlClient['setRules']>['rules'][number];
export type ResetResult = Data<ControlClient['reset']>;

/**
 * Options of `startMailyard`: every option of `mailyard serve` (camelCase: `strictSenders`,
 * `retrySchedule`, `smtpAuth`, ...). Differences from `mailyard serve`: ports default to 0 (free
 * ones), the store is in memory unless `dataDir` is given, and logs are silent (`logLevel`).
 */
export interface StartMailyardOptions extends Omit<EmulatorConfigInput, 'memory' | 'uiDir' | 'httpPort' | 'smtpPort'> {
  /** HTTP port (default 0: a free one). */
  httpPort?: number;
  /** SMTP port (default 0: a free one). */
  smtpPort?: number;
  /** Keep the store in this folder (created when missing) instead of memory; `stop()` leaves it. */
  dataDir?: string;
  /** The default account's API key on a fresh store (8 to 256 token characters); generated when absent. */
  apiKey?: string;
  /** Serve the web UI at `url`, to look at a test while it runs (default: true). */
  ui?: boolean;
}

export interface Mailyard {
  readonly version: string;
  /** The HTTP base URL: the service API under `/v1`, the control API under `/emulator`, the web UI at `/`. */
  readonly url: string;
  readonly urls: { http: string; smtp: string };
  readonly httpPort: number;
  /** Where the SMTP sink listens (no TLS needed; AUTH optional unless `smtpAuth: 'required'`). */
  readonly smtp: { host: string; port: number };
  readonly smtpPort: number;
  /** The API key to give the code under test (`X-API-Key` or `Authorization: Bearer`). */
  readonly apiKey: string;
  /**
   * The control key (`Authorization: Bearer <key>` on `/emulator`, or the web UI's login): made at
   * start when `host` is beyond loopback, the one given as `controlKey`; `null` on loopback without one.
   * `control` and the helpers send it.
   */
  readonly controlKey: string | null;
  /** The account that key belongs to. */
  readonly accountId: string;
  /** `null` for the in-memory store. */
  readonly dataDir: string | null;
  /** The service API (`/v1`), authenticated with `apiKey`; methods are the spec's operation names. */
  readonly service: ServiceClient;
  /** The control API (`/emulator`): messages, deliveries, clock, rules, events, reset. */
  readonly control: ControlClient;
  /**
   * Resolves with the first webhook delivery (oldest first) the predicate accepts, in any status:
   * check `d.status === 'succeeded'` to wait until the receiver answered 2xx. Rejects with a
   * `WaitTimeoutError` that lists every delivery that did arrive.
   */
  waitForDelivery(predicate: (delivery: Delivery) => boolean | Promise<boolean>, options?: WaitOptions): Promise<Delivery>;
  /** Resolves with the first captured message (oldest first) the predicate accepts; a `WaitTimeoutError` lists what arrived. */
  waitForMessage(predicate: (message: CapturedMessage) => boolean | Promise<boolean>, options?: WaitOptions): Promise<CapturedMessage>;
  /** Every webhook delivery so far, oldest first. */
  deliveries(): Promise<Delivery[]>;
  /** Every captured message so far, oldest first. */
  messages(): Promise<CapturedMessage[]>;
  /** Moves the emulator clock ahead: scheduled email events and due webhook retries happen at once. */
  advanceClock(ms: number): Promise<ClockState>;
  /** Fires a synthetic email event through the account's webhook, like `stripe trigger`. */
  fireEvent(event: FireEventInput): Promise<FireEventResult>;
  /** Replaces the simulation rules (pattern to events, tried before the simulator addresses). */
  setRules(rules: SimulationRule[]): Promise<SimulationRule[]>;
  /** Wipes messages, deliveries, webhooks, rules, ... and puts the clock back; keeps the account and its key. */
  reset(): Promise<ResetResult>;
  /** Stops the emulator (webhook attempts in flight get a short grace). Safe to call twice. */
  stop(): Promise<void>;
}

/** Pages through a cursor-paged list, newest first as the control API answers, up to `max` records. */
async function pages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>, max = 10_000): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    all.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor && all.length < max);
  return all;
}

/** Details fetched once per version of a record: re-fetched when its summary or an announcement says it changed. */
class DetailCache<T> {
  private readonly entries = new Map<string, { version: string; detail: T }>();

  async get(id: string, version: string, fetchDetail: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(id);
    if (hit && hit.version === version) return hit.detail;
    const detail = await fetchDetail();
    this.entries.set(id, { version, detail });
    return detail;
  }

  forget(id?: string): void {
    if (id === undefined) this.entries.clear();
    else this.entries.delete(id);
  }
}

function describeDelivery(d: Delivery): string {
  const parts = [d.id, d.event, `ref_id=${d.ref_id ?? '-'}`];
  if (d.payload?.recipient?.email) parts.push(`recipient=${d.payload.recipient.email}`);
  parts.push(`status=${d.status}`, `attempts=${d.attempts}`);
  if (d.last_status_code !== null) parts.push(`last_status=${d.last_status_code}`);
  if (d.last_error) parts.push(`last_error=${JSON.stringify(d.last_error)}`);
  parts.push(`-> ${d.target.url}`);
  return parts.join(' ');
}

function describeMessage(m: CapturedMessage): string {
  return `${m.id} to=${m.recipient.email} from=${m.from.email} subject=${JSON.stringify(m.subject)} status=${m.status} ref_id=${m.ref_id}`;
}

/** Starts an emulator for a test suite; see the module's comment and the README ("Testing API"). */
export async function startMailyard(options: StartMailyardOptions = {}): Promise<Mailyard> {
  const { ui = true, dataDir, ...config } = options;
  const handle = await createEmulator({
    httpPort: 0,
    smtpPort: 0,
    logLevel: 'silent',
    ...config,
    ...(dataDir === undefined ? { memory: true } : { dataDir }),
    uiDir: ui ? builtUiDir(import.meta.dirname) : undefined,
  });
  const apiKey = options.apiKey ?? handle.defaultAccount.apiKey;
  const url = handle.urls.http;
  const service = new ServiceClient({ baseUrl: url, apiKey });
  // Beyond loopback (`host: '0.0.0.0'`) or with `controlKey` given, the control API needs the key.
  const controlKey = handle.config.controlKey ?? null;
  const control = new ControlClient({ baseUrl: url, headers: controlKey === null ? undefined : { authorization: `Bearer ${controlKey}` } });
  const account = (await control.listAccounts()).data.find((a) => a.api_key === apiKey);
  const smtpPort = handle.ports.smtp!;

  const deliveryDetails = new DetailCache<Delivery>();
  const messageDetails = new DetailCache<CapturedMessage>();
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const live = handle.live;
  const stopListening = [
    live.on('delivery.created', changed),
    live.on('delivery.updated', (d) => {
      deliveryDetails.forget(d.id);
      changed();
    }),
    live.on('attempt.completed', (a) => {
      deliveryDetails.forget(a.delivery_id);
      changed();
    }),
    live.on('message.created', changed),
    live.on('message.updated', (m) => {
      messageDetails.forget(m.message_id);
      changed();
    }),
  ];
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };

  const deliveries = async (): Promise<Delivery[]> => {
    const summaries = await pages(async (cursor) => {
      const page = (await control.listDeliveries({ limit: 500, cursor })).data;
      return { items: page.deliveries, next: page.next_cursor };
    });
    const details: Delivery[] = [];
    for (const s of summaries.reverse()) {
      details.push(
        await deliveryDetails.get(s.id, `${s.updated_at} ${s.status} ${s.attempts}`, async () => {
          const d = (await control.getDelivery(s.id)).data;
          // The control API answers a payload over 256 KiB in part: a test gets it whole.
          return { ...d, payload: d.payload_truncated ? await control.getDeliveryPayload(s.id) : d.payload } as Delivery;
        }),
      );
    }
    return details;
  };
  const messages = async (): Promise<CapturedMessage[]> => {
    const summaries = await pages(async (cursor) => {
      const page = (await control.listMessages({ limit: 500, cursor })).data;
      return { items: page.messages, next: page.next_cursor };
    });
    const details: CapturedMessage[] = [];
    for (const s of summaries.reverse()) {
      details.push(await messageDetails.get(s.id, s.status, async () => (await control.getMessage(s.id)).data));
    }
    return details;
  };

  let stopping: Promise<void> | undefined;
  return {
    version: handle.version,
    url,
    urls: { http: url, smtp: handle.urls.smtp! },
    httpPort: handle.ports.http,
    smtp: { host: handle.config.host, port: smtpPort },
    smtpPort,
    apiKey,
    controlKey,
    accountId: account?.id ?? handle.defaultAccount.id,
    dataDir: handle.dataDir,
    service,
    control,
    waitForDelivery: (predicate, waitOptions) =>
      waitForMatch({ what: 'webhook delivery', helper: 'waitForDelivery', collect: deliveries, describe: describeDelivery, subscribe }, predicate, waitOptions),
    waitForMessage: (predicate, waitOptions) =>
      waitForMatch({ what: 'captured message', helper: 'waitForMessage', collect: messages, describe: describeMessage, subscribe }, predicate, waitOptions),
    deliveries,
    messages,
    advanceClock: async (ms) => (await control.setClock({ advance_ms: ms })).data,
    fireEvent: async (event) => (await control.fireEvent(event)).data,
    setRules: async (rules) => (await control.setRules({ rules })).data.rules,
    reset: async () => {
      const result = (await control.reset()).data;
      deliveryDetails.forget();
      messageDetails.forget();
      return result;
    },
    stop() {
      stopping ??= (async () => {
        for (const off of stopListening) off();
        listeners.clear();
        await handle.close();
      })();
      return stopping;
    },
  };
}

