import type { receiverCheckOperations } from '../../../../src-shared/operations/control/receiver-checks';
import type { ReceiverCheckService } from '../../services/receiver-check/receiver-check.service';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** Receiver checks (`/emulator/receiver-checks`). */
export function receiverCheckHandlers(receiverChecks: ReceiverCheckService): Handlers<typeof receiverCheckOperations> {
  return {
    checkReceiver: async ({ body }) => {
      const report = await receiverChecks.check(body);
      return ok(report.passed ? 'Receiver passed every check' : `Receiver failed ${report.counts.failed} check(s)`, report);
    },
  };
}
