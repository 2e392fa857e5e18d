import { z } from 'zod';
import {
  MailpitIdParams,
  MailpitInfo,
  MailpitLinkCheck,
  MailpitMessage,
  MailpitMessagesSummary,
  MailpitPageQuery,
  MailpitPartParams,
  MailpitQueryOnly,
  MailpitReadBody,
  MailpitRenameTagBody,
  MailpitSearchQuery,
  MailpitSetTagsBody,
  MailpitSpamCheck,
  MailpitTagParams,
  MailpitWebUi,
} from '../../schemas/mailpit';
import { defineOperations, defineRoutes } from '../operation';

/**
 * Mailpit's REST API (version 1) over the captured copies, so tests written against Mailpit (the
 * `mailpit-api` client, cypress-mailpit, hand-written helpers) run against Mailyard unchanged. This is
 * Mailpit's contract, not Mailyard's: it is registered from this table like the others, but it is not in
 * `/openapi.json` (Mailpit publishes its own document) and has no typed client (Mailpit's clients are
 * its clients). Paths, members and status codes are Mailpit's; see docs/mailpit.md.
 */
const ok = z.literal('ok');
const tag = 'Mailpit';

export const mailpitOperations = defineOperations({
  mailpitInfo: { method: 'GET', path: '/api/v1/info', summary: 'Application information', tag, auth: 'none', response: MailpitInfo },
  mailpitWebUi: { method: 'GET', path: '/api/v1/webui', summary: 'Web UI configuration', tag, auth: 'none', response: MailpitWebUi },
  mailpitListMessages: {
    method: 'GET',
    path: '/api/v1/messages',
    summary: 'Messages, newest first (start, limit)',
    tag,
    auth: 'none',
    query: MailpitPageQuery,
    response: MailpitMessagesSummary,
  },
  mailpitSetReadStatus: {
    method: 'PUT',
    path: '/api/v1/messages',
    summary: 'Mark messages read or unread: by IDs, by Search, or all',
    tag,
    auth: 'none',
    query: MailpitQueryOnly,
    body: MailpitReadBody,
    response: ok,
  },
  mailpitSearch: {
    method: 'GET',
    path: '/api/v1/search',
    summary: 'Messages matching a search (Mailpit search language)',
    tag,
    auth: 'none',
    query: MailpitSearchQuery,
    response: MailpitMessagesSummary,
  },
  mailpitDeleteSearch: {
    method: 'DELETE',
    path: '/api/v1/search',
    summary: 'Delete the messages a search finds',
    tag,
    auth: 'none',
    query: MailpitQueryOnly,
    response: ok,
  },
  mailpitGetMessage: {
    method: 'GET',
    path: '/api/v1/message/{ID}',
    summary: 'One message (ID or latest); marks it read',
    tag,
    auth: 'none',
    params: MailpitIdParams,
    query: MailpitQueryOnly,
    response: MailpitMessage,
    errors: [404],
  },
  mailpitGetHeaders: {
    method: 'GET',
    path: '/api/v1/message/{ID}/headers',
    summary: "A message's headers, each name with its values",
    tag,
    auth: 'none',
    params: MailpitIdParams,
    query: MailpitQueryOnly,
    response: z.record(z.string(), z.array(z.string())),
    errors: [404],
  },
  mailpitLinkCheck: {
    method: 'GET',
    path: '/api/v1/message/{ID}/link-check',
    summary: "A message's links with the problems Mailyard finds in them (links are never fetched)",
    tag,
    auth: 'none',
    params: MailpitIdParams,
    query: MailpitQueryOnly.extend({ follow: z.string().optional() }),
    response: MailpitLinkCheck,
    errors: [404],
  },
  mailpitSpamCheck: {
    method: 'GET',
    path: '/api/v1/message/{ID}/sa-check',
    summary: "SpamAssassin's score of a message",
    tag,
    auth: 'none',
    params: MailpitIdParams,
    query: MailpitQueryOnly,
    response: MailpitSpamCheck,
    errors: [404],
  },
  mailpitGetTags: { method: 'GET', path: '/api/v1/tags', summary: 'Every tag in use', tag, auth: 'none', response: z.array(z.string()) },
  mailpitSetTags: {
    method: 'PUT',
    path: '/api/v1/tags',
    summary: 'Give messages exactly these tags (none: untag them)',
    tag,
    auth: 'none',
    body: MailpitSetTagsBody,
    response: ok,
  },
  mailpitRenameTag: {
    method: 'PUT',
    path: '/api/v1/tags/{Tag}',
    summary: 'Rename a tag on every message',
    tag,
    auth: 'none',
    params: MailpitTagParams,
    body: MailpitRenameTagBody,
    response: ok,
  },
  mailpitDeleteTag: {
    method: 'DELETE',
    path: '/api/v1/tags/{Tag}',
    summary: 'Remove a tag from every message',
    tag,
    auth: 'none',
    params: MailpitTagParams,
    response: ok,
  },
  mailpitGetChaos: {
    method: 'GET',
    path: '/api/v1/chaos',
    summary: "Chaos triggers: Mailyard has none, so it answers as Mailpit does with chaos off (400 'Chaos is not enabled')",
    tag,
    auth: 'none',
    response: z.never(),
  },
  mailpitSetChaos: {
    method: 'PUT',
    path: '/api/v1/chaos',
    summary: 'Chaos triggers: off, as above',
    tag,
    auth: 'none',
    body: z.unknown(),
    response: z.never(),
  },
});

const text = { type: 'string' };

/** Mailpit's answers that are not JSON: a message's source, a part, the rendered views; and the delete whose body is optional. */
export const mailpitRoutes = defineRoutes({
  mailpitDeleteMessages: {
    method: 'DELETE',
    path: '/api/v1/messages',
    summary: 'Delete messages by IDs, or every message without IDs',
    tag,
    auth: 'none',
    answer: { mediaType: 'text/plain', description: 'ok', schema: text },
  },
  mailpitRaw: {
    method: 'GET',
    path: '/api/v1/message/{ID}/raw',
    summary: 'The message source, byte for byte',
    tag,
    auth: 'none',
    params: MailpitIdParams,
    query: MailpitQueryOnly.extend({ dl: z.string().optional() }),
    errors: [404],
    answer: { mediaType: 'text/plain', description: 'The raw message', schema: text },
  },
  mailpitPart: {
    method: 'GET',
    path: '/api/v1/message/{ID}/part/{PartID}',
    summary: 'An attachment or inline part, by its Mailpit part id',
    tag,
    auth: 'none',
    params: MailpitPartParams,
    errors: [404],
    answer: { mediaType: 'application/octet-stream', description: "The part's bytes, with its own content type", schema: text },
  },
  mailpitViewHtml: {
    method: 'GET',
    path: '/view/{ID}.html',
    summary: "The message's HTML, as a page",
    tag,
    auth: 'none',
    params: MailpitIdParams,
    query: MailpitQueryOnly.extend({ embed: z.string().optional() }),
    errors: [404],
    answer: { mediaType: 'text/html', description: 'The HTML part', schema: text },
  },
  mailpitViewText: {
    method: 'GET',
    path: '/view/{ID}.txt',
    summary: "The message's text part",
    tag,
    auth: 'none',
    params: MailpitIdParams,
    query: MailpitQueryOnly,
    errors: [404],
    answer: { mediaType: 'text/plain', description: 'The text part', schema: text },
  },
});

export type MailpitOperations = typeof mailpitOperations;
export type MailpitRoutes = typeof mailpitRoutes;
