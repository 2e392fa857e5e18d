import type { z } from 'zod';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../../../../src-shared/events';
import { webhookBody } from '../../../../src-shared/payload-format';
import type { FireEventBody, FireEventResult } from '../../../../src-shared/schemas/dispatch';
import { EMAIL_EVENT_PAYLOADS, type EmailEventPayload } from '../../../../src-shared/schemas/events';
import type { FireOutcomes } from '../../../../src-shared/schemas/messages';
import { type Clock, isoTimestamp } from '../../clock';
import type { Dispatcher } from '../../dispatch/dispatcher';
import { appError } from '../../error-catalogue';
import type { AppError } from '../../errors';
import { monotonicUlids } from '../../ids';
import type { UnitOfWork } from '../../store/unit-of-work';
import { describeFieldError, errorMap, fieldErrors } from '../../zod-errors';
import type { AccountsService } from '../accounts.service';
import { WEBHOOK_TARGET, type WebhooksService } from '../webhooks.service';
import { type CopyState, type MessageFacts, type MessageLog, outcomeOf } from './message-log';
import { bounceDefaults, defaultPayload } from './synthetic-events';

/** A fired event's `ref_id` that names no stored send (or no copy of it to `recipient`): 404, in words. */
function unknownSend(refId: string, recipient: string | undefined, sendExists: boolean): AppError {
  return recipient !== undefined && sendExists ? appError('eventCopyNotFound', { refId, recipient }) : appError('eventSendNotFound', { refId });
}

export interface EmitResult {
  sent: boolean;
  deliveryId: string | null;
  /** Why it was not sent, in words. */
  reason: string | null;
}

/** An event recorded about a stored copy: its payload, and its delivery when the account's webhook takes it. */
export interface RecordedEvent extends EmitResult {
  payload: EmailEventPayload;
}

export interface EmailEventsDeps {
  /** The accounts' EMAIL_EVENT webhooks: which kinds each takes, and where they go. */
  webhooks: WebhooksService;
  accounts: AccountsService;
  dispatcher: Pick<Dispatcher, 'enqueue' | 'enqueuing' | 'commitEnqueued'>;
  clock: Clock;
  /** The email log every event about a stored copy enters. */
  log: MessageLog;
  /** An event, its log entry and its delivery commit together. */
  unitOfWork: UnitOfWork;
}

/** Email events on their way out: the account's EMAIL_EVENT webhook filter, then the dispatcher. */
export class EmailEventsService {
  private readonly newRefId = monotonicUlids();

  constructor(private readonly deps: EmailEventsDeps) {}

  /**
   * The payload of an event of `kind`: realistic defaults, the facts of the message it is about,
   * then `fields`; checked against the kind's payload schema (a 400 naming the field when broken).
   */
  buildPayload(kind: EmailEventKind, message: MessageFacts | undefined, fields: Record<string, unknown>, at: number, recipient?: string): EmailEventPayload {
    if (fields.event !== undefined && fields.event !== kind) {
      throw appError('eventKindMismatch');
    }
    const draft: Record<string, unknown> = defaultPayload(kind, {
      timestamp: isoTimestamp(at),
      refId: message?.refId ?? this.newRefId(at),
      recipient: recipient ?? message?.recipient.email ?? 'recipient@example.com',
    });
    if (message) {
      draft.campaign_id = message.campaignId;
      draft.custom_args = message.customArgs;
      if ('mailer_id' in draft) draft.mailer_id = message.mailerId;
      if (kind === 'delivery') {
        draft.recipient = { email: recipient ?? message.recipient.email, name: message.recipient.name };
        draft.sender = message.sender;
        draft.subject = message.subject;
      }
    }
    // A bounce's defaults follow the type and category the fields give (a soft override never keeps the hard reply).
    if (kind === 'bounce' && fields.bounce_reason === undefined && (fields.bounce_type !== undefined || fields.bounce_category !== undefined)) {
      const to = (fields.recipient as { email?: unknown } | undefined)?.email;
      Object.assign(draft, bounceDefaults(typeof to === 'string' ? to : (draft.recipient as { email: string }).email, fields));
    }
    Object.assign(draft, fields);
    const parsed = EMAIL_EVENT_PAYLOADS[kind].safeParse(draft, { error: errorMap });
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error.issues).map((e) => ({ ...e, path: e.path ? `fields.${e.path}` : 'fields' }));
      throw appError('invalidFields', { problem: describeFieldError(errors[0]!, 'fields'), errors });
    }
    return parsed.data as EmailEventPayload;
  }

  /**
   * Records an email event that happened to a stored copy (`message`, or its id), in one unit of work:
   * builds its payload, hands it to the account's webhook (when it takes the kind), enters it in the
   * copy's log, and commits its delivery with the rest. Run inside a caller's unit of work, it joins
   * it: a crash leaves the event with its log entry and its delivery, or none of them. Undefined when
   * the copy is gone. A payload that cannot be built throws (a 400 naming the field) before any write.
   */
  record(message: MessageFacts | string, kind: EmailEventKind, fields: Record<string, unknown>, at: number, recipient?: string): RecordedEvent | undefined {
    const { log, unitOfWork, dispatcher } = this.deps;
    const facts = typeof message === 'string' ? log.find(message) : message;
    if (!facts) return undefined;
    const payload = this.buildPayload(kind, facts, fields, at, recipient);
    return dispatcher.enqueuing(() =>
      unitOfWork.run(() => {
        const result = this.emitEmailEvent(facts.accountId, payload);
        log.apply(facts, payload, result.deliveryId);
        dispatcher.commitEnqueued();
        return { payload, ...result };
      }),
    );
  }

  /** The stored copies these keys name, by key (gone ones are left out): one read for a batch of scheduled events. */
  factsOf(messageIds: readonly string[]): Map<string, MessageFacts> {
    return this.deps.log.findMany(messageIds);
  }

  /** What a delivery needs of the copies these keys name (gone ones are left out): a narrower read than factsOf. */
  statesOf(messageIds: readonly string[]): Map<string, CopyState> {
    return this.deps.log.findStates(messageIds);
  }

  /**
   * Whether a scheduled event is a delivery nobody is told of: the default delivery, with no fields of
   * its own, at a copy whose account's webhook does not take deliveries. Nobody would read its payload,
   * so only its log entry and status are written (a third of its cost was building and checking the
   * payload); most scheduled events are one.
   */
  isUntoldDelivery(message: Pick<MessageFacts, 'accountId'>, kind: EmailEventKind, fields: Record<string, unknown>): boolean {
    return kind === 'delivery' && Object.keys(fields).length === 0 && !this.filterFor(message.accountId, kind).filter;
  }

  /**
   * Records a batch's untold deliveries (see isUntoldDelivery) together, a statement for their log
   * entries and one for their statuses; each copy at most once. Inside the simulator's unit of work.
   */
  recordUntoldDeliveries(events: ReadonlyArray<{ message: CopyState; at: number }>): void {
    this.deps.log.applyDeliveries(events.map(({ message, at }) => ({ message, timestamp: isoTimestamp(at) })));
  }

  /** A scheduled event's turn has come (the simulator, inside its batch's unit of work). */
  recordScheduled(message: MessageFacts, kind: EmailEventKind, fields: Record<string, unknown>, at: number): void {
    if (this.isUntoldDelivery(message, kind, fields)) this.deps.log.applyDelivery(message, isoTimestamp(at));
    else this.record(message, kind, fields, at);
  }

  /** The account's EMAIL_EVENT webhook when it takes events of `kind`, else why not, in words. */
  private filterFor(accountId: string, kind: EmailEventKind) {
    const filter = this.deps.webhooks.emailEventFilter(accountId);
    if (!filter) return { filter: undefined, reason: 'the account has no EMAIL_EVENT webhook; register one to receive events' };
    if (!filter.enabled[kind]) return { filter: undefined, reason: `the EMAIL_EVENT webhook does not have ${kind} enabled in webhook_options.events` };
    return { filter, reason: null };
  }

  /**
   * What firing each kind at this stored copy with no field overrides (the UI's Fire) would do to it,
   * its payloads built as fireSynthetic builds them (see outcomeOf). Nothing is fired or written.
   */
  outcomesOf(message: MessageFacts): FireOutcomes {
    const at = this.deps.clock.now();
    return Object.fromEntries(EMAIL_EVENT_KINDS.map((kind) => [kind, outcomeOf(message, this.buildPayload(kind, message, {}, at))])) as FireOutcomes;
  }

  /** The body the account's webhook gets for `payload`: in the shape the account chose (or the start option's). */
  bodyFor(accountId: string, payload: EmailEventPayload) {
    return webhookBody(this.deps.accounts.payloadFormat(accountId), payload);
  }

  /**
   * Hands an email event to the dispatcher when the account's webhook has its kind enabled, as the
   * body the account's shape gives: the delivery stores and sends (and signs) exactly that body.
   */
  emitEmailEvent(accountId: string, payload: EmailEventPayload): EmitResult {
    const { filter, reason } = this.filterFor(accountId, payload.event);
    if (!filter) return { sent: false, deliveryId: null, reason };
    const deliveryId = this.deps.dispatcher.enqueue({
      accountId,
      target: { kind: WEBHOOK_TARGET, id: filter.webhookId, url: filter.url },
      category: 'EMAIL_EVENT',
      event: payload.event,
      refId: payload.ref_id,
      payload: this.bodyFor(accountId, payload),
    });
    return { sent: true, deliveryId, reason: null };
  }

  /**
   * A synthetic event (Stripe CLI's `trigger`, for email): a realistic payload of the kind, with the
   * caller's ref_id, recipient and field overrides, checked against the kind's payload schema and sent
   * through the same filter, dispatcher, retries and log as a simulated one.
   */
  fireSynthetic(body: z.output<typeof FireEventBody>): z.output<typeof FireEventResult> {
    const message = body.ref_id === undefined ? undefined : this.deps.log.findBySend(body.ref_id, body.recipient);
    // `ref_id` names a stored send: an unknown one is refused rather than sent (its delivery would link
    // to nothing). A free-standing event leaves it out (a ref_id is generated) or sets `fields.ref_id`.
    if (body.ref_id !== undefined && !message) throw unknownSend(body.ref_id, body.recipient, this.deps.log.findBySend(body.ref_id) !== undefined);
    const accountId = this.deps.accounts.accountIdOr404(body.account_id ?? message?.accountId);
    const fields = { ...(message || body.ref_id === undefined ? {} : { ref_id: body.ref_id }), ...body.fields };
    const at = this.deps.clock.now();
    if (body.dry_run === true) {
      const payload = this.buildPayload(body.event, message, fields, at, body.recipient);
      const { reason } = this.filterFor(accountId, payload.event);
      return { payload: this.bodyFor(accountId, payload), delivery_id: null, sent: reason === null, reason, dry_run: true };
    }
    // An event about a stored message of the account is part of its log, as a simulated one would be.
    const result =
      message && message.accountId === accountId
        ? this.record(message, body.event, fields, at, body.recipient)!
        : this.emitAlone(accountId, this.buildPayload(body.event, message, fields, at, body.recipient));
    // The answer shows the body as the account's webhook gets it.
    return { payload: this.bodyFor(accountId, result.payload), delivery_id: result.deliveryId, sent: result.sent, reason: result.reason };
  }

  /** An event about no stored copy of the account: its delivery alone, committed before the answer. */
  private emitAlone(accountId: string, payload: EmailEventPayload): RecordedEvent {
    const { dispatcher, unitOfWork } = this.deps;
    return dispatcher.enqueuing(() =>
      unitOfWork.run(() => {
        const result = this.emitEmailEvent(accountId, payload);
        dispatcher.commitEnqueued();
        return { payload, ...result };
      }),
    );
  }
}
