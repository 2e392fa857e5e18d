import type { FastifyInstance } from 'fastify';
import { controlOperations as ops } from '../../../../src-shared/operations';
import type { SimulationRules } from '../../services/simulation/rules.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export function simulationRoutes(app: FastifyInstance, rules: SimulationRules): void {
  registerOperation(app, ops.getRules, () => ok('Rules retrieved successfully', { rules: rules.list() }));
  registerOperation(app, ops.setRules, ({ body }) => ok('Rules replaced', { rules: rules.replace(body.rules) }));
}
