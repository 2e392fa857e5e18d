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
