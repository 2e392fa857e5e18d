import type { ChaosService } from '../../services/mailpit/chaos';
import type { SimulationRules } from '../../services/simulation/rules.service';
import type { ControlHandlers } from '../operation-route';
import { ok } from '../respond';

/** The simulation rules (`/emulator/rules`). */
export function simulationHandlers(rules: SimulationRules) {
  return {
    getRules: () => ok('Rules retrieved successfully', { rules: rules.list() }),
    setRules: ({ body }) => ok('Rules replaced', { rules: rules.replace(body.rules) }),
  } satisfies Partial<ControlHandlers>;
}

/** The SMTP sink's chaos triggers (`/emulator/chaos`): Mailpit's, as its `/api/v1/chaos` sets them. */
export function chaosHandlers(chaos: ChaosService) {
  return {
    getChaos: () => ok('Chaos triggers retrieved', chaos.state()),
    setChaos: ({ body }) => {
      chaos.set(body);
      return ok('Chaos triggers replaced', chaos.state());
    },
  } satisfies Partial<ControlHandlers>;
}
