import type { FastifyInstance } from 'fastify';
import { controlOperations as ops } from '../../../../src-shared/operations';
import type { ClockState } from '../../../../src-shared/schemas/dispatch';
import { isoTimestamp, type EmulatorClock } from '../../clock';
import type { Dispatcher } from '../../dispatch/dispatcher';
import { decodeCursor, paginate } from '../../cursor';
import { AppError } from '../../errors';
import type { EmailEventsService } from '../../services/email-events.service';
import type { Simulator } from '../../services/simulation/simulator';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export interface DispatchRouteDeps {
  clock: EmulatorClock;
  dispatcher: Dispatcher;
  simulator: Simulator;
  emailEvents: EmailEventsService;
}

export function dispatchRoutes(app: FastifyInstance, deps: DispatchRouteDeps): void {
  const { clock, dispatcher } = deps;

  const clockState = (): ClockState => {
    const s = clock.state();
    const due = dispatcher.nextDueAt();
    const event = deps.simulator.nextDueAt();
    return {
      now: isoTimestamp(s.now),
      now_ms: s.now,
      speed: s.speed,
      offset_ms: s.offsetMs,
      next_due_at: due === null ? null : isoTimestamp(due),
      next_event_at: event === null ? null : isoTimestamp(event),
      pending_deliveries: dispatcher.pendingCount(),
    };
  };

  registerOperation(app, ops.getClock, () => ok('Clock retrieved successfully', clockState()));
  registerOperation(app, ops.setClock, ({ body }) => {
    if (body.speed === undefined && body.advance_ms === undefined) {
      throw new AppError('validation', 'give speed, advance_ms or both', [{ path: '', message: 'give speed, advance_ms or both' }]);
    }
    if (body.speed !== undefined) clock.setSpeed(body.speed);
    if (body.advance_ms !== undefined && body.advance_ms > 0) clock.advance(body.advance_ms);
    return ok('Clock updated', clockState());
  });

  registerOperation(app, ops.listDeliveries, ({ query }) => {
    const { cursor, limit, ...filter } = query;
    const rows = dispatcher.list({ ...filter, limit: limit + 1, before: cursor === undefined ? undefined : decodeCursor(cursor, 'cursor') });
    const { page, next } = paginate(rows, limit, (d) => d.id);
    return ok('Deliveries retrieved successfully', { deliveries: page, next_cursor: next });
  });

  registerOperation(app, ops.countDeliveries, ({ query }) => ok('Deliveries counted', { count: dispatcher.count(query) }));

  registerOperation(app, ops.listEndpoints, ({ query }) => ok('Endpoints retrieved successfully', { endpoints: dispatcher.endpoints(query.account_id) }));

  registerOperation(app, ops.getDelivery, ({ params }) => {
    const delivery = dispatcher.find(params.id);
    if (!delivery) throw new AppError('not_found', 'Delivery Not Found');
    return ok('Delivery retrieved successfully', delivery);
  });

  registerOperation(app, ops.retryDelivery, async ({ params }) => ok('Delivery attempted', await dispatcher.retryNow(params.id)));

  registerOperation(app, ops.fireEvent, ({ body }) => {
    const result = deps.emailEvents.fireSynthetic(body);
    return ok(result.sent ? 'Event fired and queued for delivery' : `Event fired but not sent: ${result.reason}`, result);
  });
}
