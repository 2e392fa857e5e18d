import { dataResponse } from '../../schemas/common';
import { ChaosState, ChaosTriggersInput } from '../../schemas/mailpit';
import { defineOperations } from '../operation';

/** The SMTP sink's chaos triggers (`/emulator/chaos`): Mailpit's `/api/v1/chaos` for the UI and mailyard/testing. */
export const chaosOperations = defineOperations({
  getChaos: {
    method: 'GET',
    path: '/emulator/chaos',
    summary: "The SMTP sink's chaos triggers (Mailpit's), and whether chaos is enabled (--enable-chaos)",
    tag: 'Simulation',
    auth: 'none',
    response: dataResponse(ChaosState),
  },
  setChaos: {
    method: 'PUT',
    path: '/emulator/chaos',
    summary: 'Replace the chaos triggers (a trigger left out is off); 400 when chaos is not enabled',
    tag: 'Simulation',
    auth: 'none',
    body: ChaosTriggersInput,
    response: dataResponse(ChaosState),
    errors: [400, 415],
  },
});
