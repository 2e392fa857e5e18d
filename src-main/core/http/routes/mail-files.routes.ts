import { Readable } from 'node:stream';
import type { mailFileOperations, mailFileRoutes } from '../../../../src-shared/operations/control/mail-files';
import type { MailExport } from '../../services/mail-files/mail-export';
import type { MailImport } from '../../services/mail-files/mail-import';
import type { Handlers, RouteHandlers } from '../operation-route';
import { ok } from '../respond';

/** `/emulator/messages/import`: a message from a file, captured as if over SMTP. */
export function mailFileHandlers(mailImport: MailImport): Handlers<typeof mailFileOperations> {
  return {
    importMessage: async ({ body }) => ok('Message captured', await mailImport.import(Buffer.from(body.raw, 'base64'), body.account_id)),
  };
}

/** `/emulator/messages/export`: a search's messages as an mbox, streamed an entry at a time. */
export function mailFileRouteHandlers(mailExport: MailExport): RouteHandlers<typeof mailFileRoutes> {
  return {
    exportMessages: async ({ query, reply }) => {
      const entries = await mailExport.mbox(query);
      return reply
        .type('application/mbox')
        .header('content-disposition', 'attachment; filename="messages.mbox"')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(Readable.from(entries));
    },
  };
}
