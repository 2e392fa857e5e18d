// The search indexer's thread (see text-deriver.ts): derives the words of stored messages off the
// main thread. One request at a time: {id, job} in, {id, texts} or {id, error} out.
import { parentPort } from 'node:worker_threads';
import { deriveTexts, type TextJob } from './derive-text';

const port = parentPort;
if (port === null) throw new Error('text-worker runs as a worker thread');
port.on('message', (message: { id: number; job: TextJob }) => {
  deriveTexts(message.job).then(
    (texts) => port.postMessage({ id: message.id, texts }),
    (err: unknown) => port.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
