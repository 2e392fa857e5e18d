import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EmulatorClock } from '../clock';
import type { Dispatcher } from '../dispatch/dispatcher';
import type { LiveBus } from '../live-bus';
import { faultsOf } from '../scenario/faults';
import { ScenarioService } from '../scenario/scenario.service';
import type { AccountsService } from '../services/accounts.service';
import type { EmailService } from '../services/email/email.service';
import type { EmailEventsService } from '../services/events/email-events.service';
import type { SimulationRules } from '../services/simulation/rules.service';
import type { WebhooksService } from '../services/webhooks.service';
import type { PublicUrl } from './types';

/** uPlot's files, read from the installed package on first use (the HTML report inlines them). */
function uplotAssets(): () => { uplotJs: string; uplotCss: string } {
  let assets: { uplotJs: string; uplotCss: string } | undefined;
  return () => {
    if (assets) return assets;
    // From this module (the installed package's own dependency), else from the working directory.
    let dir = '';
    for (const from of [import.meta.url, join(process.cwd(), 'package.json')]) {
      try {
        dir = join(createRequire(from).resolve('uplot/package.json'), '..', 'dist');
        break;
      } catch {
        // try the next place
      }
    }
    const read = (name: string) => {
      try {
        return readFileSync(join(dir, name), 'utf8');
      } catch {
        return '';
      }
    };
    assets = { uplotJs: read('uPlot.iife.min.js'), uplotCss: read('uPlot.min.css') };
    return assets;
  };
}

/** The scenario runner, wired to the emulator's services. */
export function buildScenarioService(f: {
  accounts: AccountsService; webhooks: WebhooksService; email: EmailService; emailEvents: EmailEventsService; rules: SimulationRules;
  clock: EmulatorClock; dispatcher: Dispatcher; live: LiveBus; publicUrl: PublicUrl; logger: Logger;
}): ScenarioService {
  return new ScenarioService({
    accounts: f.accounts,
    webhooks: f.webhooks,
    email: f.email,
    emailEvents: f.emailEvents,
    rules: f.rules,
    clock: f.clock,
    dispatcher: f.dispatcher,
    faults: faultsOf(f.dispatcher),
    live: f.live,
    endpoints: () => ({ http: f.publicUrl.http, smtpPort: f.publicUrl.smtpPort ?? null }),
    logger: f.logger,
    uplotAssets: uplotAssets(),
  });
}
