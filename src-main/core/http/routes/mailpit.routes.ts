import type { FastifyInstance } from 'fastify';
import type { MailpitOperations, MailpitRoutes } from '../../../../src-shared/operations/mailpit/mailpit';
import { ChaosTriggersInput, MailpitIdsBody } from '../../../../src-shared/schemas/mailpit';
import { appError } from '../../error-catalogue';
import type { ChaosService } from '../../services/mailpit/chaos';
import type { MailpitService } from '../../services/mailpit/mailpit.service';
import { download } from '../download';
import type { Handlers, RouteHandlers } from '../operation-route';
import { parseInput } from '../validation';
import { PREVIEW_CSP } from './message-files.routes';

export type MailpitHandlers = Handlers<MailpitOperations>;
export type MailpitRouteHandlers = RouteHandlers<MailpitRoutes>;

const OK = 'ok' as const;

/** Mailpit's JSON operations over the captured copies (src-shared/operations/mailpit). */
export function mailpitHandlers(mailpit: MailpitService, chaos: ChaosService): MailpitHandlers {
  return {
    mailpitInfo: () => mailpit.info(),
    mailpitWebUi: () => ({
      Label: 'Mailyard',
      MessageRelay: {
        Enabled: mailpit.relayServer() !== undefined,
        SMTPServer: mailpit.relayServer() ?? '',
        ReturnPath: '',
        AllowedRecipients: '',
        BlockedRecipients: '',
        RecipientAllowlist: '',
        OverrideFrom: '',
        PreserveMessageIDs: false,
      },
      SpamAssassin: true,
      ChaosEnabled: chaos.enabled,
      DuplicatesIgnored: false,
      HideDeleteAllButton: false,
    }),
    mailpitListMessages: ({ query }) => mailpit.page(undefined, query.start, query.limit),
    mailpitSearch: ({ query }) => {
      if (!query.query?.trim()) throw appError('mailpitNoQuery');
      return mailpit.page(query.query, query.start, query.limit);
    },
    mailpitSetReadStatus: async ({ body }) => {
      await mailpit.setRead(body);
      return OK;
    },
    mailpitDeleteSearch: async ({ query }) => {
      await mailpit.deleteSearch(query.query);
      return OK;
    },
    mailpitGetMessage: async ({ params, query }) => mailpit.message(await mailpit.resolve(params.ID, query.query)),
    mailpitGetHeaders: async ({ params, query }) => mailpit.headers(await mailpit.resolve(params.ID, query.query)),
    mailpitLinkCheck: async ({ params, query }) => mailpit.linkCheck(await mailpit.resolve(params.ID, query.query)),
    mailpitHtmlCheck: async ({ params, query }) => mailpit.htmlCheck(await mailpit.resolve(params.ID, query.query)),
    mailpitSend: ({ body }) => mailpit.send(body),
    mailpitRelease: async ({ params, query, body }) => {
      await mailpit.release(await mailpit.resolve(params.ID, query.query), body.To);
      return OK;
    },
    mailpitSpamCheck: async ({ params, query }) => mailpit.spamCheck(await mailpit.resolve(params.ID, query.query)),
    mailpitGetTags: () => mailpit.tags(),
    mailpitSetTags: ({ body }) => {
      mailpit.setTags(body.IDs, body.Tags ?? []);
      return OK;
    },
    mailpitRenameTag: ({ params, body }) => {
      mailpit.renameTag(params.Tag, body.Name);
      return OK;
    },
    mailpitDeleteTag: ({ params }) => {
      mailpit.deleteTag(params.Tag);
      return OK;
    },
    // Without --enable-chaos both answer Mailpit's 400 `Chaos is not enabled`.
    mailpitGetChaos: () => chaos.get(),
    mailpitSetChaos: ({ body }) => chaos.set(mailpitChaosInput(body)),
  };
}

/**
 * The body of Mailpit's chaos PUT: its triggers, each member optional; members Mailpit does not have
 * are ignored, as Go's JSON decoder ignores them. A value of the wrong type is a 400 naming it.
 */
function mailpitChaosInput(body: unknown): ChaosTriggersInput {
  if (body === undefined || body === null) return {};
  return parseInput(ChaosTriggersInput, body, 'body');
}

/** Mailpit's answers that are not JSON. */
export function mailpitRouteHandlers(mailpit: MailpitService): MailpitRouteHandlers {
  return {
    // The body is optional (none, or no IDs: every message), so it is read here rather than by the table.
    mailpitDeleteMessages: ({ request, reply }) => {
      const body = request.body === undefined ? {} : parseInput(MailpitIdsBody, request.body, 'body');
      mailpit.delete(body.IDs);
      return reply.type('text/plain').send(OK);
    },
    mailpitRaw: async ({ params, query, reply }) => {
      const id = await mailpit.resolve(params.ID, query.query);
      if (query.dl === '1') reply.header('content-disposition', `attachment; filename="${id}.eml"`);
      return reply.type('text/plain; charset=utf-8').send(mailpit.rawOf(id));
    },
    mailpitPart: async ({ params, reply }) => {
      const part = await mailpit.part(await mailpit.resolve(params.ID), params.PartID);
      return download(reply, part.filename, part.contentType, part.content);
    },
    mailpitThumbnail: async ({ params, reply }) => {
      const thumb = await mailpit.thumbnail(await mailpit.resolve(params.ID), params.PartID);
      return download(reply, thumb.filename, 'image/jpeg', thumb.content);
    },
    mailpitViewHtml: async ({ params, query, reply }) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', PREVIEW_CSP)
        .header('referrer-policy', 'no-referrer')
        .send(await mailpit.html(await mailpit.resolve(params.ID, query.query))),
    mailpitViewText: async ({ params, query, reply }) =>
      reply.type('text/plain; charset=utf-8').send(await mailpit.text(await mailpit.resolve(params.ID, query.query))),
  };
}

/** Mailpit's 404 body, as its handlers write it. */
const MAILPIT_404 = '404 page not found';

/** Mailpit's send answers its errors as JSON `{"Error": "..."}`; every other operation as plain text. */
const JSON_ERROR_PATHS = new Set(['/api/v1/send']);

/**
 * Mailpit answers its errors as plain text (`404 page not found`, `Chaos is not enabled`), not in
 * Mailyard's JSON error body: an `onSend` hook of the Mailpit scope turns the one into the other,
 * for the guards' refusals too.
 */
export function plainTextErrors(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    try {
      const body = JSON.parse(payload) as { success?: boolean; error?: unknown; details?: { fields?: Record<string, string> } };
      if (body.success !== false || typeof body.error !== 'string') return payload;
      if (JSON_ERROR_PATHS.has(request.routeOptions.url ?? '')) return JSON.stringify({ Error: body.error });
      reply.type('text/plain; charset=utf-8');
      // Mailpit answers every 404 (a message, a part, an HTML part that is not there) with these words.
      return reply.statusCode === 404 ? MAILPIT_404 : body.error;
    } catch {
      return payload;
    }
  });
}
