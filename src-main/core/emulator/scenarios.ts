import type { Logger } from 'pino';
import type { EmulatorClock } from '../clock';
import type { DeliveryFaultsRegistry } from '../dispatch/delivery-faults';
import type { DeliveryQueries } from '../dispatch/delivery-queries';
import type { LiveBus } from '../live-bus';
import { loadUplotAssets, type UplotAssets } from '../scenario/report-assets';
import { ScenarioService } from '../scenario/scenario.service';
import type { ScenarioFolders } from '../scenario/scenario-folders';
import type { AccountsService } from '../services/accounts.service';
import type { ClockService } from '../services/clock.service';
import type { EmailService } from '../services/email/email.service';
import type { EmailEventsService } from '../services/events/email-events.service';
import type { SimulationRules } from '../services/simulation/rules.service';
import type { WebhooksService } from '../services/webhooks.service';
import type { PublicUrl } from './types';

/** uPlot's files, read from the installed package on first use (the HTML report inlines them). */
function uplotAssets(): () => UplotAssets {
  let assets: UplotAssets | undefined;
  return () => (assets ??= loadUplotAssets());
}

/** The scenario runner, wired to the emulator's services. */
export function buildScenarioService(f: {
  accounts: AccountsService;
  webhooks: WebhooksService;
  email: EmailService;
  emailEvents: EmailEventsService;
  rules: SimulationRules;
  clock: EmulatorClock;
  clockControl: ClockService;
  deliveries: DeliveryQueries;
  faults: DeliveryFaultsRegistry;
  live: LiveBus;
  publicUrl: PublicUrl;
  logger: Logger;
  folders: ScenarioFolders;
}): ScenarioService {
  return new ScenarioService({
    accounts: f.accounts,
    webhooks: f.webhooks,
    email: f.email,
    emailEvents: f.emailEvents,
    rules: f.rules,
    clock: f.clock,
    clockControl: f.clockControl,
    deliveries: f.deliveries,
    faults: f.faults,
    live: f.live,
    endpoints: () => ({ http: f.publicUrl.http, smtpPort: f.publicUrl.smtpPort ?? null }),
    logger: f.logger,
    uplotAssets: uplotAssets(),
    folders: f.folders,
  });
}
