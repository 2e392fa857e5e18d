import { dataResponse } from '../../schemas/common';
import { ResetResult } from '../../schemas/emulator';
import { defineOperations } from '../operation';

/** The control API's reset (`/emulator/reset`): a clean slate for a test set-up. */
export const resetOperations = defineOperations({
  resetEmulator: {
    method: 'POST',
    path: '/emulator/reset',
    summary:
      'Wipe all data for a clean test set-up: messages, deliveries (pending ones cancelled, nothing more is sent), webhooks, domains, mailers, inbound routes, templates, simulation rules, suppressions, scheduled events; chaos triggers off; the clock back to wall time. Keeps the default account and the --api-key account with their API keys, names and signing secrets (their payload format back to the default, a rotated-out secret no longer signing); removes other accounts. Refused (409) while a scenario run is under way',
    tag: 'Emulator',
    auth: 'none',
    response: dataResponse(ResetResult),
    errors: [409, 415],
  },
});
