import type { resetOperations } from '../../../../src-shared/operations/control/reset';
import type { ResetService } from '../../services/reset.service';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** `POST /emulator/reset`: every account's data wiped, the default and --api-key accounts kept. */
export function resetHandlers(reset: ResetService): Handlers<typeof resetOperations> {
  return {
    resetEmulator: async () => ok('Emulator reset: all data wiped; the default and --api-key accounts and their API keys kept', await reset.reset()),
  };
}
