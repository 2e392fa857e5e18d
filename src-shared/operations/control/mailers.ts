import { z } from 'zod';
import { dataResponse } from '../../schemas/common';
import { EmulatorMailerRecord, ImapMessagePage, ListImapMessagesQuery, MailerIdParams, MailerTestResult } from '../../schemas/mailers';
import { ImapMessageRefParams } from '../../schemas/messages';
import { defineOperations, defineRoutes } from '../operation';

/** The control API's view of every account's mailers (`/emulator/mailers`). */
export const controlMailerOperations = defineOperations({
  listEmulatorMailers: {
    method: 'GET',
    path: '/emulator/mailers',
    summary: "Every account's SMTP and IMAP configurations with their live status",
    tag: 'Mailers',
    auth: 'none',
    response: dataResponse(z.array(EmulatorMailerRecord)),
  },
  testMailer: {
    method: 'POST',
    path: '/emulator/mailers/{mailer_id}/test',
    summary: "Check a configuration's connection and login now, against the real server",
    tag: 'Mailers',
    auth: 'none',
    params: MailerIdParams,
    response: dataResponse(MailerTestResult),
    errors: [404, 415],
  },
  listImapMessages: {
    method: 'GET',
    path: '/emulator/mailers/{mailer_id}/messages',
    summary:
      'The messages an IMAP configuration took from its inbox, newest first, with cursor pagination (the raw source of one: GET /emulator/imap-messages/{ref_id}/raw)',
    tag: 'Mailers',
    auth: 'none',
    params: MailerIdParams,
    query: ListImapMessagesQuery,
    response: dataResponse(ImapMessagePage),
    errors: [404],
  },
});

/** The raw source of a message an IMAP configuration took from its inbox, as a download. */
export const imapFileRoutes = defineRoutes({
  downloadImapMessageRaw: {
    method: 'GET',
    path: '/emulator/imap-messages/{ref_id}/raw',
    summary: 'A message taken from an IMAP inbox, byte for byte as fetched, as a .eml download',
    tag: 'Mailers',
    auth: 'none',
    params: ImapMessageRefParams,
    errors: [404],
    answer: { mediaType: 'message/rfc822', description: 'The raw message (Content-Disposition: attachment)', schema: { type: 'string' } },
  },
});
