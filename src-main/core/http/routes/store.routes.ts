import type { RetentionService } from '../../services/retention/retention.service';
import type { ControlHandlers } from '../operation-route';
import { ok } from '../respond';

/** `/emulator/store`: the store's size and its retention limits. */
export function storeHandlers(retention: RetentionService) {
  return {
    getStore: () => ok('Store usage retrieved', retention.usage()),
    setRetention: async ({ body }) => {
      const now = retention.limits();
      await retention.setLimits({ maxMessages: body.max_messages ?? now.maxMessages, maxAgeMs: body.max_age_ms ?? now.maxAgeMs });
      return ok('Retention limits set: the oldest mail beyond them is pruned', retention.usage());
    },
  } satisfies Partial<ControlHandlers>;
}
