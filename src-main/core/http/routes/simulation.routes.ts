import type { FastifyInstance } from 'fastify';
import { controlOperations as ops } from '../../../../src-shared/operations';
import type { EmailService } from '../../services/email/email.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export function simulationRoutes(app: FastifyInstance, email: EmailService): void {
  registerOperation(app, ops.getRules, () => ok('Rules retrieved successfully', { rules: email.rules() }));
  registerOperation(app, ops.setRules, ({ body }) => ok('Rules replaced', { rules: email.replaceRules(body.rules) }));
}
