import type { chaosOperations } from '../../../../src-shared/operations/control/chaos';
import type { ChaosService } from '../../services/mailpit/chaos';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** The SMTP sink's chaos triggers (`/emulator/chaos`): Mailpit's, as its `/api/v1/chaos` sets them. */
export function chaosHandlers(chaos: ChaosService): Handlers<typeof chaosOperations> {
  return {
    getChaos: () => ok('Chaos triggers retrieved', chaos.state()),
    setChaos: ({ body }) => {
      chaos.set(body);
      return ok('Chaos triggers replaced', chaos.state());
    },
  };
}
