import { monotonicFactory } from 'ulid';
import type { EmailEventKind } from '../../../src-shared/events';
import { EMAIL_EVENT_PAYLOADS, type EmailEventPayload } from '../../../src-shared/schemas/events';
import type { FireEventBody, FireEventResult } from '../../../src-shared/schemas/dispatch';
import type { z } from 'zod';
import { isoTimestamp, type Clock } from '../clock';
import type { Dispatcher } from '../dispatch/dispatcher';
import { AppError } from '../errors';
import { describeFieldError, fieldErrors } from '../zod-errors';
import type { AccountsService } from './accounts.service';
import { defaultPayload } from './synthetic-events';
import type { WebhooksService } from './webhooks.service';

export const WEBHOOK_TARGET = 'webhook';

export interface EmitResult {
  sent: boolean;
  deliveryId: string | null;
  /** Why it was not sent, in words. */
  reason: string | null;
}

/** Email events on their way out: the account's EMAIL_EVENT webhook filter, then the dispatcher. */
export class EventsService {
  private readonly newRefId = monotonicFactory();

  constructor(
    private readonly webhooks: WebhooksService,
    private readonly accounts: AccountsService,
    private readonly dispatcher: Dispatcher,
    private readonly clock: Clock,
  ) {}

  /** Hands an email event to the dispatcher when the account's webhook has its kind enabled. */
  emitEmailEvent(accountId: string, payload: EmailEventPayload): EmitResult {
    const filter = this.webhooks.emailEventFilter(accountId);
    if (!filter) return { sent: false, deliveryId: null, reason: 'the account has no EMAIL_EVENT webhook; register one to receive events' };
    if (!filter.enabled[payload.event]) {
      return { sent: false, deliveryId: null, reason: `the EMAIL_EVENT webhook does not have ${payload.event} enabled in webhook_options.events` };
    }
    const deliveryId = this.dispatcher.enqueue({
      accountId,
      target: { kind: WEBHOOK_TARGET, id: filter.webhookId, url: filter.url },
      category: 'EMAIL_EVENT',
      event: payload.event,
      refId: payload.ref_id,
      payload,
    });
    return { sent: true, deliveryId, reason: null };
  }

  /**
   * A synthetic event (Stripe CLI's `trigger`, for email): a realistic payload of the kind, with the
   * caller's ref_id, recipient and field overrides, checked against the kind's payload schema and sent
   * through the same filter, dispatcher, retries and log as a simulated one.
   */
  fireSynthetic(body: z.output<typeof FireEventBody>): z.output<typeof FireEventResult> {
    const account = body.account_id ? this.accounts.get(body.account_id) : this.accounts.defaultAccount();
    if (!account) throw new AppError('not_found', 'Account Not Found');
    const kind: EmailEventKind = body.event;
    if (body.fields?.event !== undefined && body.fields.event !== kind) {
      throw new AppError('validation', 'fields.event must match event', [{ path: 'fields.event', message: 'must match event' }]);
    }
    const draft = {
      ...defaultPayload(kind, {
        timestamp: isoTimestamp(this.clock.now()),
        refId: body.ref_id ?? this.newRefId(this.clock.now()),
        recipient: body.recipient ?? 'recipient@example.com',
      }),
      ...body.fields,
    };
    const parsed = EMAIL_EVENT_PAYLOADS[kind].safeParse(draft);
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error.issues).map((e) => ({ ...e, path: e.path ? `fields.${e.path}` : 'fields' }));
      throw new AppError('validation', describeFieldError(errors[0]!, 'fields'), errors);
    }
    const payload = parsed.data as EmailEventPayload;
    const result = this.emitEmailEvent(account.id, payload);
    return { payload, delivery_id: result.deliveryId, sent: result.sent, reason: result.reason };
  }
}
