import type { messageOperations } from '../../../../src-shared/operations/control/messages';
import type { ReleaseResult } from '../../../../src-shared/schemas/messages';
import type { AccountsService } from '../../services/accounts.service';
import type { MessagesService } from '../../services/email/messages.service';
import type { StatsService } from '../../services/stats.service';
import type { LongPoll } from '../long-poll';
import type { Handlers } from '../operation-route';
import { ok } from '../respond';

export interface MessagesDeps {
  messages: MessagesService;
  /** Sends a captured copy for real through an SMTP mailer (the SMTP relay). */
  relay: { release(messageId: string, mailerId: string, to: string[] | undefined): Promise<ReleaseResult> };
  /** The Overview's figures, beside the messages (`/emulator/stats`). */
  stats: StatsService;
  accounts: Pick<AccountsService, 'accountIdOr404'>;
  longPoll: LongPoll;
}

/** Captured messages: list, wait, count, detail, delete, release, and the totals beside them. */
export function messageHandlers({ messages, relay, stats, accounts, longPoll }: MessagesDeps): Handlers<typeof messageOperations> {
  return {
    getStats: ({ query }) =>
      ok('Stats retrieved successfully', stats.stats(query.account_id === undefined ? undefined : accounts.accountIdOr404(query.account_id))),
    listMessages: async ({ query }) => ok('Messages retrieved successfully', await messages.list(query)),
    releaseMessage: async ({ params, body }) => {
      const result = await relay.release(params.id, body.mailer_id, body.to);
      const message = result.ok
        ? `Released to ${result.accepted.join(', ')}${result.rejected.length > 0 ? `; refused for ${result.rejected.join(', ')}` : ''}`
        : `The SMTP server did not take the message: ${result.smtp_response}`;
      return ok(message, result);
    },
    waitForMessages: async ({ query, request }) => {
      const { wait_ms, limit, ...filter } = query;
      const answer = await longPoll(request, wait_ms, () => messages.matching(filter, limit));
      return ok(answer.timed_out ? 'No message matched' : 'Messages matched', {
        messages: await messages.withRuleTags(answer.found),
        timed_out: answer.timed_out,
        waited_ms: answer.waited_ms,
      });
    },
    countMessages: async ({ query }) => ok('Messages counted', await messages.count(query)),
    getMessage: async ({ params }) => ok('Message retrieved successfully', await messages.detail(params.id)),
    setMessageRead: ({ params, body }) => ok(body.read ? 'Message marked read' : 'Message marked unread', messages.setRead(params.id, body.read)),
    setMessageTags: ({ params, body }) => ok('Message tags set', messages.setTags(params.id, body.tags)),
    deleteMessage: ({ params }) => {
      messages.delete(params.id);
      return ok('Message deleted', { deleted: 1 });
    },
    deleteMessages: async ({ query }) => ok('Messages deleted', { deleted: await messages.deleteMatching(query) }),
  };
}
