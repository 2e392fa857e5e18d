import { z } from 'zod';
import { dataResponse } from '../../schemas/common';
import {
  AttemptRecord,
  CountDeliveriesQuery,
  DeliveryCount,
  DeliveryDetail,
  DeliveryIdParams,
  DeliveryPage,
  DeliverySummary,
  EndpointList,
  FireEventBody,
  FireEventResult,
  ListDeliveriesQuery,
  ListEndpointsQuery,
  WaitDeliveriesQuery,
  WaitDeliveriesResult,
} from '../../schemas/dispatch';
import { defineOperations } from '../operation';

/** The control API's webhook deliveries (`/emulator/deliveries`) and synthetic events (`/emulator/events`). */
export const deliveryOperations = defineOperations({
  listDeliveries: {
    method: 'GET',
    path: '/emulator/deliveries',
    summary: 'Webhook deliveries, newest first, filtered (status, including failing; q: recipient, URL or payload text), with cursor pagination',
    tag: 'Deliveries',
    auth: 'none',
    query: ListDeliveriesQuery,
    response: dataResponse(DeliveryPage),
  },
  countDeliveries: {
    method: 'GET',
    path: '/emulator/deliveries/count',
    summary: 'How many deliveries match the filters of the list',
    tag: 'Deliveries',
    auth: 'none',
    query: CountDeliveriesQuery,
    response: dataResponse(DeliveryCount),
  },
  waitForDeliveries: {
    method: 'GET',
    path: '/emulator/deliveries/wait',
    summary:
      "Long poll: the webhook deliveries matching the list's filters (status, event, ref_id, recipient, ...), oldest first, answered as soon as one exists or after wait_ms (at most 30 s) with timed_out",
    tag: 'Deliveries',
    auth: 'none',
    query: WaitDeliveriesQuery,
    response: dataResponse(WaitDeliveriesResult),
  },
  listEndpoints: {
    method: 'GET',
    path: '/emulator/endpoints',
    summary: 'The targets deliveries go to, each with its deliveries by status, failing ones and its failure rate (failed attempts / attempts)',
    tag: 'Deliveries',
    auth: 'none',
    query: ListEndpointsQuery,
    response: dataResponse(EndpointList),
  },
  getDelivery: {
    method: 'GET',
    path: '/emulator/deliveries/{id}',
    summary:
      'One delivery with its payload and every attempt (request and response); a payload over 256 KiB is answered as its first 256 KiB (payload_truncated, payload_preview), whole at payload_url',
    tag: 'Deliveries',
    auth: 'none',
    params: DeliveryIdParams,
    response: dataResponse(DeliveryDetail),
    errors: [404],
  },
  getDeliveryPayload: {
    method: 'GET',
    path: '/emulator/deliveries/{id}/payload',
    summary: "A delivery's payload, whole, as stored and sent (application/json, as a download)",
    tag: 'Deliveries',
    auth: 'none',
    params: DeliveryIdParams,
    /** The payload itself: any JSON. */
    response: z.unknown(),
    errors: [404],
  },
  retryDelivery: {
    method: 'POST',
    path: '/emulator/deliveries/{id}/retry',
    summary: 'Send a delivery again now (any status); answers when the attempt is recorded',
    tag: 'Deliveries',
    auth: 'none',
    params: DeliveryIdParams,
    response: dataResponse(z.object({ delivery: DeliverySummary, attempt: AttemptRecord })),
    errors: [404, 409, 415],
  },
  fireEvent: {
    method: 'POST',
    path: '/emulator/events',
    summary: "Fire a synthetic email event of any kind through the account's webhook filter",
    tag: 'Deliveries',
    auth: 'none',
    body: FireEventBody,
    response: dataResponse(FireEventResult),
    errors: [404, 415],
  },
});
