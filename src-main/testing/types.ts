import type { z } from 'zod';
/**
 * The types of `mailyard/testing`: records as the helpers hand them over, the filters the emulator
 * applies itself, and the helpers every handle has (started in-process or connected to a running one).
 */
import type { ControlClient, ServiceClient } from '../../src-shared/clients';
import type { EmailEventKind } from '../../src-shared/events';
import type { ScenarioInput } from '../../src-shared/scenario/format';
import type { ScenarioReport } from '../../src-shared/scenario/report';
import type { Catcher, CatcherModeInput, CatcherRequest } from '../../src-shared/schemas/catchers';
import type { ClockState as ClockStateSchema, DeliveryDetail } from '../../src-shared/schemas/dispatch';
import type { EMAIL_EVENT_PAYLOADS } from '../../src-shared/schemas/events';
import type { ChaosTriggers, ChaosTriggersInput } from '../../src-shared/schemas/mailpit';
import type { MessageDetail, MessageWaitFilter } from '../../src-shared/schemas/messages';
import type { WaitOptions } from './waiters';

/** How `runScenario` waits. */
export interface RunScenarioOptions {
  /** Give up waiting for the report after this many ms of wall time (default 10 minutes); the run is stopped. */
  timeoutMs?: number | undefined;
  /** An existing account to run on, sending as it (`yard.control.listAccounts()`), instead of the scenario's own (new or default). */
  accountId?: string | undefined;
}

type Data<T extends (...args: never[]) => Promise<{ data: unknown }>> = Awaited<ReturnType<T>>['data'];

/** The payload of an email event of kind K, exactly as the webhook receiver gets it. */
export type EmailEventPayloadOf<K extends EmailEventKind> = z.infer<(typeof EMAIL_EVENT_PAYLOADS)[K]>;
/** Every email event payload: a union discriminated by `event` (narrow with `if (p.event === 'bounce')`). */
export type EmailEventPayload = { [K in EmailEventKind]: EmailEventPayloadOf<K> }[EmailEventKind];

/**
 * What a webhook receiver got (or is still to get), loosely: any delivery's JSON (inbound posts, IMAP
 * webhooks and domain notifications too). `Delivery<'bounce'>` (from `waitForDelivery({ event: 'bounce' })`
 * or `isEmailEvent(d, 'bounce')`) has the bounce's exact payload type instead.
 */
export interface WebhookPayload {
  event?: string;
  ref_id?: string;
  timestamp?: string;
  recipient?: { email: string; name?: string };
  [field: string]: unknown;
}

/**
 * One webhook delivery: its status, its attempts (request and response) and its payload. For an email
 * event kind K its payload is that kind's exact type (a discriminated union member by `event`).
 */
export type Delivery<K extends string = string> = Omit<DeliveryDetail, 'payload' | 'event'> &
  (K extends EmailEventKind ? { event: K; payload: EmailEventPayloadOf<K> } : { event: string; payload: WebhookPayload });

/** One recipient's copy of a send (API or SMTP) as captured: headers, text, HTML, attachments (with checksums), events. */
export type CapturedMessage = MessageDetail;

/**
 * What the emulator itself filters captured messages on (every field given must hold): `recipient`
 * and `from` exactly (case-insensitive), `subject` as a case-insensitive substring, `event`: the copy had it.
 */
export type MessageFilter = MessageWaitFilter;

/** How a catcher answers: `{ status: 500 }`, `{ fail_percent: 30 }`, `{ hang: true }`, `{ require_header: { name, value } }`... (docs/workbench.md). */
export type CatcherMode = CatcherModeInput;
/** A request a catcher received, with what it answered, the signature verdict and the delivery that sent it. */
export type CaughtRequest = CatcherRequest;

export interface CatcherOptions {
  /** The account it belongs to (default: the default account). */
  account_id?: string | undefined;
  name?: string | undefined;
  mode?: CatcherMode | undefined;
  /** Make it the account's EMAIL_EVENT webhook, every event kind on (default false). */
  useAsWebhook?: boolean | undefined;
}

/** A catcher: a receiver inside Mailyard, at `url`, recording what it receives. */
export interface CatcherHandle extends Catcher {
  /** What it has received and kept, oldest first (as the other helpers' lists). */
  requests(): Promise<CaughtRequest[]>;
  /** Changes how it answers (the mode is replaced whole: fields left out take their defaults). */
  setMode(mode: CatcherMode): Promise<Catcher>;
  /** Makes it the account's EMAIL_EVENT webhook, every event kind on. */
  pointWebhookHere(): Promise<void>;
  delete(): Promise<void>;
}

/** What the emulator filters webhook deliveries on (the control API's list filters). */
export interface DeliveryFilter<K extends string = string> {
  event?: K;
  ref_id?: string;
  /** The recipient's address, exactly (case-insensitive). */
  recipient?: string;
  /** `succeeded` waits until the receiver answered 2xx; `failing`: retrying after a failed attempt. */
  status?: 'pending' | 'sending' | 'succeeded' | 'failed' | 'cancelled' | 'failing';
  category?: string;
  target_id?: string;
  account_id?: string;
  /** Text in the recipient, the target URL or the payload. */
  q?: string;
}

/** The clock after a move: `in_flight` counts webhook attempts the move made due whose receiver had not answered yet. */
export type ClockState = ClockStateSchema;
export type FireEventInput = Parameters<ControlClient['fireEvent']>[0];
export type FireEventResult = Data<ControlClient['fireEvent']>;
export type SimulationRule = Data<ControlClient['setRules']>['rules'][number];
export type ResetResult = Data<ControlClient['resetEmulator']>;
/**
 * What `checkReceiver` is told of the receiver's webhook: its method, headers, secret header, event
 * kinds, payload format, signing secret, quick-ack bound; and how to see what the receiver did.
 */
export type CheckReceiverOptions = Omit<Parameters<ControlClient['checkReceiver']>[0], 'url'> & {
  /**
   * How many events the receiver has acted on so far, asked before and after the checks that judge
   * processing (a duplicate acted on once, two different events both acted on). A function (served to
   * the emulator on 127.0.0.1 while the check runs), or the URL of the receiver's own GET answering
   * `{"processed": N}` (`effects_url`). Without it those checks grade the answers only, and say so.
   */
  effects?: (() => number | Promise<number>) | string;
};
export type ReceiverCheckReport = Data<ControlClient['checkReceiver']>;

/** A message's content for assertions (see `yard.content(message)`). */
export interface MessageContent {
  /** The raw RFC 5322 source (.eml) as captured, byte for byte. */
  raw: Buffer;
  /** The text part, or the HTML's text when there is none; "" when neither. */
  text: string;
  html: string | null;
  /** Every link of the HTML (href) and of the text (http/https URLs), in order, each once. */
  links: string[];
}

/** Match a captured message by a filter the emulator applies, or by a function of the message (see waitForMessage). */
export type MessageMatch = MessageFilter | ((message: CapturedMessage) => boolean | Promise<boolean>);
/** Match a delivery by a filter the emulator applies, or by a function of the delivery. */
export type DeliveryMatch<K extends string = string> = DeliveryFilter<K> | ((delivery: Delivery) => boolean | Promise<boolean>);

/** Waiting options of the helpers: `filter` narrows on the emulator before a function predicate is tried. */
export interface MatchOptions<F> extends WaitOptions {
  /** With a function predicate: only records this filter finds are tried (the emulator filters them). */
  filter?: F | undefined;
}

/** The helpers of a handle, whether `startMailyard` started the emulator or `connectMailyard` attached to one. */
export interface MailyardHelpers {
  /** The HTTP base URL: the service API under `/v1`, the control API under `/emulator`, the web UI at `/`. */
  readonly url: string;
  /** The API key to give the code under test (`X-API-Key` or `Authorization: Bearer`). */
  readonly apiKey: string;
  /** The control key the helpers send (`Authorization: Bearer`), or null. */
  readonly controlKey: string | null;
  /** The service API (`/v1`), authenticated with `apiKey`; methods are the spec's operation names. */
  readonly service: ServiceClient;
  /** The control API (`/emulator`): messages, deliveries, clock, rules, events, reset. */
  readonly control: ControlClient;
  /**
   * Resolves with the first webhook delivery (oldest first) that matches: a filter object is applied
   * by the emulator, which answers as soon as one exists (cost independent of the store's size); a
   * function is tried on the deliveries `options.filter` finds (or the newest 500). Rejects with a
   * `WaitTimeoutError` listing what did arrive.
   */
  waitForDelivery<K extends EmailEventKind>(match: DeliveryFilter<K> & { event: K }, options?: WaitOptions): Promise<Delivery<K>>;
  waitForDelivery(match: DeliveryMatch, options?: MatchOptions<DeliveryFilter>): Promise<Delivery>;
  /** Resolves with the first captured message (oldest first) that matches; as waitForDelivery. */
  waitForMessage(match: MessageMatch, options?: MatchOptions<MessageFilter>): Promise<CapturedMessage>;
  /** Webhook deliveries so far, oldest first (the newest 10,000 at most); with a filter, the first 100 the emulator finds among the newest 1,000 matches. */
  deliveries(filter?: DeliveryFilter): Promise<Delivery[]>;
  /** Captured messages so far, oldest first (the newest 10,000 at most). */
  messages(): Promise<CapturedMessage[]>;
  /** The raw source (.eml), text, HTML and links of a captured message (or its id). */
  content(message: CapturedMessage | string): Promise<MessageContent>;
  /** The raw source (.eml) of a captured message, byte for byte. */
  raw(message: CapturedMessage | string): Promise<Buffer>;
  /** The bytes of a message's attachment, by its index in `attachments`. */
  attachment(message: CapturedMessage | string, index: number): Promise<Buffer>;
  /**
   * Moves the emulator clock ahead and resolves once the work it made due is recorded: scheduled
   * events in the logs, due webhook attempts made (`in_flight` counts those whose receiver had not
   * answered yet when the move stopped waiting).
   */
  advanceClock(ms: number): Promise<ClockState>;
  /** Fires a synthetic email event through the account's webhook, like `stripe trigger`. */
  fireEvent(event: FireEventInput): Promise<FireEventResult>;
  /**
   * Certifies your webhook receiver at `url`: sends it what the service will (every event kind, a
   * duplicate, events out of order, two events of one kind for one message, unknown fields, its secret header missing and wrong, bad signatures
   * when signing) and answers every check graded, with its requests and answers; `passed` is the verdict.
   */
  checkReceiver(url: string, options?: CheckReceiverOptions): Promise<ReceiverCheckReport>;
  /** Creates a catcher: a webhook receiver inside Mailyard that records what it gets and answers as told. */
  createCatcher(options?: CatcherOptions): Promise<CatcherHandle>;
  /** Replaces the simulation rules (pattern to events, tried before the simulator addresses). */
  setRules(rules: SimulationRule[]): Promise<SimulationRule[]>;
  /**
   * Sets Mailpit's chaos triggers, replacing all (one left out is off): the SMTP sink then refuses
   * MAIL FROM (`Sender`), RCPT TO (`Recipient`) or AUTH (`Authentication`) with `ErrorCode` in
   * `Probability` of 100 commands. Needs `enableChaos: true` (`--enable-chaos`); `{}` turns all off.
   */
  setChaos(triggers: ChaosTriggersInput): Promise<ChaosTriggers>;
  /** Wipes messages, deliveries, webhooks, rules, ..., turns chaos triggers off and puts the clock back; keeps the accounts and their keys. */
  reset(): Promise<ResetResult>;
  /**
   * Runs a QA scenario (a file's path, YAML or JSON, or the scenario as an object; docs/scenarios.md)
   * and resolves with its report once it has finished: `report.verdict` is `pass`, `fail`, or
   * `inconclusive` when an expectation had nothing to judge (assert `pass`). A bad scenario rejects
   * with an ApiError naming each problem's line and field.
   */
  runScenario(scenario: string | ScenarioInput, options?: RunScenarioOptions): Promise<ScenarioReport>;
}
