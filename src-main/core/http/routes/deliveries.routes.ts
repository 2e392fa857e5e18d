import { toCurl } from '../../../../src-shared/curl';
import type { deliveryOperations } from '../../../../src-shared/operations/control/deliveries';
import { DELIVERY_BODY_LIMITS, deliveryPayloadPath, MAX_RETRY_FAILING } from '../../../../src-shared/schemas/dispatch';
import { decodeCursor, paginate } from '../../cursor';
import type { DeliveryQueries } from '../../dispatch/delivery-queries';
import type { Dispatcher } from '../../dispatch/dispatcher';
import { appError } from '../../error-catalogue';
import type { EmailEventsService } from '../../services/events/email-events.service';
import { download } from '../download';
import type { LongPoll } from '../long-poll';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** Matches a delivery wait reads at most (newest first). */
const WAIT_CANDIDATES = 1000;

/** Webhook deliveries and synthetic events. */
export function deliveryHandlers(deps: {
  dispatcher: Dispatcher;
  deliveries: DeliveryQueries;
  emailEvents: EmailEventsService;
  longPoll: LongPoll;
}): Handlers<typeof deliveryOperations> {
  const { dispatcher, deliveries, longPoll } = deps;
  return {
    listDeliveries: ({ query }) => {
      const { cursor, limit, ...filter } = query;
      const rows = deliveries.list({ ...filter, limit: limit + 1, before: cursor === undefined ? undefined : decodeCursor(cursor, 'cursor') });
      const { page, next } = paginate(rows, limit, (d) => d.id);
      return ok('Deliveries retrieved successfully', { deliveries: page, next_cursor: next });
    },
    waitForDeliveries: async ({ query, request }) => {
      const { wait_ms, limit, ...filter } = query;
      // The list is newest first: the oldest `limit` of the newest matches, oldest first.
      const answer = await longPoll(request, wait_ms, () =>
        deliveries
          .list({ ...filter, limit: WAIT_CANDIDATES })
          .reverse()
          .slice(0, limit),
      );
      return ok(answer.timed_out ? 'No delivery matched' : 'Deliveries matched', {
        deliveries: answer.found,
        timed_out: answer.timed_out,
        waited_ms: answer.waited_ms,
      });
    },
    countDeliveries: ({ query }) => ok('Deliveries counted', { count: deliveries.count(query) }),
    listEndpoints: ({ query }) => ok('Endpoints retrieved successfully', { endpoints: deliveries.endpoints(query.account_id) }),
    getDelivery: ({ params }) => {
      const delivery = deliveries.find(params.id);
      if (!delivery) throw appError('deliveryNotFound');
      return ok('Delivery retrieved successfully', delivery);
    },
    // The whole payload, as stored: JSON bytes, never parsed or re-encoded here, as a download.
    getDeliveryPayload: ({ params, reply }) => {
      const payload = deliveries.payload(params.id);
      if (!payload) throw appError('deliveryNotFound');
      return download(reply, `delivery-${params.id}.json`, 'application/json', payload);
    },
    retryDelivery: async ({ params }) => ok('Delivery attempted', await dispatcher.retryNow(params.id)),
    resendDelivery: ({ params, body }) => {
      const id = dispatcher.resend(params.id, body.payload);
      return ok('Edited payload queued as a new delivery', deliveries.find(id)!);
    },
    signDeliveryRequest: ({ params }) => {
      const request = dispatcher.requestNow(params.id);
      // A payload too large to show is sent from the file its download saves, as the detail shows it in part.
      const inline = Buffer.byteLength(request.body) <= DELIVERY_BODY_LIMITS.payloadShownBytes;
      const curl = toCurl(inline ? request : { ...request, bodyFile: `delivery-${params.id}.json` });
      const signedAt = new Date(Number(request.headers['webhook-timestamp']) * 1000).toISOString();
      return ok('Request signed now', {
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: inline ? request.body : null,
        payload_url: deliveryPayloadPath(params.id),
        signed_at: signedAt,
        curl,
      });
    },
    countFailingDeliveries: ({ params }) => ok('Failing deliveries counted', { count: dispatcher.countFailing(params.kind, params.id) }),
    retryFailingDeliveries: ({ params }) => {
      // Counted first: the attempts start at once, and one on the wire is no longer counted.
      const total = dispatcher.countFailing(params.kind, params.id);
      const ids = dispatcher.retryFailing(params.kind, params.id, MAX_RETRY_FAILING);
      return ok(`Retrying ${ids.length} failing deliveries`, { delivery_ids: ids, left: Math.max(0, total - ids.length) });
    },
    fireEvent: ({ body }) => {
      const result = deps.emailEvents.fireSynthetic(body);
      return ok(result.sent ? 'Event fired and queued for delivery' : `Event fired but not sent: ${result.reason}`, result);
    },
  };
}
