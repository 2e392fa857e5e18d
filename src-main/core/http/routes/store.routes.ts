import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { storeFileRoutes, storeOperations } from '../../../../src-shared/operations/control/store';
import type { RetentionService } from '../../services/retention/retention.service';
import type { SnapshotService } from '../../services/snapshot/snapshot.service';
import type { Handlers, RouteHandlers } from '../operation-route';
import { ok } from '../respond';

/** `/emulator/store`: the store's size and its retention limits. */
export function storeHandlers(retention: RetentionService): Handlers<typeof storeOperations> {
  return {
    getStore: () => ok('Store usage retrieved', retention.usage()),
    setRetention: async ({ body }) => {
      const now = retention.limits();
      await retention.setLimits({ maxMessages: body.max_messages ?? now.maxMessages, maxAgeMs: body.max_age_ms ?? now.maxAgeMs });
      return ok('Retention limits set: the oldest mail beyond them is pruned', retention.usage());
    },
  };
}

/** `/emulator/snapshot`: the whole state as one file, streamed from a temporary copy removed after. */
export function storeFileHandlers(snapshots: SnapshotService): RouteHandlers<typeof storeFileRoutes> {
  return {
    downloadSnapshot: async ({ query, reply }) => {
      const saved = await snapshots.save({ secrets: query.secrets === 'true' });
      const { size } = await stat(saved.file);
      const stream = createReadStream(saved.file);
      stream.once('close', () => void saved.remove());
      const name = `mailyard-${saved.mark.saved_at.replace(/[:.]/g, '-')}${saved.mark.secrets ? '' : '-without-secrets'}.snapshot`;
      return reply
        .type('application/vnd.sqlite3')
        .header('content-length', size)
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(stream);
    },
  };
}
