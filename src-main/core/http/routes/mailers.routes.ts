import type { FastifyInstance } from 'fastify';
import { controlOperations as ctl, serviceOperations as ops } from '../../../../src-shared/operations';
import type { MailersService } from '../../services/mailers/mailers.service';
import type { OAuthService } from '../../services/oauth/oauth.service';
import type { MailerTests } from '../../services/mailers/mailer-tests';
import { registerOperation } from '../operation-route';
import { ok } from '../respond';
import { parseInput } from '../validation';
import { ImapMessageRefParams } from '../../../../src-shared/schemas/messages';
import { download } from './messages.routes';

export function mailerRoutes(app: FastifyInstance, deps: { mailers: MailersService; oauth: OAuthService }): void {
  const { mailers, oauth } = deps;
  for (const [type, label] of [
    ['smtp', 'SMTP'],
    ['imap', 'IMAP'],
  ] as const) {
    // configureSMTP is `POST /v1/smtpbasic/verify` (the real service's path): saved only after a real login.
    registerOperation(app, type === 'smtp' ? ops.configureSMTP : ops.configureIMAP, async ({ body, request }) =>
      ok(`${label} configuration ${type === 'smtp' ? 'verified and ' : ''}created successfully`, await mailers.configure(request.account!.id, type, body)),
    );
    registerOperation(app, type === 'smtp' ? ops.updateSMTP : ops.updateIMAP, async ({ body, request }) =>
      ok(`${label} configuration updated successfully`, await mailers.update(request.account!.id, type, body)),
    );
    registerOperation(app, type === 'smtp' ? ops.getSMTPConfig : ops.getIMAPConfig, ({ params, request }) =>
      ok(`${label} configuration retrieved successfully`, mailers.getRecord(request.account!.id, type, params.mailer_id)),
    );
    registerOperation(app, type === 'smtp' ? ops.deleteSMTPConfig : ops.deleteIMAPConfig, ({ params, request }) => {
      mailers.delete(request.account!.id, type, params.mailer_id);
      return ok(`${label} configuration deleted successfully`);
    });
    registerOperation(app, type === 'smtp' ? ops.listSMTPConfigs : ops.listIMAPConfigs, ({ request }) =>
      ok(`${label} configurations retrieved successfully`, mailers.list(request.account!.id, type)),
    );
  }
  registerOperation(app, ops.setOAuthActive, ({ body, request }) => {
    const result = mailers.setOAuthActive(request.account!.id, body);
    return ok(result.oauth_active ? 'OAuth activated' : 'OAuth deactivated', result);
  });
  // The real pages' shapes: `{success, url}` and the flat configuration (no message, no data).
  registerOperation(app, ops.oauthLogin, ({ body, request }) => oauth.login(request.account!.id, body));
  registerOperation(app, ops.getOAuthConfig, ({ params, request }) => oauth.config(request.account!.id, params.mailer_id));
}

/** The control API's view of mailers: every account's, and a connection test against the real server. */
export function mailerControlRoutes(app: FastifyInstance, deps: { mailers: MailersService; tests: MailerTests }): void {
  registerOperation(app, ctl.listEmulatorMailers, () => ok('Mailers retrieved successfully', deps.mailers.listAll()));
  registerOperation(app, ctl.testMailer, async ({ params }) => {
    const result = await deps.tests.test(params.mailer_id);
    return ok(result.ok ? 'Connection and login succeeded' : `Connection test failed: ${result.message}`, result);
  });
  registerOperation(app, ctl.listImapMessages, ({ params, query }) => ok('IMAP messages retrieved successfully', deps.mailers.imapMessages(params.mailer_id, query)));
  app.get('/emulator/imap-messages/:ref_id/raw', (request, reply) => {
    const { ref_id } = parseInput(ImapMessageRefParams, request.params, 'params');
    return download(reply, `${ref_id}.eml`, 'message/rfc822', deps.mailers.imapRaw(ref_id));
  });
}
