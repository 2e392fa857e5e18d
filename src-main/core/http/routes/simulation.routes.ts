import type { simulationOperations } from '../../../../src-shared/operations/control/simulation';
import type { ClockService } from '../../services/clock.service';
import type { SimulationRules } from '../../services/simulation/rules.service';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** The simulation rules (`/emulator/rules`) and the emulator's clock (`/emulator/clock`). */
export function simulationHandlers(rules: SimulationRules, clockControl: ClockService): Handlers<typeof simulationOperations> {
  return {
    getRules: () => ok('Rules retrieved successfully', { rules: rules.list() }),
    setRules: ({ body }) => ok('Rules replaced', { rules: rules.replace(body.rules) }),
    getClock: () => ok('Clock retrieved successfully', clockControl.state()),
    setClock: async ({ body }) => ok('Clock updated', await clockControl.set(body)),
  };
}
