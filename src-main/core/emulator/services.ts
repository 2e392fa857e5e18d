import { AfterCommit } from '../after-commit';
import type { EmailCommitEvents } from '../services/email/email.service';
import type { WriteBatcher } from '../store/write-batcher';
import { buildControl } from './areas/control';
import { buildEvents } from './areas/events';
import { areaFoundations, type ServiceFoundations } from './areas/foundations';
import { buildMailers } from './areas/mailers';
import { buildMessages } from './areas/messages';
import { buildReceivers } from './areas/receivers';
import { buildSending } from './areas/sending';
import { registerDeliveryTargets } from './delivery';
import type { EmulatorServices } from './types';

export type { ServiceFoundations } from './areas/foundations';

/**
 * Joins the areas (areas/), each after the ones it uses: each area builds its services and
 * subscribes, in its own module, to what the areas before it announce after a commit (a send's:
 * EmailCommitEvents). Registers the delivery targets once their services exist. Also answers the
 * group-commit batcher, which the lifecycle flushes on close.
 */
export function buildServices(foundations: ServiceFoundations): { services: EmulatorServices; writes: WriteBatcher } {
  const f = areaFoundations(foundations);
  // What a send's commit announces: emitted by the email service, heard by the events and messages areas.
  const sent = new AfterCommit<EmailCommitEvents>();
  const receivers = buildReceivers(f);
  const events = buildEvents(f, receivers, sent);
  const mailers = buildMailers(f, events);
  const sending = buildSending(f, receivers, events, mailers, sent);
  const messages = buildMessages(f, receivers, events, mailers, sending, sent);
  registerDeliveryTargets(f.delivery.targets, { webhooks: f.webhooksRepo, inbound: receivers.inbound, mailers: mailers.mailers });
  const control = buildControl(f, receivers, events, mailers, sending, messages);

  const services: EmulatorServices = {
    accounts: f.accounts,
    dispatcher: f.dispatcher,
    deliveries: f.delivery.queries,
    deliveryWorker: f.delivery.worker,
    deliveryFaults: f.delivery.faults,
    webhooks: receivers.webhooks,
    inbound: receivers.inbound,
    emailEvents: events.emailEvents,
    simulator: events.simulator,
    rules: events.rules,
    suppressions: events.suppressions,
    mailers: mailers.mailers,
    mailerTests: mailers.mailerTests,
    oauth: mailers.oauth,
    relay: mailers.relay,
    imap: mailers.imap,
    domains: sending.domains,
    templates: sending.templates,
    mailThread: sending.mailThread,
    email: sending.email,
    tracking: sending.tracking,
    ...messages,
    ...control,
  };
  return { services, writes: f.writes };
}
