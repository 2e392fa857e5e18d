import { dataResponse } from '../../schemas/common';
import { SetRetentionBody, StoreUsage } from '../../schemas/store';
import { defineOperations } from '../operation';

/** The store itself (`/emulator/store`): its size and the retention limits (docs/storage.md). */
export const storeOperations = defineOperations({
  getStore: {
    method: 'GET',
    path: '/emulator/store',
    summary: "The store's size (database, WAL, free pages), the retention limits in force and what they pruned since the start",
    tag: 'Emulator',
    auth: 'none',
    response: dataResponse(StoreUsage),
  },
  setRetention: {
    method: 'PUT',
    path: '/emulator/store/retention',
    summary:
      'Set the retention limits (0: no limit), in force at once and kept for the next start (a --max-messages or --max-age given at start wins then): the oldest copies beyond them are pruned with their events, deliveries, tracking and search rows; deliveries and catcher requests are held to the same limits',
    tag: 'Emulator',
    auth: 'none',
    body: SetRetentionBody,
    response: dataResponse(StoreUsage),
    errors: [415],
  },
});
