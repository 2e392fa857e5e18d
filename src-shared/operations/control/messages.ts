import { dataResponse } from '../../schemas/common';
import { DeletedCount, ListMessagesQuery, MessageDetail, MessageIdParams, MessagePage, ReleaseMessageBody, ReleaseResult } from '../../schemas/messages';
import { CountMessagesQuery, EmulatorStats, MessageCount } from '../../schemas/stats';
import { defineOperations } from '../operation';

/** The control API's captured messages (`/emulator/messages`) and the totals beside them (`/emulator/stats`). */
export const messageOperations = defineOperations({
  listMessages: {
    method: 'GET',
    path: '/emulator/messages',
    summary: 'Captured messages (API and SMTP), newest first, searched (q) and filtered',
    tag: 'Messages',
    auth: 'none',
    query: ListMessagesQuery,
    response: dataResponse(MessagePage),
  },
  countMessages: {
    method: 'GET',
    path: '/emulator/messages/count',
    summary: 'How many captured messages match the filters of the list',
    tag: 'Messages',
    auth: 'none',
    query: CountMessagesQuery,
    response: dataResponse(MessageCount),
  },
  getStats: {
    method: 'GET',
    path: '/emulator/stats',
    summary: 'Totals of messages, events and deliveries, and events per minute over the last hour',
    tag: 'Emulator',
    auth: 'none',
    response: dataResponse(EmulatorStats),
  },
  getMessage: {
    method: 'GET',
    path: '/emulator/messages/{id}',
    summary: 'One message: headers, text, HTML, attachments and its events',
    tag: 'Messages',
    auth: 'none',
    params: MessageIdParams,
    response: dataResponse(MessageDetail),
    errors: [404],
  },
  releaseMessage: {
    method: 'POST',
    path: '/emulator/messages/{id}/release',
    summary: 'Send a captured message, byte for byte, to real recipients through an SMTP mailer (its events and log are not changed)',
    tag: 'Messages',
    auth: 'none',
    params: MessageIdParams,
    body: ReleaseMessageBody,
    response: dataResponse(ReleaseResult),
    errors: [404, 413, 415],
  },
  deleteMessage: {
    method: 'DELETE',
    path: '/emulator/messages/{id}',
    summary: 'Delete one message',
    tag: 'Messages',
    auth: 'none',
    params: MessageIdParams,
    response: dataResponse(DeletedCount),
    errors: [404, 415],
  },
  deleteMessages: {
    method: 'DELETE',
    path: '/emulator/messages',
    summary: 'Delete every captured message, or those the filters find (q, status, campaign_id, account_id), with their events and scheduled events',
    tag: 'Messages',
    auth: 'none',
    query: CountMessagesQuery,
    response: dataResponse(DeletedCount),
    errors: [415],
  },
});
