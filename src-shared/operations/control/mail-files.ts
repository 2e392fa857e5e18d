import { z } from 'zod';
import { dataResponse } from '../../schemas/common';
import { CountMessagesQuery } from '../../schemas/stats';
import { defineOperations, defineRoutes } from '../operation';

export const ImportMessageBody = z
  .strictObject({
    /** The whole RFC 5322 message (headers and body), base64. */
    raw: z.base64({ error: 'must be the message in base64' }),
    /** The account it is captured for (default: the default account). */
    account_id: z.string().max(64).optional(),
  })
  .meta({ id: 'ImportMessageBody' });

export const ImportedMessage = z
  .object({
    /** The send's ref_id (and an inbound post's, for recipients at an inbound-routed domain). */
    ref_ids: z.array(z.string()),
    /** The recipients its To and Cc headers named: a copy each. */
    recipients: z.array(z.string()),
  })
  .meta({ id: 'ImportedMessage' });

/** Bringing a message in from a file (`mailyard import`): `/emulator/messages/import`. */
export const mailFileOperations = defineOperations({
  importMessage: {
    method: 'POST',
    path: '/emulator/messages/import',
    summary:
      'Capture a message from a file (.eml, or one of an mbox) as if it had arrived over SMTP: from its From header to the recipients of its To and Cc headers, the same parsing, search index and events; all its copies or none',
    tag: 'Messages',
    auth: 'none',
    body: ImportMessageBody,
    response: dataResponse(ImportedMessage),
    errors: [404, 415],
  },
});

/** Taking a search's messages out as an mbox (`mailyard export`, the Messages screen's Export): a file, handled by hand. */
export const mailFileRoutes = defineRoutes({
  exportMessages: {
    method: 'GET',
    path: '/emulator/messages/export',
    summary:
      'The messages the list\'s filters find (every message without one) as an mbox file (mboxrd: a body line starting "From " is written ">From "), oldest first, each copy (one per recipient) as its raw message byte for byte; a search by words first waits for the index to hold every copy stored before it',
    tag: 'Messages',
    auth: 'none',
    query: CountMessagesQuery,
    answer: {
      mediaType: 'application/mbox',
      description: 'The mbox file (Content-Disposition: attachment)',
      schema: { type: 'string', format: 'binary' },
    },
  },
});
