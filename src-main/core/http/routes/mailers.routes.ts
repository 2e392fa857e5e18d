import type { controlMailerOperations, imapFileRoutes } from '../../../../src-shared/operations/control/mailers';
import type { mailerOperations } from '../../../../src-shared/operations/service/mailers';
import type { MailerTests } from '../../services/mailers/mailer-tests';
import type { MailersService } from '../../services/mailers/mailers.service';
import type { OAuthService } from '../../services/oauth/oauth.service';
import { smtpConfigWouldRefuse } from '../../would-refuse';
import { download } from '../download';
import type { Handlers, RouteHandlers } from '../operation-route';
import { ok } from '../respond';

/** SMTP and IMAP mailer configurations and their OAuth (`/v1/smtpbasic`, `/v1/imap`, `/v1/oauth`). */
export function mailerHandlers(mailers: MailersService, oauth: OAuthService): Handlers<typeof mailerOperations> {
  return {
    // configureSMTP is `POST /v1/smtpbasic/verify` (the real service's path): saved only after a real login.
    configureSMTP: async ({ body, account, warn }) => {
      for (const found of smtpConfigWouldRefuse(body)) warn(found);
      return ok('SMTP configuration verified and created successfully', await mailers.configure(account.id, 'smtp', body));
    },
    updateSMTP: async ({ body, account }) => ok('SMTP configuration updated successfully', await mailers.update(account.id, 'smtp', body)),
    getSMTPConfig: ({ params, account }) => ok('SMTP configuration retrieved successfully', mailers.getRecord(account.id, 'smtp', params.mailer_id)),
    deleteSMTPConfig: ({ params, account }) => {
      mailers.delete(account.id, 'smtp', params.mailer_id);
      return ok('SMTP configuration deleted successfully');
    },
    listSMTPConfigs: ({ account }) => ok('SMTP configurations retrieved successfully', mailers.list(account.id, 'smtp')),
    configureIMAP: async ({ body, account }) => ok('IMAP configuration created successfully', await mailers.configure(account.id, 'imap', body)),
    updateIMAP: async ({ body, account }) => ok('IMAP configuration updated successfully', await mailers.update(account.id, 'imap', body)),
    getIMAPConfig: ({ params, account }) => ok('IMAP configuration retrieved successfully', mailers.getRecord(account.id, 'imap', params.mailer_id)),
    deleteIMAPConfig: ({ params, account }) => {
      mailers.delete(account.id, 'imap', params.mailer_id);
      return ok('IMAP configuration deleted successfully');
    },
    listIMAPConfigs: ({ account }) => ok('IMAP configurations retrieved successfully', mailers.list(account.id, 'imap')),
    setOAuthActive: ({ body, account }) => {
      const result = mailers.setOAuthActive(account.id, body);
      return ok(result.oauth_active ? 'OAuth activated' : 'OAuth deactivated', result);
    },
    // The real pages' shapes: `{success, url}` and the flat configuration (no message, no data).
    oauthLogin: ({ body, account }) => oauth.login(account.id, body),
    getOAuthConfig: ({ params, account }) => oauth.config(account.id, params.mailer_id),
  };
}

/** The control API's view of mailers: every account's, and a connection test against the real server. */
export function mailerControlHandlers(mailers: MailersService, tests: MailerTests): Handlers<typeof controlMailerOperations> {
  return {
    listEmulatorMailers: () => ok('Mailers retrieved successfully', mailers.listAll()),
    testMailer: async ({ params }) => {
      const result = await tests.test(params.mailer_id);
      return ok(result.ok ? 'Connection and login succeeded' : `Connection test failed: ${result.message}`, result);
    },
    listImapMessages: ({ params, query }) => ok('IMAP messages retrieved successfully', mailers.imapMessages(params.mailer_id, query)),
  };
}

/** A message taken from an IMAP inbox, as fetched. */
export function mailerFileHandlers(mailers: MailersService): RouteHandlers<typeof imapFileRoutes> {
  return {
    downloadImapMessageRaw: ({ params, reply }) => download(reply, `${params.ref_id}.eml`, 'message/rfc822', mailers.imapRaw(params.ref_id)),
  };
}
