// The mail thread's program (see mail-thread.ts): composes sends and derives the search index's text
// off the main thread. Requests are answered in order: {id, kind, args} in, {id, result} or {id, error} out.
import { parentPort } from 'node:worker_threads';
import { composeMessage } from '../email/compose';
import { deriveTexts } from '../search/derive-text';

const port = parentPort;
if (port === null) throw new Error('the mail thread runs as a worker thread');

const work = {
  compose: (args: Parameters<typeof composeMessage>) => composeMessage(...args),
  derive: (args: Parameters<typeof deriveTexts>) => deriveTexts(...args),
};

// Loaded: until this arrives the main thread does the work itself (a thread starting never delays a send).
port.postMessage({ ready: true });

port.on('message', (message: { id: number; kind: keyof typeof work; args: never }) => {
  work[message.kind](message.args).then(
    (result) => port.postMessage({ id: message.id, result }),
    (err: unknown) => port.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
