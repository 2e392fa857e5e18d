import type { FastifyInstance } from 'fastify';
import { serviceOperations as ops } from '../../../../src-shared/operations';
import type { EmailService } from '../../services/email/email.service';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';

export function emailRoutes(app: FastifyInstance, email: EmailService): void {
  registerOperation(app, ops.sendEmail, async ({ body, request }) => ok('Email queued', { messages: await email.send(request.account!.id, body) }));
  registerOperation(app, ops.getEmailLogs, ({ query, request }) => ok('Email logs retrieved successfully', email.logs(request.account!.id, query)));
  registerOperation(app, ops.subscribeEmail, ({ body, request }) => {
    email.subscribe(request.account!.id, body.email);
    return ok('Email subscribed successfully');
  });
  registerOperation(app, ops.unsubscribeEmail, ({ body, request }) => {
    email.unsubscribe(request.account!.id, body.email);
    return ok('Email unsubscribed successfully');
  });
}
