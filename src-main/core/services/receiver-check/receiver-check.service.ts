import type { ReceiverCheckOptions, ReceiverCheckReport } from '../../../../src-shared/schemas/receiver-check';
import { attemptAgent, sendAttempt, type AttemptAgentOptions } from '../../dispatch/attempt';
import { appError } from '../../error-catalogue';
import { checkUrl, type WebhookUrlPolicy } from '../url-check';
import { runReceiverCheck } from './run';

/** How checks connect and send: as the dispatcher's attempts do (its time-out, TLS and strict-mode rules). */
export interface ReceiverCheckTransport extends AttemptAgentOptions {
  userAgent: string;
}

/** Receiver checks at once, at most: each holds a connection to its receiver for up to its whole run. */
export const MAX_RECEIVER_CHECKS = 2;

/**
 * Runs a receiver check with an agent of its own, built as the dispatcher builds its own, and closes
 * it after. The CLI calls this directly (it is the user's own command); the control API goes through
 * `ReceiverCheckService`, which first applies the webhook URL policy.
 */
export async function checkReceiver(options: ReceiverCheckOptions, transport: ReceiverCheckTransport): Promise<ReceiverCheckReport> {
  const agent = attemptAgent(transport);
  const attempt = { agent, timeoutMs: transport.timeoutMs, responseBodyLimit: 64 * 1024, stopping: () => false };
  try {
    return await runReceiverCheck(options, {
      send: (request) => sendAttempt(request, attempt),
      timeoutMs: transport.timeoutMs,
      userAgent: transport.userAgent,
    });
  } finally {
    await agent.destroy();
  }
}

/**
 * The control API's receiver checks. A check makes the emulator send requests to a URL its caller names,
 * so that URL passes the same policy as a webhook's (url-check.ts: reachable; in strict mode https and
 * public, and every connection's address checked again): a check reaches nothing a webhook could not.
 */
export class ReceiverCheckService {
  private running = 0;

  constructor(private readonly deps: { urlPolicy: WebhookUrlPolicy; transport: ReceiverCheckTransport }) {}

  async check(options: ReceiverCheckOptions): Promise<ReceiverCheckReport> {
    if (this.running >= MAX_RECEIVER_CHECKS) throw appError('receiverChecksBusy', { max: MAX_RECEIVER_CHECKS });
    this.running++;
    try {
      await checkUrl(this.deps.urlPolicy, options.url, 'url');
      return await checkReceiver(options, this.deps.transport);
    } finally {
      this.running--;
    }
  }
}
