import type { mailFileOperations } from '../../../../src-shared/operations/control/mail-files';
import type { MailImport } from '../../services/mail-files/mail-import';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

/** `/emulator/messages/import`: a message from a file, captured as if over SMTP. */
export function mailFileHandlers(mailImport: MailImport): Handlers<typeof mailFileOperations> {
  return {
    importMessage: async ({ body }) => ok('Message captured', await mailImport.import(Buffer.from(body.raw, 'base64'), body.account_id)),
  };
}
