import { InboundService } from '../../services/inbound/inbound.service';
import { checkUrl } from '../../services/url-check';
import { WEBHOOK_TARGET, WebhooksService } from '../../services/webhooks.service';
import { InboundRepo } from '../../store/inbound.repo';
import type { AreaFoundations } from './foundations';

/** The receivers of what the emulator sends: the account's webhooks and inbound routes. */
export function buildReceivers(f: AreaFoundations) {
  const { clock, dispatcher, urlPolicy } = f;
  const webhooks = new WebhooksService({
    repo: f.webhooksRepo,
    clock,
    urlPolicy,
    // A changed webhook's deliveries read it afresh; a deleted one's pending deliveries are cancelled.
    onChanged: (webhookId, deleted) => (deleted ? dispatcher.cancelTarget(WEBHOOK_TARGET, webhookId) : dispatcher.targetChanged(WEBHOOK_TARGET, webhookId)),
  });
  const inboundRepo = new InboundRepo(f.db);
  const inbound = new InboundService({
    repo: inboundRepo,
    clock,
    dispatcher,
    checkUrl: (url, path) => checkUrl(urlPolicy, url, path),
    // Each inbound email accepted or refused, for the Deliveries screen's inbound view.
    announce: (message) => f.live.emit('inbound.message', message),
  });
  return { webhooks, inboundRepo, inbound };
}

export type Receivers = ReturnType<typeof buildReceivers>;
