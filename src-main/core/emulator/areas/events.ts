import type { AfterCommit } from '../../after-commit';
import { composeRecipe } from '../../services/email/compose-later';
import type { EmailCommitEvents } from '../../services/email/email.service';
import { EmailEventsService } from '../../services/events/email-events.service';
import { MessageLog } from '../../services/events/message-log';
import { SuppressionsService } from '../../services/events/suppressions.service';
import { SimulationRules } from '../../services/simulation/rules.service';
import { Simulator } from '../../services/simulation/simulator';
import { MessagesRepo } from '../../store/messages.repo';
import { SimulationRepo } from '../../store/simulation.repo';
import { SuppressionsRepo } from '../../store/suppressions.repo';
import type { AreaFoundations } from './foundations';
import type { Receivers } from './receivers';

/**
 * The email log and the email events every later service records and sends: a copy's statuses, the
 * webhook events (to the dispatcher), the simulator and its rules, the suppression list.
 */
export function buildEvents(f: AreaFoundations, { webhooks }: Pick<Receivers, 'webhooks'>, sent: AfterCommit<EmailCommitEvents>) {
  const { db, clock, live, unitOfWork } = f;
  const messagesRepo = new MessagesRepo(db, composeRecipe);
  const simulationRepo = new SimulationRepo(db);
  // The suppression list: every write to it goes through this service.
  const suppressions = new SuppressionsService({ repo: new SuppressionsRepo(db), clock });
  const log = new MessageLog({
    messages: messagesRepo,
    suppressions,
    applied: (change) => {
      if (!live.hasListeners('message.updated')) return;
      // An event that leaves the status as it is: the status stored now.
      const status = change.status ?? messagesRepo.get(change.message_id)?.status ?? 'queued';
      live.emit('message.updated', { ...change, status });
    },
  });
  const emailEvents = new EmailEventsService({ webhooks, accounts: f.accounts, dispatcher: f.dispatcher, clock, log, unitOfWork });
  const simulator = new Simulator({
    repo: simulationRepo,
    unitOfWork,
    clock,
    emailEvents,
    logger: f.logger.child({ component: 'simulator' }),
    space: f.space,
  });
  // A send's scheduled events fall due on the emulator clock: the simulator reads them.
  sent.on('message.scheduled', () => simulator.wake());
  const rules = new SimulationRules({ simulation: simulationRepo, emailEvents, clock });
  return { messagesRepo, simulationRepo, log, emailEvents, simulator, rules, suppressions };
}

export type EventsArea = ReturnType<typeof buildEvents>;
