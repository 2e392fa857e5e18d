/**
 * The operation table: the single description from which the server registers its routes, the typed
 * clients build their requests, and the OpenAPI document is generated. One file per area; the order
 * of the spreads is the order of the routes and of the OpenAPI document's paths.
 */
import { catcherOperations } from './control/catchers';
import { chaosOperations } from './control/chaos';
import { deliveryOperations } from './control/deliveries';
import { controlDomainOperations } from './control/domains';
import { emulatorOperations } from './control/emulator';
import { controlInboundOperations } from './control/inbound';
import { mailFileOperations, mailFileRoutes } from './control/mail-files';
import { controlMailerOperations, imapFileRoutes } from './control/mailers';
import { messageCheckOperations, messageFileRoutes } from './control/message-files';
import { messageOperations } from './control/messages';
import { receiverCheckOperations } from './control/receiver-checks';
import { resetOperations } from './control/reset';
import { scenarioFileRoutes, scenarioOperations } from './control/scenarios';
import { simulationOperations } from './control/simulation';
import { storeFileRoutes, storeOperations } from './control/store';
import { streamRoutes } from './control/stream';
import { suppressionOperations } from './control/suppressions';
import { defineOperations, defineRoutes } from './operation';
import { domainOperations } from './service/domains';
import { emailOperations } from './service/email';
import { inboundOperations } from './service/inbound';
import { mailerOperations } from './service/mailers';
import { webhookOperations } from './service/webhooks';

export type { DocumentedRoute, HttpMethod, Operation } from './operation';

/** The emulated service (`/v1`). Operation names are the spec's. */
export const serviceOperations = defineOperations({
  ...webhookOperations,
  ...emailOperations,
  ...domainOperations,
  ...inboundOperations,
  ...mailerOperations,
});

/** The emulator's own control API (`/emulator`): loopback only, no API key. */
export const controlOperations = defineOperations({
  ...emulatorOperations,
  ...resetOperations,
  ...storeOperations,
  ...mailFileOperations,
  ...messageOperations,
  ...messageCheckOperations,
  ...simulationOperations,
  ...chaosOperations,
  ...suppressionOperations,
  ...deliveryOperations,
  ...controlDomainOperations,
  ...controlInboundOperations,
  ...controlMailerOperations,
  ...scenarioOperations,
  ...receiverCheckOperations,
  ...catcherOperations,
});

export type ServiceOperations = typeof serviceOperations;
export type ControlOperations = typeof controlOperations;

/** The control API's routes that answer files, a preview or a stream: in the OpenAPI document, handled by hand. */
export const documentedRoutes = defineRoutes({
  ...messageFileRoutes,
  ...streamRoutes,
  ...imapFileRoutes,
  ...scenarioFileRoutes,
  ...storeFileRoutes,
  ...mailFileRoutes,
});

export type DocumentedRoutes = typeof documentedRoutes;
