import type { ReceiverCheckService } from '../../services/receiver-check/receiver-check.service';
import type { ControlHandlers } from '../operation-route';
import { ok } from '../respond';

/** Receiver checks (`/emulator/receiver-checks`). */
export function receiverCheckHandlers(receiverChecks: ReceiverCheckService) {
  return {
    checkReceiver: async ({ body }) => {
      const report = await receiverChecks.check(body);
      return ok(report.passed ? 'Receiver passed every check' : `Receiver failed ${report.counts.failed} check(s)`, report);
    },
  } satisfies Partial<ControlHandlers>;
}
