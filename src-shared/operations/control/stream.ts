import { defineRoutes } from '../operation';

/** The live stream the UI follows (`/emulator/stream`): in the document, handled by hand. */
export const streamRoutes = defineRoutes({
  streamLiveEvents: {
    method: 'GET',
    path: '/emulator/stream',
    summary:
      'Server-sent events as things happen: new messages and their events, deliveries and attempts, clock changes, mailer changes, messages taken from IMAP inboxes',
    tag: 'Emulator',
    auth: 'none',
    answer: {
      mediaType: 'text/event-stream',
      description: 'A stream of `event: <name>` / `data: <JSON>` records, a comment every 15 s; never ends on its own',
      schema: { type: 'string' },
    },
  },
});
