import { z } from 'zod';
import { dataResponse } from '../../schemas/common';
import { SetRetentionBody, StoreUsage } from '../../schemas/store';
import { defineOperations, defineRoutes } from '../operation';

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

/** The snapshot download (`/emulator/snapshot`): a file, handled by hand. */
export const storeFileRoutes = defineRoutes({
  downloadSnapshot: {
    method: 'GET',
    path: '/emulator/snapshot',
    summary:
      "A snapshot of the whole state, written while the emulator runs: one SQLite file that `mailyard serve --from-snapshot FILE` starts from. It holds the accounts' API keys, signing secrets, DKIM keys and mailer passwords and tokens unless secrets=false (new API keys and DKIM keys then, no signing secrets, no mailer passwords or tokens)",
    tag: 'Emulator',
    auth: 'none',
    query: z.object({ secrets: z.enum(['true', 'false']).default('true') }),
    answer: {
      mediaType: 'application/vnd.sqlite3',
      description: 'The snapshot file (Content-Disposition: attachment)',
      schema: { type: 'string', format: 'binary' },
    },
  },
});
