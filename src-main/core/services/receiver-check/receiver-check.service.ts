import type { ReceiverCheckOptions, ReceiverCheckReport } from '../../../../src-shared/schemas/receiver-check';
import { type AttemptAgentOptions, attemptAgent, sendAttempt } from '../../dispatch/attempt';
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
export async function checkReceiver(options: ReceiverCheckOptions, transport: ReceiverCheckTransport, signal?: AbortSignal): Promise<ReceiverCheckReport> {
  const agent = attemptAgent(transport);
  // Aborted (the emulator stopping): the request on the wire and every one after it end at once as interrupted.
  const abort = () => void agent.destroy();
  signal?.addEventListener('abort', abort, { once: true });
  const attempt = { agent, timeoutMs: transport.timeoutMs, responseBodyLimit: 64 * 1024, stopping: () => signal?.aborted === true };
  try {
    return await runReceiverCheck(options, {
      send: (request) => sendAttempt(request, attempt),
      timeoutMs: transport.timeoutMs,
      userAgent: transport.userAgent,
    });
  } finally {
    signal?.removeEventListener('abort', abort);
    await agent.destroy();
  }
}

/**
 * The control API's receiver checks. A check makes the emulator send requests to a URL its caller names
 * (and read its effects URL), so each URL passes the same policy as a webhook's (url-check.ts: reachable; in strict mode https and
 * public, and every connection's address checked again): a check reaches nothing a webhook could not.
 */
export class ReceiverCheckService {
  private running = 0;
  private readonly stopping = new AbortController();

  constructor(private readonly deps: { urlPolicy: WebhookUrlPolicy; transport: ReceiverCheckTransport }) {}

  async check(options: ReceiverCheckOptions): Promise<ReceiverCheckReport> {
    if (this.running >= MAX_RECEIVER_CHECKS) throw appError('receiverChecksBusy', { max: MAX_RECEIVER_CHECKS });
    this.running++;
    try {
      await checkUrl(this.deps.urlPolicy, options.url, 'url');
      // The effects URL is fetched by the emulator too: the same policy.
      if (options.effects_url !== undefined) await checkUrl(this.deps.urlPolicy, options.effects_url, 'effects_url');
      return await checkReceiver(options, this.deps.transport, this.stopping.signal);
    } finally {
      this.running--;
    }
  }

  /** Ends the checks under way (the emulator is stopping): nothing more is sent to their receivers. */
  stop(): void {
    this.stopping.abort();
  }
}
