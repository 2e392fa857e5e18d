import { dataResponse } from '../../schemas/common';
import { InboundMessageList, ListInboundMessagesQuery, SimulateInboundBody, SimulateInboundResult } from '../../schemas/inbound';
import { defineOperations } from '../operation';

/** The control API's inbound simulation (`/emulator/inbound`) and the inbound mail routing took or refused. */
export const controlInboundOperations = defineOperations({
  simulateInbound: {
    method: 'POST',
    path: '/emulator/inbound',
    summary: 'Simulate an inbound email without SMTP (fields or a raw message), routed as the SMTP sink routes it',
    tag: 'Inbound',
    auth: 'none',
    body: SimulateInboundBody,
    response: dataResponse(SimulateInboundResult),
    errors: [404, 413, 415],
  },
  listInboundMessages: {
    method: 'GET',
    path: '/emulator/inbound/messages',
    summary: "Inbound mail for routed domains, accepted or refused, newest first (the latest `limit`), each with the inbound guide's rule that decided",
    tag: 'Inbound',
    auth: 'none',
    query: ListInboundMessagesQuery,
    response: dataResponse(InboundMessageList),
  },
});
