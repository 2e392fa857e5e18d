import type { FastifyInstance } from 'fastify';
import { controlOperations as ops } from '../../../../src-shared/operations';
import type { Dispatcher } from '../../dispatch/dispatcher';
import { decodeCursor, paginate } from '../../cursor';
import { AppError } from '../../errors';
import type { ClockService } from '../../services/clock.service';
import type { EmailEventsService } from '../../services/events/email-events.service';
import { registerOperation, toRoutePath } from '../operation-route';
import { ok } from '../respond';
import { parseInput } from '../validation';
import { closingOf, download, longPoll } from './messages.routes';

/** Matches a delivery wait reads at most (newest first). */
const WAIT_CANDIDATES = 1000;

export interface DispatchRouteDeps {
  clockControl: ClockService;
  dispatcher: Dispatcher;
  emailEvents: EmailEventsService;
}

export function dispatchRoutes(app: FastifyInstance, deps: DispatchRouteDeps): void {
  const { clockControl, dispatcher } = deps;

  registerOperation(app, ops.getClock, () => ok('Clock retrieved successfully', clockControl.state()));
  registerOperation(app, ops.setClock, async ({ body }) => ok('Clock updated', await clockControl.set(body)));

  registerOperation(app, ops.listDeliveries, ({ query }) => {
    const { cursor, limit, ...filter } = query;
    const rows = dispatcher.list({ ...filter, limit: limit + 1, before: cursor === undefined ? undefined : decodeCursor(cursor, 'cursor') });
    const { page, next } = paginate(rows, limit, (d) => d.id);
    return ok('Deliveries retrieved successfully', { deliveries: page, next_cursor: next });
  });

  closingOf(app);
  registerOperation(app, ops.waitForDeliveries, async ({ query, request }) => {
    const { wait_ms, limit, ...filter } = query;
    // The list is newest first: the oldest `limit` of the newest matches, oldest first.
    const answer = await longPoll(app, request, wait_ms, () => dispatcher.list({ ...filter, limit: WAIT_CANDIDATES }).reverse().slice(0, limit));
    return ok(answer.timed_out ? 'No delivery matched' : 'Deliveries matched', { deliveries: answer.found, timed_out: answer.timed_out, waited_ms: answer.waited_ms });
  });
  registerOperation(app, ops.countDeliveries, ({ query }) => ok('Deliveries counted', { count: dispatcher.count(query) }));

  registerOperation(app, ops.listEndpoints, ({ query }) => ok('Endpoints retrieved successfully', { endpoints: dispatcher.endpoints(query.account_id) }));

  registerOperation(app, ops.getDelivery, ({ params }) => {
    const delivery = dispatcher.find(params.id);
    if (!delivery) throw new AppError('not_found', 'Delivery Not Found');
    return ok('Delivery retrieved successfully', delivery);
  });

  // The whole payload, as stored: JSON bytes, never parsed or re-encoded here, as a download.
  app.get(toRoutePath(ops.getDeliveryPayload.path), (request, reply) => {
    const { id } = parseInput(ops.getDeliveryPayload.params, request.params, 'params');
    const payload = dispatcher.payload(id);
    if (!payload) throw new AppError('not_found', 'Delivery Not Found');
    return download(reply, `delivery-${id}.json`, 'application/json', payload);
  });

  registerOperation(app, ops.retryDelivery, async ({ params }) => ok('Delivery attempted', await dispatcher.retryNow(params.id)));

  registerOperation(app, ops.fireEvent, ({ body }) => {
    const result = deps.emailEvents.fireSynthetic(body);
    return ok(result.sent ? 'Event fired and queued for delivery' : `Event fired but not sent: ${result.reason}`, result);
  });
}
