import type { Logger } from 'pino';
import type { ImapMessageSummary } from '../../../src-shared/schemas/mailers';
import type { Clock } from '../clock';
import type { Dispatcher } from '../dispatch/dispatcher';
import type { EmailEventsService } from '../services/events/email-events.service';
import type { MailersService } from '../services/mailers/mailers.service';
import type { MailersRepo } from '../store/mailers.repo';
import type { UnitOfWork } from '../store/unit-of-work';
import type { WallScheduler } from './reconnect-backoff';

export interface ImapConnectorDeps {
  mailers: MailersService;
  repo: MailersRepo;
  /** A message taken from an inbox, its post's delivery and the bounce it reports commit together. */
  unitOfWork: UnitOfWork;
  /** The bounce a delivery-status report makes (`record`), and `imap_error` (`emitEmailEvent`). */
  emailEvents: Pick<EmailEventsService, 'record' | 'buildPayload' | 'emitEmailEvent'>;
  dispatcher: Pick<Dispatcher, 'enqueue' | 'commitEnqueued'>;
  /** Emulator time: what is stamped on messages and events. */
  clock: Clock;
  logger: Logger;
  verifyTls: boolean;
  /** Strict mode: the checked address to connect to for a server's host (or its refusal); undefined outside it. */
  serverAddress: (host: string) => Promise<string | undefined>;
  /** A message taken from an inbox is in the store (the live stream). */
  announce?: (message: ImapMessageSummary) => void;
  /** Largest message fetched whole (the SMTP sink's `maxMessageBytes`); a larger one is taken as its header block. Default 25 MB. */
  maxMessageBytes?: number;
  /** Wall time for reconnection delays and the set-up deadline (network waits, never the emulator clock). Default: the process's timers. */
  wall?: WallScheduler;
}

/** What one watch needs: the connector's dependencies and the configuration it watches. */
export interface InboxWatchDeps extends ImapConnectorDeps {
  mailerId: string;
}
