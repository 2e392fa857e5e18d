import { dataResponse } from '../../schemas/common';
import { SimulateInboundBody, SimulateInboundResult } from '../../schemas/inbound';
import { defineOperations } from '../operation';

/** The control API's inbound simulation (`/emulator/inbound`). */
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
});
